package consumers

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sharebench/sharebench/internal/wire"
	"github.com/sharebench/sharebench/results"
)

// A sharded run's agents each measure their own members' client statistics;
// the coordinator adds them up. The histograms travel in HdrHistogram's
// compressed encoding.

// NewClientStats returns empty client statistics to merge into.
func NewClientStats() ClientStats { return newClientStats() }

// Merge adds o's histograms into s.
func (s ClientStats) Merge(o ClientStats) {
	s.Buffered.Merge(o.Buffered)
	s.PerAcquisition.Merge(o.PerAcquisition)
	s.PerResponse.Merge(o.PerResponse)
	s.Requests.Merge(o.Requests)
}

// Client statistics travel as a frame (internal/wire) with magic
// "SBCS": the three histograms in HdrHistogram's V2 compressed encoding, in
// the order below, each after its length as an unsigned varint, then the
// request timings (results.RequestTimingRow as JSON) after theirs.
const (
	clientStatsMagic   = "SBCS"
	clientStatsVersion = 2
)

// Encode serialises the statistics.
func (s ClientStats) Encode() ([]byte, error) {
	var body []byte
	for _, h := range []*hdrhistogram.Histogram{s.Buffered, s.PerAcquisition, s.PerResponse} {
		b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return nil, fmt.Errorf("consumers: encode client statistics: %w", err)
		}
		body = append(binary.AppendUvarint(body, uint64(len(b))), b...)
	}
	rows, err := json.Marshal(s.Requests.Rows())
	if err != nil {
		return nil, fmt.Errorf("consumers: encode request timings: %w", err)
	}
	body = append(binary.AppendUvarint(body, uint64(len(rows))), rows...)
	return wire.Seal(clientStatsMagic, clientStatsVersion, body), nil
}

// DecodeClientStats reads what Encode wrote.
func DecodeClientStats(b []byte) (ClientStats, error) {
	body, err := wire.Open(b, clientStatsMagic, clientStatsVersion, "consumers: client statistics")
	if err != nil {
		return ClientStats{}, err
	}
	out := ClientStats{}
	for i, dst := range []**hdrhistogram.Histogram{&out.Buffered, &out.PerAcquisition, &out.PerResponse} {
		n, k := binary.Uvarint(body)
		if k <= 0 || n > uint64(len(body)-k) {
			return ClientStats{}, fmt.Errorf("consumers: client statistics: histogram %d: bad length", i+1)
		}
		h, err := hdrhistogram.Decode(body[k : k+int(n)])
		if err != nil {
			return ClientStats{}, fmt.Errorf("consumers: client statistics: histogram %d: %w", i+1, err)
		}
		*dst, body = h, body[k+int(n):]
	}
	n, k := binary.Uvarint(body)
	if k <= 0 || n > uint64(len(body)-k) {
		return ClientStats{}, fmt.Errorf("consumers: client statistics: request timings: bad length")
	}
	var rows []results.RequestTimingRow
	if err := json.Unmarshal(body[k:k+int(n)], &rows); err != nil {
		return ClientStats{}, fmt.Errorf("consumers: client statistics: request timings: %w", err)
	}
	out.Requests, body = results.RequestTimingsFromRows(rows), body[k+int(n):]
	if len(body) != 0 {
		return ClientStats{}, fmt.Errorf("consumers: client statistics: %d bytes after the request timings", len(body))
	}
	return out, nil
}
