package collectors

import (
	"math"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/sharebench/sharebench/results"
)

// SharePartitionSample is one scrape's KIP-1103 share-partition and
// share-group figures (infra/jmx_exporter.yaml includes both MBean types;
// the agent's default names):
//
//	kafka_server_sharepartitionmetrics_value{name=InFlightMessageCount|InFlightBatchCount,group,topic,partition}
//	kafka_server_sharepartitionmetrics_count{name=AcquisitionLockTimeoutPerSec,...}
//	kafka_server_sharepartitionmetrics_count|_mean{name=FetchLockRatio|FetchLockTimeMs|InFlightBatchMessageCount,...} (histograms)
//	kafka_server_sharegroupmetrics_count|_mean{name=TopicPartitionsAcquireTimeMs,group}
//
// seen with these names on 4.2.2, 4.3.1 and 4.4.0. Histograms are kept as
// (observations, sum), so a window's mean is Δsum ÷ Δobservations.
type SharePartitionSample struct {
	InFlightMessagesPartitionMax float64
	InFlightBatches              float64
	AcquisitionLockTimeouts      float64
	Hist                         map[string]histSum // by metric name
}

// histSum is a cumulative histogram's observation count and sum.
type histSum struct{ n, sum float64 }

// shareHistograms are the histograms SharePartitionSample keeps.
var shareHistograms = []string{"FetchLockRatio", "FetchLockTimeMs", "InFlightBatchMessageCount", "TopicPartitionsAcquireTimeMs"}

// parseSharePartition reads the share-partition figures of one scrape.
func parseSharePartition(fams map[string]*dto.MetricFamily) SharePartitionSample {
	s := SharePartitionSample{Hist: map[string]histSum{}}
	type key struct{ name, group, topic, partition string }
	counts, means := map[key]float64{}, map[key]float64{}
	for _, fam := range []string{"kafka_server_sharepartitionmetrics", "kafka_server_sharegroupmetrics"} {
		for _, suffix := range []string{"_value", "_count", "_mean"} {
			f, ok := fams[fam+suffix]
			if !ok {
				continue
			}
			for _, m := range f.GetMetric() {
				v := value(m)
				if math.IsNaN(v) {
					continue
				}
				l := labels(m)
				k := key{l["name"], l["group"], l["topic"], l["partition"]}
				switch {
				case suffix == "_value" && k.name == "InFlightMessageCount":
					s.InFlightMessagesPartitionMax = max(s.InFlightMessagesPartitionMax, v)
				case suffix == "_value" && k.name == "InFlightBatchCount":
					s.InFlightBatches += v
				case suffix == "_count" && k.name == "AcquisitionLockTimeoutPerSec":
					s.AcquisitionLockTimeouts += v
				case suffix == "_count":
					counts[k] = v
				case suffix == "_mean":
					means[k] = v
				}
			}
		}
	}
	for k, n := range counts {
		for _, h := range shareHistograms {
			if k.name == h {
				hs := s.Hist[h]
				hs.n += n
				hs.sum += n * means[k]
				s.Hist[h] = hs
			}
		}
	}
	return s
}

// summarizeSharePartition derives the window's share-partition figures
// from each broker's scrapes nearest start and end; nil when no broker
// exported a share partition.
func summarizeSharePartition(samples [][]BrokerSample, start, end time.Time) *results.SharePartitionFigures {
	out := &results.SharePartitionFigures{}
	seen := false
	hist := map[string]histSum{}
	for _, ss := range samples {
		if len(ss) == 0 {
			continue
		}
		a, b := nearest(ss, start), nearest(ss, end)
		span := ss[b].At.Sub(ss[a].At).Seconds()
		if b <= a || span <= 0 {
			continue
		}
		sa, sb := ss[a].SharePartition, ss[b].SharePartition
		for _, s := range ss[a : b+1] {
			sp := s.SharePartition
			out.InFlightMessagesPartitionMax = max(out.InFlightMessagesPartitionMax, sp.InFlightMessagesPartitionMax)
			out.InFlightBatchesMax = max(out.InFlightBatchesMax, sp.InFlightBatches)
			seen = seen || len(sp.Hist) > 0 || sp.InFlightBatches > 0 || sp.InFlightMessagesPartitionMax > 0
		}
		out.AcquisitionLockTimeoutsPerSec += (sb.AcquisitionLockTimeouts - sa.AcquisitionLockTimeouts) / span
		for _, h := range shareHistograms {
			d := hist[h]
			d.n += sb.Hist[h].n - sa.Hist[h].n
			d.sum += sb.Hist[h].sum - sa.Hist[h].sum
			hist[h] = d
		}
	}
	if !seen {
		return nil
	}
	mean := func(h string) float64 {
		if d := hist[h]; d.n > 0 {
			return d.sum / d.n
		}
		return 0
	}
	out.FetchLockRatioMean = mean("FetchLockRatio")
	out.FetchLockTimeMsMean = mean("FetchLockTimeMs")
	out.InFlightBatchMessagesMean = mean("InFlightBatchMessageCount")
	out.TopicPartitionsAcquireTimeMsMean = mean("TopicPartitionsAcquireTimeMs")
	return out
}
