package infra

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// parseProperties reads what renderProperties writes (the subset of
// java.util.Properties syntax it uses).
func parseProperties(t *testing.T, b []byte) map[string]string {
	t.Helper()
	props := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		var key, val strings.Builder
		cur, inKey := &key, true
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case c == '\\' && i+1 < len(line):
				i++
				switch line[i] {
				case 'n':
					cur.WriteByte('\n')
				case 't':
					cur.WriteByte('\t')
				case 'r':
					cur.WriteByte('\r')
				default:
					cur.WriteByte(line[i])
				}
			case c == '=' && inKey:
				cur, inKey = &val, false
			default:
				cur.WriteByte(c)
			}
		}
		if inKey {
			t.Fatalf("line %q has no '='", line)
		}
		if _, dup := props[key.String()]; dup {
			t.Fatalf("key %q written twice", key.String())
		}
		props[key.String()] = val.String()
	}
	return props
}

func threeNodes() []nodeAddr {
	return []nodeAddr{{ID: 1, BrokerPort: 9001, ControllerPort: 9101}, {ID: 2, BrokerPort: 9002, ControllerPort: 9102}, {ID: 3, BrokerPort: 9003, ControllerPort: 9103}}
}

func TestServerPropertiesOneNode(t *testing.T) {
	nodes := []nodeAddr{{ID: 1, BrokerPort: 40001, ControllerPort: 40002}}
	cfg, err := EffectiveBrokerConfig(1, map[string]string{"num.partitions": "4"})
	if err != nil {
		t.Fatal(err)
	}
	got := parseProperties(t, renderProperties(serverProperties(processLayout(nodes[0], nodes, "/data/b1"), cfg)))
	want := map[string]string{
		"process.roles":                                    "broker,controller",
		"node.id":                                          "1",
		"controller.quorum.voters":                         "1@127.0.0.1:40002",
		"listeners":                                        "PLAINTEXT://127.0.0.1:40001,CONTROLLER://127.0.0.1:40002",
		"advertised.listeners":                             "PLAINTEXT://127.0.0.1:40001,CONTROLLER://127.0.0.1:40002",
		"controller.listener.names":                        "CONTROLLER",
		"inter.broker.listener.name":                       "PLAINTEXT",
		"listener.security.protocol.map":                   "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"log.dirs":                                         "/data/b1",
		"group.initial.rebalance.delay.ms":                 "0",
		"offsets.topic.replication.factor":                 "1",
		"transaction.state.log.replication.factor":         "1",
		"transaction.state.log.min.isr":                    "1",
		"share.coordinator.state.topic.replication.factor": "1",
		"share.coordinator.state.topic.min.isr":            "1",
		"num.partitions":                                   "4", // the user's, over the default 1
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["controller.quorum.bootstrap.servers"]; ok {
		t.Error("both static voters and bootstrap servers set; KRaft accepts only one")
	}
}

func TestServerPropertiesThreeNodes(t *testing.T) {
	nodes := threeNodes()
	cfg, err := EffectiveBrokerConfig(3, map[string]string{"transaction.state.log.min.isr": "1"})
	if err != nil {
		t.Fatal(err)
	}
	voters := "1@127.0.0.1:9101,2@127.0.0.1:9102,3@127.0.0.1:9103"
	for _, n := range nodes {
		got := parseProperties(t, renderProperties(serverProperties(processLayout(n, nodes, "/d"), cfg)))
		want := map[string]string{
			"node.id":                                          fmt.Sprint(n.ID),
			"controller.quorum.voters":                         voters,
			"listeners":                                        fmt.Sprintf("PLAINTEXT://127.0.0.1:900%d,CONTROLLER://127.0.0.1:910%d", n.ID, n.ID),
			"offsets.topic.replication.factor":                 "3",
			"transaction.state.log.replication.factor":         "3",
			"transaction.state.log.min.isr":                    "1", // user override
			"share.coordinator.state.topic.replication.factor": "3",
			"share.coordinator.state.topic.min.isr":            "2",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("node %d: %s = %q, want %q", n.ID, k, got[k], v)
			}
		}
	}
}

func TestRenderPropertiesEscapesAndSorts(t *testing.T) {
	in := map[string]string{
		"b":          `C:\kafka\data`,
		"a key=odd:": "line1\nline2",
		"c":          " leading space",
	}
	out := renderProperties(in)
	if got := parseProperties(t, out); len(got) != len(in) {
		t.Fatalf("round trip: got %d keys %q, want %d", len(got), got, len(in))
	} else {
		for k, v := range in {
			if got[k] != v {
				t.Errorf("round trip %q: got %q, want %q", k, got[k], v)
			}
		}
	}
	if !bytes.Contains(out, []byte(`c=\ leading space`)) {
		t.Errorf("leading space of a value not escaped:\n%s", out)
	}
	ia, ib := bytes.Index(out, []byte("a\\ key")), bytes.Index(out, []byte("b="))
	if ia < 0 || ib < 0 || ia > ib {
		t.Errorf("keys not sorted or not escaped:\n%s", out)
	}
}

// The container provider's layout: clients get the published 127.0.0.1
// port, brokers and controllers talk by network alias on their own
// listeners, and every node binds all interfaces inside its container.
func TestServerPropertiesContainers(t *testing.T) {
	c := &containerCluster{nodes: []*ctrNode{{id: 1, clientPort: 41001}, {id: 2, clientPort: 41002}, {id: 3, clientPort: 41003}}}
	cfg, err := EffectiveBrokerConfig(3, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := parseProperties(t, renderProperties(serverProperties(c.containerLayout(c.nodes[1]), cfg)))
	want := map[string]string{
		"node.id":                               "2",
		"controller.quorum.voters":              "1@broker-1:9093,2@broker-2:9093,3@broker-3:9093",
		"listeners":                             "CLIENT://0.0.0.0:9092,INTERNAL://0.0.0.0:19092,CONTROLLER://0.0.0.0:9093",
		"advertised.listeners":                  "CLIENT://127.0.0.1:41002,INTERNAL://broker-2:19092,CONTROLLER://broker-2:9093",
		"listener.security.protocol.map":        "CLIENT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"controller.listener.names":             "CONTROLLER",
		"inter.broker.listener.name":            "INTERNAL",
		"log.dirs":                              ctrDataDir,
		"share.coordinator.state.topic.min.isr": "2",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
