package infra

import (
	"testing"
	"time"
)

func TestSpecDefaults(t *testing.T) {
	s, err := ClusterSpec{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if s.Nodes != 1 || s.Heap != "1g" || s.KafkaVersion != DefaultKafkaVersion || s.StartTimeout != 5*time.Minute {
		t.Errorf("defaults: %+v", s)
	}
	s, err = ClusterSpec{Nodes: 3}.withDefaults()
	if err != nil || s.Heap != "512m" {
		t.Errorf("3-node heap %q, %v; want 512m", s.Heap, err)
	}
	s, err = ClusterSpec{Nodes: 3, Heap: "2g"}.withDefaults()
	if err != nil || s.Heap != "2g" {
		t.Errorf("explicit heap %q, %v; want 2g", s.Heap, err)
	}
	user := map[string]string{"a": "1"}
	s, _ = ClusterSpec{BrokerConfig: user}.withDefaults()
	s.BrokerConfig["a"] = "2"
	if user["a"] != "1" {
		t.Error("withDefaults shares the caller's BrokerConfig map")
	}
	for _, bad := range []ClusterSpec{
		{Nodes: -1}, {Heap: "1 g"}, {Heap: "0"}, {Heap: "-Xmx1g"}, {KafkaVersion: "4.2"}, {StartTimeout: -time.Second},
	} {
		if _, err := bad.withDefaults(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
