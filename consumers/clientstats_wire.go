package consumers

import (
	"encoding/json"
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

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

type clientStatsWire struct {
	Buffered, PerAcquisition, PerResponse []byte
	Requests                              []results.RequestTimingRow `json:",omitempty"`
}

// Encode serialises the statistics.
func (s ClientStats) Encode() ([]byte, error) {
	w := clientStatsWire{Requests: s.Requests.Rows()}
	for _, p := range []struct {
		h   *hdrhistogram.Histogram
		out *[]byte
	}{{s.Buffered, &w.Buffered}, {s.PerAcquisition, &w.PerAcquisition}, {s.PerResponse, &w.PerResponse}} {
		b, err := p.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return nil, fmt.Errorf("consumers: encode client statistics: %w", err)
		}
		*p.out = b
	}
	return json.Marshal(w)
}

// DecodeClientStats reads what Encode wrote.
func DecodeClientStats(b []byte) (ClientStats, error) {
	var w clientStatsWire
	if err := json.Unmarshal(b, &w); err != nil {
		return ClientStats{}, fmt.Errorf("consumers: client statistics: %w", err)
	}
	out := ClientStats{Requests: results.RequestTimingsFromRows(w.Requests)}
	for _, p := range []struct {
		in  []byte
		out **hdrhistogram.Histogram
	}{{w.Buffered, &out.Buffered}, {w.PerAcquisition, &out.PerAcquisition}, {w.PerResponse, &out.PerResponse}} {
		h, err := hdrhistogram.Decode(p.in)
		if err != nil {
			return ClientStats{}, fmt.Errorf("consumers: client statistics: %w", err)
		}
		*p.out = h
	}
	return out, nil
}
