package campaign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// DiskFullError is a campaign stopped because the file system of its
// folder is full (ENOSPC) or the disk quota spent (EDQUOT): a write failed
// (Write), or the check before a run found less free space than the run's
// output estimate (Need, Free). It says which path and how many bytes, what
// is intact, and what to run once there is space again
// (docs/how-to/run-long-campaigns.md#a-full-disk).
type DiskFullError struct {
	Dir string // the campaign folder
	// Run is the run whose output was being written, or which was not
	// started; "" for a campaign file written outside a run.
	Run string
	// Write is the write that failed; nil when the preflight refused Run.
	Write *runs.NoSpaceError
	// Need is the run's output estimate (RunDiskEstimate plus two copies of
	// campaign.json) and Free what the file system had free for this user,
	// both in bytes; set when the preflight refused Run.
	Need, Free uint64
	// Done runs of Total are recorded in the folder, complete and intact.
	Done, Total int
	// CampaignStale: campaign.json could not be rewritten either, so it
	// keeps its last state (status running during a campaign), which a
	// resume reads as a campaign whose harness stopped.
	CampaignStale bool
	// Complete: every run is recorded and campaign.json says complete; only
	// the reports (summary.md, report.html, runs.csv) did not fit.
	Complete bool
	// Removed: the campaign ended before its first run and its folder was
	// removed (nothing to resume).
	Removed bool
}

func (e *DiskFullError) Error() string {
	s := "results folder full: "
	if e.Run != "" {
		s += "run " + e.Run + ": "
	}
	if e.Write != nil {
		s += e.Write.Error()
	} else {
		s += fmt.Sprintf("not started: its output estimate is %s (docs/how-to/run-long-campaigns.md#a-full-disk) and the file system of %s has %s free",
			runs.BytesText(int64(min(e.Need, 1<<62))), e.Dir, runs.BytesText(int64(min(e.Free, 1<<62))))
	}
	switch {
	case e.Removed:
		return s + "; nothing was recorded and the campaign folder was removed: free space there, then start the campaign again"
	case e.Complete:
		return s + fmt.Sprintf("; all %d run(s) are recorded and intact in %s and campaign.json says complete, but the reports (summary.md, report.html, runs.csv) are not all written: free space there, then write them with: sharebench report %s",
			e.Done, e.Dir, e.Dir)
	}
	s += fmt.Sprintf("; %d of %d run(s) are recorded and intact in %s", e.Done, e.Total, e.Dir)
	if e.CampaignStale {
		s += " (campaign.json could not be rewritten either: it keeps its last state, which a resume reads as a campaign stopped short)"
	} else {
		s += " (campaign.json says failed)"
	}
	return s + fmt.Sprintf("; free space there, then continue the campaign with: sharebench run --resume %s", e.Dir)
}

// Unwrap is the failed write's error, or ENOSPC for a preflight refusal,
// so errors.Is(err, syscall.ENOSPC) holds either way.
func (e *DiskFullError) Unwrap() error {
	if e.Write != nil {
		return e.Write
	}
	return syscall.ENOSPC
}

// What a run writes into its folder, for RunDiskEstimate: run.json and the
// six .hgrm tables (runFixedBytes), run.json's entry per member
// (memberBytes), and per second of the span its recorder is sized for the
// two .hlog intervals (results' bound of an encoded interval, 2 KiB each)
// and a timeseries.csv row (seriesRowBytes). Measured: a 1 s kfake run of
// 2 members writes about 25 KB in all, run.json 11 KB of it, a .hgrm 1.8 KB,
// an .hlog line about 600 bytes, a timeseries.csv row under 130 bytes.
const (
	runFixedBytes    = 64 << 10
	memberBytes      = 1 << 10
	intervalBytes    = 2 << 10
	seriesRowBytes   = 256
	perSecondBytes   = 2*intervalBytes + seriesRowBytes
	campaignCopies   = 2        // campaign.json is rewritten as the run starts and as it ends
	unknownSpanBytes = 16 << 20 // a run whose span cannot be sized (prepare refuses its load mode first)
)

// RunDiskEstimate is what run r is estimated to write into its folder, in
// bytes: 64 KiB, plus 1 KiB per member (those a join event adds
// included), plus 4.25 KiB per second of the span its time series is sized
// for (the group formation's bound, the load's span and a minute, as
// RunFootprint). It bounds the files of docs/how-to/read-the-results.md; a stalled run's
// thread dumps come on top.
func RunDiskEstimate(r scenarios.RunSpec) uint64 {
	_, seconds, err := runSizes(r)
	if err != nil {
		return unknownSpanBytes
	}
	members := uint64(max(r.Members, 0)) + uint64(joinedMembers(r))
	return results.SatAdd(results.SatAdd(runFixedBytes, results.SatMul(members, memberBytes)),
		results.SatMul(uint64(max(seconds, 1)), perSecondBytes))
}

// freeBytes reads the free space of a folder's file system (a variable: a
// test gives a campaign a full disk without one).
var freeBytes = runs.FreeBytes

// checkSpace is the preflight before run i: the run's output estimate plus
// two copies of campaign.json must fit in the free space of the campaign
// folder's file system, else the run is not started and the campaign ends
// with a DiskFullError. Where the free space cannot be read, nothing is
// checked.
func (c *campaign) checkSpace(i int) error {
	free, ok := freeBytes(c.folder.dir)
	if !ok {
		return nil
	}
	need := RunDiskEstimate(c.sc.Runs[i])
	if st, err := os.Stat(filepath.Join(c.folder.dir, "campaign.json")); err == nil {
		need = results.SatAdd(need, results.SatMul(campaignCopies, uint64(st.Size())))
	}
	if free >= need {
		return nil
	}
	return &DiskFullError{Dir: c.folder.dir, Run: c.sc.RunName(i), Need: need, Free: free}
}

// firstPending is the first run, in the campaign's order, not done yet
// (-1 when every run is).
func (c *campaign) firstPending() int {
	for _, i := range c.order {
		if _, ok := c.done[i]; !ok {
			return i
		}
	}
	return -1
}

// diskFull is err as a DiskFullError when the campaign folder's file
// system was found full (a preflight refusal or a write that failed with
// ENOSPC or EDQUOT), filled in with what the folder holds; nil otherwise.
func (c *campaign) diskFull(err error) *DiskFullError {
	var df *DiskFullError
	if !errors.As(err, &df) {
		var ns *runs.NoSpaceError
		if !errors.As(err, &ns) {
			return nil
		}
		df = &DiskFullError{Write: ns, Run: c.current}
	}
	df.Dir, df.Done, df.Total = c.folder.dir, len(c.out.Runs), len(c.sc.Runs)
	return df
}

// finishFull records how a campaign stopped by a full disk ended (its
// campaign.json, then the reports), saying in df what could not be written.
func (c *campaign) finishFull(status string, df *DiskFullError) (*Result, error) {
	werr := c.folder.finish(status, df, c.out.Runs)
	var ns *runs.NoSpaceError
	switch {
	case werr == nil:
	case errors.As(werr, &ns):
		if filepath.Base(ns.Path) == "campaign.json" {
			df.CampaignStale = true
		}
		fmt.Fprintf(c.log, "%v\n", werr)
	default:
		fmt.Fprintf(c.log, "%v\n", werr)
		return c.out, errors.Join(df, werr)
	}
	return c.out, df
}
