package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/version"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// ResumePlan is what `sharebench run --resume` found in a campaign folder:
// the scenario it recorded, which runs are complete (kept), which were cut
// off (rerun from their start) and which never began, and what differs
// between the campaign as recorded and this sharebench. Planning reads the
// folder and changes nothing.
type ResumePlan struct {
	Dir      string
	Campaign runs.Campaign // campaign.json as read
	Scenario *scenarios.Scenario
	// Entry is what the resume will append to campaign.json's resumed list.
	Entry runs.Resume
	// Differences name what differs from the recorded campaign; a resume
	// with any is refused unless Options.ResumeAnyway.
	Differences []string

	kept    map[int]runs.Record // by index into Scenario.Runs
	partial map[int]string      // run folders to move aside, by index
}

// Complete reports whether the campaign has nothing left to do.
func (p *ResumePlan) Complete() bool {
	return p.Campaign.EffectiveStatus() == runs.StatusComplete
}

// Kept is the number of runs the resume keeps.
func (p *ResumePlan) Kept() int { return len(p.kept) }

// ResumeRefusedError is a resume refused because the campaign as recorded
// and this resume differ (--resume-anyway accepts the differences).
type ResumeRefusedError struct {
	Dir         string
	Differences []string
}

func (e *ResumeRefusedError) Error() string {
	return fmt.Sprintf("%s: not resumed: %d difference(s) from the campaign as recorded:\n  %s\n(--resume-anyway resumes anyway and records them in campaign.json)",
		e.Dir, len(e.Differences), strings.Join(e.Differences, "\n  "))
}

// ResumeCheck is what a resume is checked with besides the folder.
type ResumeCheck struct {
	// Provider is the provider the resume will use as named on the
	// command line ("" or "auto": checked once the cluster has started).
	Provider string
	// Source is the scenario file to check against the recorded
	// source_sha256 instead of scenario.source (a --scenario that gives the
	// recorded scenario, from another directory); "": scenario.source.
	Source string
}

// PlanResume reads the campaign folder dir and plans its resume. A folder
// that is not a campaign folder, or whose campaign.json lacks the
// scenario, is an error naming the file and the key.
func PlanResume(dir string, chk ResumeCheck) (*ResumePlan, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("--resume %s: no such folder: expected a campaign folder written by sharebench run", dir)
	case err != nil:
		return nil, fmt.Errorf("--resume %s: %w", dir, err)
	case !st.IsDir():
		return nil, fmt.Errorf("--resume %s: not a folder: expected a campaign folder (the one holding campaign.json)", dir)
	}
	path := filepath.Join(dir, "campaign.json")
	camp, err := runs.ReadCampaign(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--resume %s: no campaign.json: not a campaign folder (sharebench run writes campaign.json as it makes the folder)", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	if camp.SchemaVersion != runs.SchemaVersion {
		return nil, fmt.Errorf("--resume: %s: schema_version %d: this sharebench resumes version %d", path, camp.SchemaVersion, runs.SchemaVersion)
	}
	sc := camp.Scenario
	p := &ResumePlan{Dir: dir, Campaign: camp, Scenario: sc, kept: map[int]runs.Record{}, partial: map[int]string{},
		Entry: runs.Resume{PreviousStatus: camp.EffectiveStatus(), PreviousError: camp.Error, Kept: []string{}}}
	if p.Complete() {
		return p, nil // nothing to do, whatever the scenario
	}
	if sc == nil {
		return nil, fmt.Errorf("--resume: %s: key scenario: missing: the campaign's resolved scenario is what a resume runs", path)
	}
	if len(sc.Runs) == 0 {
		return nil, fmt.Errorf("--resume: %s: key scenario.runs: empty: no run to resume", path)
	}
	listed := map[string]bool{}
	for _, id := range camp.Runs {
		listed[id] = true
	}
	for _, i := range executionOrder(sc) {
		id := sc.RunName(i)
		reason, folder := p.classify(i, id)
		switch {
		case reason == "":
			p.Entry.Kept = append(p.Entry.Kept, id)
		case folder == "" && id == camp.Running:
			p.Entry.Rerun = append(p.Entry.Rerun, runs.ResumedRun{Run: id, Reason: "cut off: the campaign stopped during this run, before its folder was written"})
		case folder == "" && listed[id]:
			p.Entry.Rerun = append(p.Entry.Rerun, runs.ResumedRun{Run: id, Reason: "listed in campaign.json, but its folder is missing"})
		case folder == "":
			p.Entry.NotStarted = append(p.Entry.NotStarted, id)
		default:
			p.partial[i] = folder
			p.Entry.Rerun = append(p.Entry.Rerun, runs.ResumedRun{Run: id, Reason: reason})
		}
	}
	p.Differences = p.differences(chk)
	return p, nil
}

// classify says why run i (folder runs/id) cannot be kept ("" when it can)
// and, when it has a folder that cannot be kept, that folder.
func (p *ResumePlan) classify(i int, id string) (reason, folder string) {
	dir := filepath.Join(p.Dir, "runs", id)
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return "no folder", ""
	}
	rec, err := runs.ReadRun(filepath.Join(dir, "run.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "cut off: its folder has no run.json", dir
	case err != nil:
		return fmt.Sprintf("run.json unreadable: %v", err), dir
	case rec.RunID != id:
		return fmt.Sprintf("run.json: run_id %q disagrees with its folder %q", rec.RunID, id), dir
	}
	if probs := runs.IntegrityProblems(rec); len(probs) > 0 {
		return "run.json fails the integrity checks: " + strings.Join(probs, "; "), dir
	}
	want, _ := json.Marshal(p.Scenario.Runs[i])
	got, _ := json.Marshal(rec.Spec)
	if !bytes.Equal(want, got) {
		return "run.json: its spec is not the scenario's run " + id, dir
	}
	p.kept[i] = rec
	return "", ""
}

// differences compares the campaign as recorded with this resume: the
// scenario (the recorded one against its recorded digest, and its source
// text against the digest of the text the campaign read), the sharebench
// build and, when the command line names one, the provider.
func (p *ResumePlan) differences(chk ResumeCheck) []string {
	var out []string
	add := func(format string, a ...any) {
		s := fmt.Sprintf(format, a...)
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	path := filepath.Join(p.Dir, "campaign.json")
	sc := p.Scenario
	resolved := scenarioDigest(sc)
	source := sc.Source
	if chk.Source != "" {
		source = chk.Source
		resolved.SourceSHA256 = ""
		if b, err := os.ReadFile(source); err == nil {
			resolved.SourceSHA256 = sha256Hex(b)
		}
	}
	b := version.Get()
	for ei, env := range p.Campaign.Environment {
		if d := env.Scenario; d != nil {
			if d.ResolvedSHA256 != "" && d.ResolvedSHA256 != resolved.ResolvedSHA256 {
				add("%s: scenario hashes to %s, but environment[%d].scenario.resolved_sha256 is %s: the recorded scenario was changed after the campaign began, or this sharebench encodes scenarios differently",
					path, short(resolved.ResolvedSHA256), ei, short(d.ResolvedSHA256))
			}
			switch {
			case d.SourceSHA256 == "":
			case resolved.SourceSHA256 == "":
				add("scenario source %s (scenario.source in %s): cannot be read here, so it cannot be checked against environment[%d].scenario.source_sha256 %s (give it with --scenario, or run from the directory the campaign started in)",
					source, path, ei, short(d.SourceSHA256))
			case resolved.SourceSHA256 != d.SourceSHA256:
				add("scenario source %s changed since the campaign began: SHA-256 now %s, environment[%d].scenario.source_sha256 %s (a resume runs the scenario recorded in campaign.json)",
					source, short(resolved.SourceSHA256), ei, short(d.SourceSHA256))
			}
		}
		if h := env.Harness; h != nil && (h.Version != b.Version || h.Revision != b.Revision || h.Dirty != b.Dirty) {
			add("sharebench build: this is %s, environment[%d].harness is %s", buildText(b.Version, b.Revision, b.Dirty), ei, buildText(h.Version, h.Revision, h.Dirty))
		}
		if chk.Provider != "" && chk.Provider != "auto" && chk.Provider != env.Provider {
			add("provider: --provider %s, environment[%d].provider is %s", chk.Provider, ei, env.Provider)
		}
	}
	return out
}

// envDifferences compares a cluster a resume started with ref, the
// environment recorded as what: the provider always, the Kafka version and
// node count only when ref is the same cluster group's (sameGroup).
func envDifferences(env runs.Environment, ref *runs.Environment, what string, sameGroup bool) []string {
	if ref == nil {
		return nil
	}
	var out []string
	if env.Provider != ref.Provider {
		out = append(out, fmt.Sprintf("provider: this cluster is %s, %s.provider is %s", env.Provider, what, ref.Provider))
	}
	if env.IsKafka != ref.IsKafka {
		out = append(out, fmt.Sprintf("is_kafka: this cluster %v, %s.is_kafka %v", env.IsKafka, what, ref.IsKafka))
	}
	if sameGroup {
		if env.KafkaVersion != ref.KafkaVersion {
			out = append(out, fmt.Sprintf("kafka_version: this cluster runs %s, %s.kafka_version is %s", env.KafkaVersion, what, ref.KafkaVersion))
		}
		if env.Nodes != ref.Nodes {
			out = append(out, fmt.Sprintf("nodes: this cluster has %d, %s.nodes is %d", env.Nodes, what, ref.Nodes))
		}
	}
	return out
}

func buildText(v, rev string, dirty bool) string {
	s := v
	if rev != "" {
		s += " (" + rev
		if dirty {
			s += ", dirty"
		}
		s += ")"
	}
	return s
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// executionOrder is the order a campaign runs the scenario's runs in: its
// clusters' groups one after the other (groupByCluster).
func executionOrder(sc *scenarios.Scenario) []int {
	var out []int
	for _, g := range groupByCluster(sc.Runs) {
		out = append(out, g...)
	}
	return out
}

// ScenarioDifference names the first key where a scenario given on the
// command line differs from the one a campaign recorded ("" when they are
// the same; the source path is not compared, its text is).
func ScenarioDifference(recorded, given *scenarios.Scenario) string {
	a, b := *recorded, *given
	a.Source, b.Source = "", ""
	var x, y any
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if bytes.Equal(ja, jb) {
		return ""
	}
	_ = json.Unmarshal(ja, &x)
	_ = json.Unmarshal(jb, &y)
	if d := firstDiff("scenario", x, y); d != "" {
		return d
	}
	return "scenario: differs"
}

// firstDiff walks two decoded JSON values and names the first path where
// they differ, with both values.
func firstDiff(path string, a, b any) string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		for _, k := range sortedKeys(av, bv) {
			if d := firstDiff(path+"."+k, av[k], bv[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		if len(av) != len(bv) {
			return fmt.Sprintf("%s: the campaign recorded %d entries, this has %d", path, len(av), len(bv))
		}
		for i := range av {
			if d := firstDiff(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i]); d != "" {
				return d
			}
		}
		return ""
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if bytes.Equal(ja, jb) {
		return ""
	}
	return fmt.Sprintf("%s: the campaign recorded %s, this has %s", path, clip(string(ja)), clip(string(jb)))
}

func sortedKeys(a, b map[string]any) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]any{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// moveAside moves the partial run folders out of runs/ into
// partial-runs/<run-id>[-N], so the rerun writes a fresh folder and the
// cut-off one stays for a look.
func (p *ResumePlan) moveAside() error {
	for i, dir := range p.partial {
		id := filepath.Base(dir)
		base := filepath.Join(p.Dir, "partial-runs", id)
		if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
			return err
		}
		to := base
		for n := 2; ; n++ {
			if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
				break
			}
			to = fmt.Sprintf("%s-%d", base, n)
		}
		if err := os.Rename(dir, to); err != nil {
			return fmt.Errorf("run %s: move its partial folder aside: %w", id, err)
		}
		rel, _ := filepath.Rel(p.Dir, to)
		for k := range p.Entry.Rerun {
			if p.Entry.Rerun[k].Run == p.Scenario.RunName(i) {
				p.Entry.Rerun[k].MovedTo = rel
			}
		}
	}
	return nil
}

// Summary is the plan in a few lines, for the console.
func (p *ResumePlan) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "resuming %s (status %s): %d of %d run(s) kept", p.Dir, p.Entry.PreviousStatus, len(p.Entry.Kept), len(p.Scenario.Runs))
	if len(p.Entry.Kept) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(p.Entry.Kept, ", "))
	}
	for _, r := range p.Entry.Rerun {
		fmt.Fprintf(&b, "\n  rerun %s: %s", r.Run, r.Reason)
	}
	if len(p.Entry.NotStarted) > 0 {
		fmt.Fprintf(&b, "\n  not started: %s", strings.Join(p.Entry.NotStarted, ", "))
	}
	return b.String()
}

// resumeNow is the resume's clock (a variable for tests).
var resumeNow = time.Now

// Resume continues the campaign in folder dir (`sharebench run --resume`):
// it takes the folder's lock (a campaign still running holds it), plans
// again under it, refuses when the campaign as recorded and this resume
// differ (unless opt.ResumeAnyway), moves the cut-off run folders aside,
// records the resume in campaign.json, then runs what is left in the
// campaign's order, keeping the complete runs, and finishes as a campaign
// run in one go does: status, expectations and recommendations on all the
// runs, the reports. A complete campaign is an error here: the caller
// says there is nothing to do.
func Resume(ctx context.Context, dir string, opt Options) (*Result, error) {
	release, err := lockFolder(dir)
	if err != nil {
		return nil, err
	}
	held := false
	defer func() {
		if !held {
			release()
		}
	}()
	p, err := PlanResume(dir, ResumeCheck{Provider: opt.Provider, Source: opt.ResumeSource})
	if err != nil {
		return nil, err
	}
	if p.Complete() {
		return nil, fmt.Errorf("%s: the campaign is complete: nothing to resume", dir)
	}
	if len(p.Differences) > 0 && !opt.ResumeAnyway {
		return nil, &ResumeRefusedError{Dir: dir, Differences: p.Differences}
	}
	c, err := prepare(ctx, p.Scenario, opt)
	if err != nil {
		return nil, err
	}
	c.release, held = release, true
	defer c.release()
	// The killed harness's broker data and PostgreSQL cluster under $TMPDIR
	// (infra/tempsweep.go); a cluster start sweeps them too.
	infra.SweepOrphanedTemp(opt.Log)
	if err := p.moveAside(); err != nil {
		return nil, err
	}
	p.Entry.At = resumeNow().UTC().Format(time.RFC3339)
	p.Entry.Differences = p.Differences
	for i, r := range p.kept {
		c.done[i] = r
	}
	camp := p.Campaign
	camp.Status, camp.Error, camp.FinishedAt, camp.Running = runs.StatusRunning, "", "", ""
	camp.Expectations, camp.Recommendations = nil, nil
	camp.Resumed = append(camp.Resumed, p.Entry)
	c.resume = p
	c.out = &Result{Dir: dir, Runs: c.doneRecords()}
	camp.Runs = runIDs(c.out.Runs)
	c.folder = &folder{dir: dir, camp: camp}
	if err := c.folder.save(); err != nil {
		if df := c.diskFull(err); df != nil {
			df.CampaignStale = true // campaign.json is as the resume found it
			return nil, df
		}
		return nil, err
	}
	fmt.Fprintln(c.log, p.Summary())
	for _, d := range p.Differences {
		fmt.Fprintf(c.log, "  --resume-anyway: %s\n", d)
	}
	return c.run(ctx)
}

// checkResumedEnvironment compares a cluster a resume started with what the
// campaign recorded: provider, Kafka version and nodes against a kept run
// of the same cluster group (the runs the new ones will be compared with),
// else the provider against the campaign's first cluster. A difference
// stops the resume unless --resume-anyway, which records it.
func (c *campaign) checkResumedEnvironment(env runs.Environment, group []int) error {
	if c.resume == nil {
		return nil
	}
	var ref *runs.Environment
	what, sameGroup := "", false
	for _, i := range group {
		if r, ok := c.resume.kept[i]; ok {
			ref, what, sameGroup = &r.Environment, "run "+r.RunID+" environment", true
			break
		}
	}
	if ref == nil && len(c.resume.Campaign.Environment) > 0 {
		ref, what = &c.resume.Campaign.Environment[0], "campaign.json environment[0]"
	}
	diffs := envDifferences(env, ref, what, sameGroup)
	if len(diffs) == 0 {
		return nil
	}
	if !c.opt.ResumeAnyway {
		return &ResumeRefusedError{Dir: c.folder.dir, Differences: diffs}
	}
	last := &c.folder.camp.Resumed[len(c.folder.camp.Resumed)-1]
	last.Differences = append(last.Differences, diffs...)
	for _, d := range diffs {
		fmt.Fprintf(c.log, "  --resume-anyway: %s\n", d)
	}
	return c.folder.save()
}
