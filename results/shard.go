package results

import (
	"errors"
	"fmt"
)

// A sharded run (campaign/shard) records on N recorders, one per agent
// process, and merges them on the coordinator: each agent exports what its
// recorder measured, the coordinator absorbs every export into its own
// recorder, and from there on Merge, the ledger's Audit and the series are
// read as for a single-process run.

// ShardExport is everything one shard's Recorder measured, in a form that
// travels between processes.
type ShardExport struct{}

// Export captures the recorder's state once the shard's run has ended.
func (r *Recorder) Export() (*ShardExport, error) {
	return nil, errors.New("results: Export not written yet")
}

// Encode serialises the export.
func (e *ShardExport) Encode() ([]byte, error) {
	return nil, errors.New("results: Encode not written yet")
}

// DecodeShardExport reads what Encode wrote.
func DecodeShardExport(b []byte) (*ShardExport, error) {
	return nil, errors.New("results: DecodeShardExport not written yet")
}

// Absorb merges a shard's export into r: histograms added, ledgers
// reconciled (a record produced on one shard and completed on another is
// counted once; completed on two shards is a duplicate), time series and
// counters summed, members and pauses appended.
func (r *Recorder) Absorb(e *ShardExport) error { return errors.New("results: Absorb not written yet") }

// OffsetSample is one clock-offset ping: the agent's clock when it sent the
// ping and when the reply arrived, and the coordinator's clock when it
// answered.
type OffsetSample struct{ SendNs, RemoteNs, RecvNs int64 }

// EstimateOffset returns the offset to add to the local clock to read the
// remote one, from the sample with the smallest round trip, and its
// uncertainty (docs/measurement.md#sharded-runs-how-shard-results-merge).
// The remote clock was read somewhere between SendNs and RecvNs, so the
// estimate takes the midpoint: offset = RemoteNs − (SendNs+RecvNs)/2, and
// the true offset lies within ±⌈RTT/2⌉ of it (RTT = RecvNs − SendNs) however
// the round trip split between the two directions. It fails on no samples
// or on a sample whose reply arrived before its send.
func EstimateOffset(samples []OffsetSample) (offsetNs, uncertaintyNs int64, err error) {
	if len(samples) == 0 {
		return 0, 0, errors.New("results: clock offset: no ping samples")
	}
	best := -1
	for i, s := range samples {
		rtt := s.RecvNs - s.SendNs
		if rtt < 0 {
			return 0, 0, fmt.Errorf("results: clock offset: sample %d has a negative round trip (send %d ns, receive %d ns); want receive ≥ send", i, s.SendNs, s.RecvNs)
		}
		if best < 0 || rtt < samples[best].RecvNs-samples[best].SendNs {
			best = i
		}
	}
	s := samples[best]
	rtt := s.RecvNs - s.SendNs
	// Send + ⌊rtt/2⌋ is the midpoint without overflowing Send+Recv; the
	// remote reading is at most ⌈rtt/2⌉ from it.
	return s.RemoteNs - (s.SendNs + rtt/2), (rtt + 1) / 2, nil
}

// NewClockOffset starts a clock that reads the local wall time plus
// offsetNs: an agent's clock corrected to its coordinator's. Like NewClock
// it advances on the monotonic clock only; the offset shifts its epoch.
func NewClockOffset(offsetNs int64) *Clock {
	c := NewClock()
	c.epochUnix += offsetNs
	return c
}
