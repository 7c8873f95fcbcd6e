package campaign

import (
	"testing"
)

// --jit-warmup=false (Options.NoJITWarmup) still creates the internal
// topics and coordinators but skips the warm-up under load, and the
// priming record says so: jit_warmup false, nothing produced. On the kfake
// cluster (not Kafka).
func TestPrimeWithoutJITWarmupIsRecorded(t *testing.T) {
	ctx, cl := startKfake(t)
	p, err := primeCluster(ctx, cl.Bootstrap(), cl.Nodes(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.JITWarmup || p.RecordsProduced != 0 || p.ConsumedConsumerGroup != 0 || p.ConsumedShareGroup != 0 || p.DurationSec != 0 {
		t.Errorf("priming %+v: want jit_warmup false and no warm-up figures", p)
	}
}
