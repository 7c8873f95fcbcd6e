package collectors

import (
	"math"
	"os"
	"testing"
	"time"
)

// A 4.4.0 broker's share-partition series (trimmed from a scrape during a
// share run with 2 partitions) parse into the KIP-1103 figures.
func TestParseSharePartition440(t *testing.T) {
	f, err := os.Open("testdata/broker-4.4.0-sharepartition.prom")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ParseBrokerMetrics(f)
	if err != nil {
		t.Fatal(err)
	}
	sp := s.SharePartition
	fl := sp.Hist["FetchLockRatio"]
	if fl.n != 1631+1515 || sp.Hist["FetchLockTimeMs"].n == 0 || sp.Hist["InFlightBatchMessageCount"].n == 0 {
		t.Errorf("histograms %+v", sp.Hist)
	}
	if mean := fl.sum / fl.n; mean < 76 || mean > 79 {
		t.Errorf("FetchLockRatio mean %.2f, want between the partitions' 76.5 and 78.4", mean)
	}
	if math.IsNaN(sp.InFlightMessagesPartitionMax) || sp.InFlightMessagesPartitionMax < 0 {
		t.Errorf("in flight %v", sp.InFlightMessagesPartitionMax)
	}
}

func TestSummarizeSharePartitionWindow(t *testing.T) {
	t0 := time.Unix(1000, 0)
	mk := func(sec int, inflight, timeouts, n, sum float64) BrokerSample {
		return BrokerSample{At: t0.Add(time.Duration(sec) * time.Second), SharePartition: SharePartitionSample{
			InFlightMessagesPartitionMax: inflight, AcquisitionLockTimeouts: timeouts,
			Hist: map[string]histSum{"FetchLockRatio": {n, sum}}}}
	}
	ss := [][]BrokerSample{{mk(0, 10, 0, 100, 5000), mk(5, 400, 3, 200, 11000), mk(10, 50, 10, 300, 16000)}}
	got := summarizeSharePartition(ss, t0, t0.Add(10*time.Second))
	if got == nil || got.InFlightMessagesPartitionMax != 400 || got.AcquisitionLockTimeoutsPerSec != 1 || got.FetchLockRatioMean != 55 {
		t.Errorf("got %+v", got)
	}
	if summarizeSharePartition([][]BrokerSample{{{At: t0}, {At: t0.Add(time.Second)}}}, t0, t0.Add(time.Second)) != nil {
		t.Error("no share partition: want nil")
	}
}
