package results

import "github.com/sharebench/sharebench/internal/wire"

// encodeExport and decodeExport carry an export through the wire codec as
// campaign/shard does (its frame aside): these tests cannot import that
// package, which imports this one.
func encodeExport(e *ShardExport) ([]byte, error) {
	if err := e.Check(); err != nil {
		return nil, err
	}
	return wire.Marshal(nil, e)
}

func decodeExport(b []byte) (*ShardExport, error) {
	e := &ShardExport{}
	if err := wire.Unmarshal(b, e); err != nil {
		return nil, err
	}
	if err := e.Check(); err != nil {
		return nil, err
	}
	return e, nil
}
