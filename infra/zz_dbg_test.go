package infra

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestZZDebug3(t *testing.T) {
	os.RemoveAll("/tmp/dbg3")
	c, err := (&ProcessProvider{}).Start(context.Background(), ClusterSpec{Nodes: 3, WorkDir: "/tmp/dbg3", StartTimeout: 60 * time.Second, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	c.Stop(context.Background())
}
