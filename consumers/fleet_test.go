package consumers

import (
	"testing"
	"time"
)

func TestSlowDownScales(t *testing.T) {
	var s slowState
	s.set(3, 1000)
	for _, tc := range []struct {
		now  int64
		want time.Duration
	}{{999, 30 * time.Millisecond}, {1000, 10 * time.Millisecond}} {
		if got := s.scale(10*time.Millisecond, tc.now); got != tc.want {
			t.Errorf("scale at %d: %v, want %v", tc.now, got, tc.want)
		}
	}
	if got := (*slowState)(nil).scale(time.Second, 0); got != time.Second {
		t.Errorf("nil slowState scaled to %v", got)
	}
}
