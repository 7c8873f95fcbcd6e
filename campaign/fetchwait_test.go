package campaign

import (
	"fmt"
	"testing"
	"time"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

func TestLayoutCountsBrokersAndBusyOnes(t *testing.T) {
	leaders := map[int32]int32{0: 1, 1: 2, 2: 3, 3: 3}
	shares := []float64{0, 0.9, 0, 0.1}
	for _, tc := range []struct {
		name    string
		members map[string][]int32
		want    string
	}{
		// brokers in id order: 1, 2, 3 (partitions 2 and 3 both on 3)
		{"one member on 3 brokers", map[string][]int32{"a": {0, 1, 2, 3}}, "[{3 2 [0 0.9 0.1]}]"},
		{"busy partition alone", map[string][]int32{"a": {0, 2}, "b": {1, 3}}, "[{2 0 [0 0]} {2 2 [0.9 0.1]}]"},
		{"busy partition with another", map[string][]int32{"a": {0, 1}, "b": {2}}, "[{2 1 [0 0.9]} {1 0 [0]}]"},
		// a share partition held by two members: each takes half its records
		{"a partition held twice", map[string][]int32{"a": {1}, "b": {1, 3}}, "[{1 1 [0.45]} {2 2 [0.45 0.1]}]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(layout(tc.members, leaders, shares)); got != tc.want {
				t.Errorf("layout = %s, want %s", got, tc.want)
			}
		})
	}
}

// Both clients are given the same fetch.max.wait: fetch_max_wait, else
// Kafka's 500 ms (not franz-go's consumer-group 5 s), and the fetch-wait
// bound is computed with it.
func TestEffectiveFetchMaxWait(t *testing.T) {
	for _, tc := range []struct {
		s    scenarios.RunSpec
		want time.Duration
	}{
		{scenarios.RunSpec{}, 500 * time.Millisecond},
		{scenarios.RunSpec{Client: "java"}, 500 * time.Millisecond},
		{scenarios.RunSpec{Client: "franz-go", Fetch: scenarios.Fetch{FetchMaxWait: 100 * time.Millisecond}}, 100 * time.Millisecond},
		{scenarios.RunSpec{Client: "java", Fetch: scenarios.Fetch{FetchMaxWait: 100 * time.Millisecond}}, 100 * time.Millisecond},
	} {
		if got := consumerConfig(tc.s, nil, "t", "g").Fetch.MaxWait; got != tc.want {
			t.Errorf("%s %v: consumer fetch max wait %v, want %v", tc.s.Client, tc.s.FetchMaxWait, got, tc.want)
		}
		in := fetchWaitInput(tc.s, []runs.MemberBrokers{{Brokers: 3, Busy: 1}})
		if in == nil || in.MaxWaitMs != float64(tc.want)/1e6 {
			t.Errorf("%s %v: fetch-wait bound input %+v, want max wait %v", tc.s.Client, tc.s.FetchMaxWait, in, tc.want)
		}
	}
}
