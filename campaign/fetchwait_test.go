package campaign

import (
	"fmt"
	"testing"
	"time"

	"github.com/sharebench/sharebench/scenarios"
)

func TestLayoutCountsBrokersAndBusyOnes(t *testing.T) {
	leaders := map[int32]int32{0: 1, 1: 2, 2: 3}
	busy := []bool{false, true, false}
	for _, tc := range []struct {
		name    string
		members map[string][]int32
		want    string
	}{
		{"one member on 3 brokers", map[string][]int32{"a": {0, 1, 2}}, "[{3 1}]"},
		{"busy partition alone", map[string][]int32{"a": {0, 2}, "b": {1}}, "[{2 0} {1 1}]"},
		{"busy partition with another", map[string][]int32{"a": {0, 1}, "b": {2}}, "[{2 1} {1 0}]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(layout(tc.members, leaders, busy)); got != tc.want {
				t.Errorf("layout = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestEffectiveFetchMaxWait(t *testing.T) {
	for _, tc := range []struct {
		s    scenarios.RunSpec
		want time.Duration
	}{
		{scenarios.RunSpec{}, 5 * time.Second},
		{scenarios.RunSpec{Client: "java"}, 500 * time.Millisecond},
		{scenarios.RunSpec{Client: "java", Fetch: scenarios.Fetch{FetchMaxWait: 100 * time.Millisecond}}, 100 * time.Millisecond},
	} {
		if got := effectiveFetchMaxWait(tc.s); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.s.Client, got, tc.want)
		}
	}
}
