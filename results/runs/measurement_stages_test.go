package runs

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// stageMeasurements are measurements that fill most of a record's blocks:
// a share rate run whose drain outlasted its window (a burst), with a
// destination, client stats and the formed layout; the same run with a
// join; a backlog drain of a consumer group.
func stageMeasurements() map[string]Measurement {
	h := func(vals ...int64) *hdrhistogram.Histogram {
		x := hdrhistogram.New(1, 3_600_000_000, 3)
		for _, v := range vals {
			_ = x.RecordValue(v)
		}
		return x
	}
	s := scenarios.RunSpec{ConsumerType: vocab.ShareGroup, Fleet: scenarios.Fleet{Members: 6, Workers: 2}, Partitions: 4,
		Producer: scenarios.Producer{Rate: 5000}, Phases: scenarios.Phases{Duration: 2 * time.Second, Warmup: time.Second},
		Processing: scenarios.Processing{Model: "constant", Time: 3 * time.Millisecond}}
	s.MaxPollRecords, s.AcquireMode = 300, vocab.AcquireRecordLimit
	s.Destination = &scenarios.Destination{Kind: "postgres", Pool: 2, Connections: 5, BatchSize: 10}
	s.BrokerConfig = map[string]string{scenarios.KeyRecordLocks: "200"}
	series := results.NewSeries(1e9, 10)
	m := results.NewRecorder(results.NewClock(), 1, results.NewLedger(1, 300), series).Merge()
	m.AckedWindow, m.CompletedInWindow, m.Polls, m.EmptyPolls, m.Acked, m.Completed = 2000, 1500, 10, 4, 9000, 8000
	m.Hold, m.PollSize, m.Completion = h(4000, 9000, 20000), h(10, 50, 300), h(1000, 5000, 90000)
	m.DestinationWrite, m.DestinationWrites, m.DestinationConnNanos = h(2000, 3000, 8000), 100, 300e6
	m.PerMember = []int64{800, 700}
	burst := Measurement{Spec: s, RunID: "r01", Window: results.Window{Start: 3e9, End: 5e9}, Series: series, Merged: m,
		Audit: results.Audit{Produced: 300, CompletedOnce: 300, Balanced: true}, DrainSec: 7, FormationSec: 1.25,
		FormationRounds: 2, LastEvent: 9e9, HasSpan: true, LoadStart: 2e9, StartedAt: time.Unix(1, 0),
		Destination:  &DestinationInput{Server: "x", Table: "t"},
		ClientStats:  &ClientHistograms{Buffered: h(100, 40000), PerAcquisition: h(40, 120), PerResponse: h(3, 9)},
		PerPartition: []int{3, 1, 1, 1}, Lag: results.LagSummary{Samples: 3, AtWindowEnd: 500},
		Checks: ValidityInput{IsKafka: true}, Errors: []string{"e"}}
	join := burst
	join.Spec.Events = []scenarios.Event{{At: time.Second, Action: scenarios.ActionJoin, Members: 2}}
	join.DrainSec = 0.5
	backlog := burst
	backlog.Spec.ConsumerType, backlog.Spec.LoadMode, backlog.Spec.Destination = vocab.ConsumerGroup, scenarios.LoadBacklog, nil
	backlog.Destination, backlog.FillSec = nil, 3
	return map[string]Measurement{"burst": burst, "join": join, "backlog": backlog}
}

// Each stage of FromMeasurement writes only its own blocks, and each
// block comes from one stage: run alone on an empty record, a stage sets
// nothing but its blocks, each equal to the finished record's (no later
// stage overwrote it); the stages that read the record do not change it;
// and the stages together cover every field FromMeasurement sets.
func TestFromMeasurementStagesWriteTheirBlocksOnce(t *testing.T) {
	stages := []struct {
		name   string
		blocks []string
		run    func(in Measurement, r Record) Record
	}{
		{"context", []string{"SchemaVersion", "RunID", "ConsumerType", "Spec", "StartedAt", "Client", "TopicConfig", "GroupConfig",
			"Group", "Environment", "Broker", "Stall", "Shards", "Settle", "Resources", "Errors"},
			func(in Measurement, _ Record) Record { return recordContext(in) }},
		{"throughput", []string{"Phases", "Throughput", "Lag", "BrokerCost"}, func(in Measurement, _ Record) (o Record) {
			o.Phases, o.Throughput, o.Lag, o.BrokerCost = throughputStage(in)
			return o
		}},
		{"outcomes", []string{"Outcomes", "Audit", "PerMember"}, func(in Measurement, _ Record) (o Record) {
			o.Outcomes, o.Audit, o.PerMember = outcomesStage(in)
			return o
		}},
		{"events", []string{"Events", "EventSummary", "Members", "Autoscale"}, func(in Measurement, _ Record) (o Record) {
			o.Events, o.EventSummary, o.Members, o.Autoscale = eventsStage(in)
			return o
		}},
		{"latency", []string{"Latency", "Polls", "Destination", "Requests"}, func(in Measurement, _ Record) (o Record) {
			o.Latency, o.Polls, o.Destination, o.Requests = latencyStage(in)
			return o
		}},
		{"ceiling", []string{"Ceiling", "Burst"}, func(in Measurement, r Record) (o Record) {
			o.Ceiling, o.Burst = ceilingStage(in, r)
			return o
		}},
		{"validity", []string{"Validity"}, func(in Measurement, r Record) (o Record) {
			o.Validity = validityStage(in, r)
			return o
		}},
	}
	owner := map[string]string{}
	for _, st := range stages {
		for _, b := range st.blocks {
			if prev, ok := owner[b]; ok {
				t.Errorf("%s is written by %s and %s", b, prev, st.name)
			}
			owner[b] = st.name
		}
	}
	typ := reflect.TypeFor[Record]()
	for name, in := range stageMeasurements() {
		full := FromMeasurement(in)
		fv := reflect.ValueOf(full)
		for i := range typ.NumField() {
			if f := typ.Field(i); !fv.Field(i).IsZero() && owner[f.Name] == "" {
				t.Errorf("%s: FromMeasurement set %s, which no stage declares", name, f.Name)
			}
		}
		for _, st := range stages {
			r := FromMeasurement(in)
			ov := reflect.ValueOf(st.run(in, r))
			if !reflect.DeepEqual(r, full) {
				t.Errorf("%s: stage %s changed the record it read", name, st.name)
			}
			for i := range typ.NumField() {
				f := typ.Field(i)
				switch mine := slices.Contains(st.blocks, f.Name); {
				case !mine && !ov.Field(i).IsZero():
					t.Errorf("%s: stage %s wrote %s, not its block", name, st.name, f.Name)
				case mine && !reflect.DeepEqual(ov.Field(i).Interface(), fv.Field(i).Interface()):
					t.Errorf("%s: the record's %s is not stage %s's: a later stage overwrote it", name, f.Name, st.name)
				}
			}
		}
	}
}

// A run whose scaler changes its members still has its destination's
// capacity in the ceiling (the record once kept the ceiling computed
// before the destination's write times were read); joins and a scaler
// keep the predicted layout and leave the client's histograms out.
func TestCeilingInputOfChangingMembers(t *testing.T) {
	in := stageMeasurements()["burst"]
	in.Spec.Autoscale = &scenarios.Autoscale{Signal: "lag", Threshold: 100, Min: 1, Max: 12, Step: 1}
	in.Scaler = &ScalerLog{Start: 6, MaxReplicas: 12}
	r := FromMeasurement(in)
	if r.Ceiling.Destination <= 0 {
		t.Errorf("autoscale with a destination: ceiling %+v, want its destination capacity", r.Ceiling)
	}
	ci := in.CeilingInput(r)
	if ci.Members != 12 || ci.ConsumersPerPartition != nil || ci.BufferedMs != 0 || ci.RecordsPerAcquisition != r.Polls.RecordsPerPoll.P90 {
		t.Errorf("autoscale: %+v, want 12 members, the predicted layout, no client histograms", ci)
	}
	if ci := stageMeasurements()["burst"].CeilingInput(r); !slices.Equal(ci.ConsumersPerPartition, []int{3, 1, 1, 1}) ||
		ci.RecordsPerAcquisition != r.Polls.RecordsPerAcquisition.P90 || ci.BufferedMs != r.Latency.BufferedMs.P50 {
		t.Errorf("steady members: %+v, want the formed layout and the client's acquisitions and wait", ci)
	}
}

// The measured gap between a member's batches reaches the destination's
// duty in blocking style only: gaps of 4 and 6 ms are a 5 ms mean, beside
// the mean records per poll and the destination's batch size; a
// continuous member has no batches, so no gap counts.
func TestCeilingInputCarriesTheBatchGap(t *testing.T) {
	in := stageMeasurements()["burst"]
	in.Merged.PollGap = results.NewLatencyHistogram()
	for _, us := range []int64{4000, 6000} {
		_ = in.Merged.PollGap.RecordValue(us)
	}
	r := FromMeasurement(in)
	ci := in.CeilingInput(r)
	if math.Abs(r.Polls.GapMs.Mean-5) > 0.01 || ci.PollGapMs != r.Polls.GapMs.Mean || ci.RecordsPerPoll != r.Polls.RecordsPerPoll.Mean || ci.DestinationBatchSize != 10 {
		t.Errorf("blocking: gap mean %.3f ms, input %+v; want a 5 ms gap, the mean records per poll and batch 10", r.Polls.GapMs.Mean, ci)
	}
	in.Spec.Style = vocab.StyleContinuous
	if ci := in.CeilingInput(r); ci.PollGapMs != 0 || ci.RecordsPerPoll != 0 {
		t.Errorf("continuous: %+v, want no gap", ci)
	}
}

// Before a run the ceiling input is the spec's: a backlog is not bounded
// by a producer rate, batch_optimized and the record lock are the spec's.
func TestPlannedCeilingInput(t *testing.T) {
	s := stageMeasurements()["burst"].Spec
	s.AcquireMode = vocab.AcquireBatchOptimized
	c := PlannedCeilingInput(s)
	if !c.Share || !c.BatchOptimized || c.LockDurationMs <= 0 || c.ProducerRate != 5000 || c.RecordsPerAcquisition <= 0 ||
		c.DestinationPool != 2 || c.DestinationConnections != 5 || c.DestinationWriteMs != 0 {
		t.Errorf("share rate run: %+v", c)
	}
	s.LoadMode, s.Renew = scenarios.LoadBacklog, vocab.RenewAuto
	if c := PlannedCeilingInput(s); !math.IsInf(c.ProducerRate, 1) || c.LockDurationMs != 0 {
		t.Errorf("backlog with renew auto: %+v, want no producer bound and no lock expiry", c)
	}
}
