package scenarios

import (
	"testing"
	"time"

	"github.com/sharebench/sharebench/vocab"
)

// Both clients get the same fetch.max.wait (Kafka's 500 ms unless set); a
// knob the Java client lacks (prefetch on/off) is refused for it, naming
// the file, line and key; fetch_max_wait outside franz-go's range is
// refused.
func TestClientKnobs(t *testing.T) {
	s := mustLoad(t, "name: x\nclient: [franz-go, java]\n", nil, nil)
	for _, r := range s.Runs {
		if r.FetchMaxWait != 500*time.Millisecond || r.EffectiveFetchMaxWait() != 500*time.Millisecond {
			t.Errorf("%s: fetch_max_wait %v, want the default 500ms", r.Client, r.FetchMaxWait)
		}
	}
	if (RunSpec{}).EffectiveFetchMaxWait() != DefaultFetchMaxWait {
		t.Error("an unset fetch_max_wait must be the default")
	}
	s = mustLoad(t, "name: x\nclient: [franz-go, java]\nfetch_max_wait: 100ms\n", nil, nil)
	clients := map[vocab.Client]bool{}
	for _, r := range s.Runs {
		clients[r.Client] = true
		if r.EffectiveFetchMaxWait() != 100*time.Millisecond {
			t.Errorf("%s %s: fetch_max_wait %v, want 100ms", r.Client, r.ConsumerType, r.EffectiveFetchMaxWait())
		}
	}
	if !clients[vocab.ClientJava] || !clients[vocab.ClientFranzGo] {
		t.Errorf("clients %v, want both", clients)
	}
	mustLoad(t, "name: x\nclient: java\nprefetch: auto\n", nil, nil)
	mustLoad(t, "name: x\nclient: franz-go\nprefetch: off\n", nil, nil)
	for _, tt := range []struct{ name, yaml, want string }{
		{"java prefetch on", "name: x\nclient: java\nprefetch: on\n",
			"scenario.yaml:3: prefetch: client java has no prefetch setting"},
		{"java prefetch off in a sweep", "name: x\nclient: [franz-go, java]\nprefetch: off\n",
			"(client=java, consumer_type=share): prefetch: client java has no prefetch setting"},
		{"fetch_max_wait below franz-go's minimum", "name: x\nfetch_max_wait: 5ms\n",
			"scenario.yaml:2: fetch_max_wait: must be between 10ms (franz-go's minimum) and 30s, got 5ms"},
		{"fetch_max_wait above the request timeout", "name: x\nfetch_max_wait: 31s\n",
			"fetch_max_wait: must be between 10ms (franz-go's minimum) and 30s, got 31s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml, nil, nil)
			wantErr(t, err, tt.want)
		})
	}
}
