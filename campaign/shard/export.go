package shard

import (
	"fmt"

	"github.com/sharebench/sharebench/internal/wire"
	"github.com/sharebench/sharebench/results"
)

// An agent's measurement (results.ShardExport) travels to the coordinator
// as a frame with magic "SBSX" whose body is the export written by the
// wire codec: one walk of the export's type writes it and reads it back,
// so the encoder and the decoder cannot drift apart; a field added to the
// export travels without a change here. The version changes when the
// export's type does, so an agent built from other sources is refused.
const (
	exportMagic = "SBSX"
	// exportVersion 4: the export written by the wire codec (1–3 were
	// hand-written encoders in package results).
	exportVersion = 4
)

// EncodeExport frames e for the bus.
func EncodeExport(e *results.ShardExport) ([]byte, error) {
	if err := e.Check(); err != nil {
		return nil, fmt.Errorf("encode %w", err)
	}
	body, err := wire.Marshal(nil, e)
	if err != nil {
		return nil, fmt.Errorf("encode shard export: %w", err)
	}
	return wire.Seal(exportMagic, exportVersion, body), nil
}

// DecodeExport reads what EncodeExport wrote: the frame (magic, version,
// checksum), every length and range the codec checks, then the export's
// own consistency (results.ShardExport.Check). Histograms are checked
// when absorbed.
func DecodeExport(b []byte) (*results.ShardExport, error) {
	body, err := wire.Open(b, exportMagic, exportVersion, "shard export")
	if err != nil {
		return nil, err
	}
	e := &results.ShardExport{}
	if err := wire.Unmarshal(body, e); err != nil {
		return nil, fmt.Errorf("shard export: %w", err)
	}
	if err := e.Check(); err != nil {
		return nil, err
	}
	return e, nil
}
