package campaign

import (
	"strings"
	"testing"

	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// A sharded run on a client runner needs agents that can run it: local
// agents (this host's JDK, python3 and cache) can, Kubernetes agents (an
// image with the sharebench binary only) cannot, and the refusal names
// the client, the launcher and what is missing.
func TestRunnerAgents(t *testing.T) {
	spec := func(c vocab.Client) scenarios.RunSpec {
		s := scenarios.RunSpec{Shards: 2}
		s.Client = c
		return s
	}
	for _, c := range []vocab.Client{vocab.ClientFranzGo, vocab.ClientJava, vocab.ClientLibrdkafka} {
		if err := runnerAgents(spec(c), "local"); err != nil {
			t.Errorf("client %s, local agents: %v", c, err)
		}
	}
	if err := runnerAgents(spec(vocab.ClientFranzGo), "k8s"); err != nil {
		t.Errorf("client franz-go, k8s agents: %v", err)
	}
	for c, want := range map[vocab.Client]string{
		vocab.ClientJava:       "shards 2 with client java: agents launched by k8s have no JDK or Maven for the Java runner",
		vocab.ClientLibrdkafka: "shards 2 with client librdkafka: agents launched by k8s have no python3 (with venv) to install confluent-kafka",
	} {
		if err := runnerAgents(spec(c), "k8s"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("client %s, k8s agents: %v, want %q", c, err, want)
		}
	}
}
