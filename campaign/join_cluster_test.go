package campaign

import (
	"reflect"
	"testing"

	"github.com/sharebench/sharebench/scenarios"
)

// A joined scenario's runs share a cluster by ClusterKey across parts: the
// parts with the same broker settings run on one cluster (in part order),
// a part with other settings gets a cluster of its own after them.
func TestGroupByClusterAcrossJoinedParts(t *testing.T) {
	sc, err := scenarios.Join("j", []scenarios.LabelledScenario{
		{Label: "a", Name: "a", YAML: []byte("name: a\n")},
		{Label: "b", Name: "b", YAML: []byte("name: b\nbroker_config: {group.share.partition.max.record.locks: 100}\n")},
		{Label: "c", Name: "c", YAML: []byte("name: c\nconsumer_type: share\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := groupByCluster(sc.Runs)
	want := [][]int{{0, 1, 4}, {2, 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}
