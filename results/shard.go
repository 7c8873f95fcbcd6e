package results

import "errors"

// A sharded run (campaign/shard) records on N recorders, one per agent
// process, and merges them on the coordinator: each agent exports what its
// recorder measured, the coordinator absorbs every export into its own
// recorder, and from there on Merge, the ledger's Audit and the series are
// read as for a single-process run.

// ShardExport is everything one shard's Recorder measured, in a form that
// travels between processes.
type ShardExport struct{}

// Export captures the recorder's state once the shard's run has ended.
func (r *Recorder) Export() (*ShardExport, error) { return nil, errors.New("results: Export not written yet") }

// Encode serialises the export.
func (e *ShardExport) Encode() ([]byte, error) { return nil, errors.New("results: Encode not written yet") }

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
// uncertainty (half that round trip).
func EstimateOffset(samples []OffsetSample) (offsetNs, uncertaintyNs int64, err error) {
	return 0, 0, errors.New("results: EstimateOffset not written yet")
}

// NewClockOffset starts a clock that reads the local wall time plus
// offsetNs: an agent's clock corrected to its coordinator's.
func NewClockOffset(offsetNs int64) *Clock { return NewClock() }
