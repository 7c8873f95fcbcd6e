package infra

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestZZDebug3(t *testing.T) {
	os.RemoveAll("/tmp/dbg3")
	ctx := context.Background()
	spec, _ := ClusterSpec{Nodes: 3, WorkDir: "/tmp/dbg3", Log: testLog{t}}.withDefaults()
	cfg, _ := EffectiveBrokerConfig(3, nil)
	java, _ := FindJava(ctx)
	jars, _ := ResolveJars(ctx, spec.KafkaVersion, nil)
	c := &processCluster{spec: spec, cfg: cfg}
	defer c.Stop(ctx)
	if err := c.layout(); err != nil {
		t.Fatal(err)
	}
	if err := c.format(ctx, java, jars); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	for _, n := range c.nodes {
		c.launch(n, java, jars)
	}
	var cls []*kgo.Client
	for _, a := range c.Bootstrap() {
		cl, _ := kgo.NewClient(kgo.SeedBrokers(a))
		defer cl.Close()
		cls = append(cls, cl)
	}
	for time.Since(began) < 60*time.Second {
		line := ""
		for i, cl := range cls {
			req := kmsg.NewPtrMetadataRequest()
			req.Topics = []kmsg.MetadataRequestTopic{}
			rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			resp, err := req.RequestWith(rctx, cl.SeedBrokers()[0])
			cancel()
			if err != nil {
				line += " b" + string(rune('1'+i)) + ":err"
				continue
			}
			ids := ""
			for _, b := range resp.Brokers {
				ids += string(rune('0' + b.NodeID))
			}
			line += " b" + string(rune('1'+i)) + ":[" + ids + "] ctl=" + string(rune('0'+resp.ControllerID))
		}
		t.Logf("%5.1fs %s", time.Since(began).Seconds(), line)
		time.Sleep(2 * time.Second)
	}
}
