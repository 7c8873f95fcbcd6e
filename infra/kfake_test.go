package infra

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestKfakeProviderServesShareGroups(t *testing.T) {
	p, err := NewProvider("kfake")
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Start(context.Background(), ClusterSpec{Nodes: 3, BrokerConfig: map[string]string{"group.share.delivery.count.limit": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop(context.Background())
	if c.Provider() != "kfake" || c.IsKafka() || c.KafkaVersion() != "kfake (not Kafka)" {
		t.Errorf("identity: provider %q, IsKafka %v, version %q; want kfake, false, \"kfake (not Kafka)\"", c.Provider(), c.IsKafka(), c.KafkaVersion())
	}
	if got := len(c.Bootstrap()); got != 3 || c.Nodes() != 3 {
		t.Errorf("%d bootstrap addresses, Nodes() = %d; want 3 and 3", got, c.Nodes())
	}
	if got := c.BrokerConfig()["group.share.delivery.count.limit"]; got != "3" {
		t.Errorf("BrokerConfig lost the user key: %q", got)
	}
	if len(c.PIDs()) != 0 || c.LogDir() != "" {
		t.Errorf("in-process cluster reports PIDs %v, log dir %q", c.PIDs(), c.LogDir())
	}
	checkCluster(t, c, 3)
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

func TestNewProviderNames(t *testing.T) {
	for name, want := range map[string]string{"": "auto", "auto": "auto", "process": "process", "container": "container", "kfake": "kfake"} {
		p, err := NewProvider(name)
		if err != nil || p.Name() != want {
			t.Errorf("NewProvider(%q) = %v, %v; want provider %q", name, p, err, want)
		}
	}
	if _, err := NewProvider("docker"); err == nil {
		t.Error("NewProvider(docker) accepted")
	}
}

func TestFaultsOfKfakeUnsupported(t *testing.T) {
	c, err := KfakeProvider{}.Start(context.Background(), ClusterSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop(context.Background())
	_, err = FaultsOf(c)
	if !errors.Is(err, ErrFaultUnsupported) || !strings.Contains(err.Error(), `"kfake"`) {
		t.Errorf("FaultsOf(kfake): %v, want ErrFaultUnsupported naming the provider", err)
	}
}
