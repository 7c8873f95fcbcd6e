package campaign

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

// Helpers of both the unit tests (kfake) and the integration tests
// (build tag integration, real brokers).

// baseSpec is a small run built from the scenario defaults, so a knob added
// to scenarios has its default here too and the spec always validates.
func baseSpec() scenarios.RunSpec {
	sc, err := scenarios.LoadBytes("base-spec", []byte(`name: base
consumer_type: consumer
partitions: 2
producers: 1
rate: 400
message_size: 128
members: 8
workers: 1
max_poll_records: 50
processing: {model: constant, time: 10ms}
warmup: 2s
duration: 8s
drain_timeout: 60s
nodes: 1
broker_heap: 768m
`), nil, nil)
	if err != nil {
		panic(err)
	}
	return sc.Runs[0]
}

func testLog(t *testing.T) io.Writer {
	if testing.Verbose() {
		return os.Stderr
	}
	return io.Discard
}

func TestBaseSpecValidates(t *testing.T) {
	s := baseSpec()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Partitions != 2 || s.Members != 8 || s.Rate != 400 || s.Processing.Time != 10*time.Millisecond {
		t.Errorf("baseSpec %+v", s)
	}
}
