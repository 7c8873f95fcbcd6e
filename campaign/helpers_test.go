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

func baseSpec() scenarios.RunSpec {
	return scenarios.RunSpec{
		Partitions: 2, Producers: 1, Rate: 400, MessageSize: 128, KeyMode: "round-robin", Acks: "all",
		Linger: 5 * time.Millisecond, BatchSize: 16384,
		Members: 8, Workers: 1, MaxPollRecords: 50, AcquireMode: "batch_optimized", AckMode: "explicit",
		Processing: scenarios.Processing{Model: "constant", Time: 10 * time.Millisecond},
		Warmup:     2 * time.Second, Duration: 8 * time.Second, DrainTimeout: 60 * time.Second,
		Nodes: 1, KafkaVersion: "4.2.2", BrokerHeap: "768m",
	}
}

func testLog(t *testing.T) io.Writer {
	if testing.Verbose() {
		return os.Stderr
	}
	return io.Discard
}
