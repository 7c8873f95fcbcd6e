package campaign

import (
	"testing"

	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// TestProduceOnlyKey: the two arms of a trial share one produce-only
// phase; another trial, rate, partition count, record size or key set
// measures its own.
func TestProduceOnlyKey(t *testing.T) {
	a := baseSpec()
	a.ConsumerType = vocab.ConsumerGroup
	b := a
	b.ConsumerType, b.Members, b.MaxPollRecords = vocab.ShareGroup, a.Members+3, 7
	if produceOnlyKey(a) != produceOnlyKey(b) {
		t.Errorf("arms of one trial: keys %q and %q differ", produceOnlyKey(a), produceOnlyKey(b))
	}
	for i, edit := range []func(s *scenarios.RunSpec){
		func(s *scenarios.RunSpec) { s.Trial++ },
		func(s *scenarios.RunSpec) { s.Rate *= 2 },
		func(s *scenarios.RunSpec) { s.Partitions++ },
		func(s *scenarios.RunSpec) { s.MessageSize++ },
		func(s *scenarios.RunSpec) { s.Keys++ },
	} {
		c := a
		edit(&c)
		if produceOnlyKey(a) == produceOnlyKey(c) {
			t.Errorf("edit %d: key unchanged %q", i, produceOnlyKey(a))
		}
	}
}

// TestRunOneHasNoProduceOnlyPhase: outside a campaign there is no cache,
// so no phase (and no error).
func TestRunOneHasNoProduceOnlyPhase(t *testing.T) {
	s := &runSetup{spec: baseSpec()}
	po, err := s.produceOnly(t.Context())
	if po != nil || err != nil {
		t.Errorf("produceOnly without a campaign = %+v, %v; want nil, nil", po, err)
	}
}
