package campaign

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
)

// kafka is the real 1-node Kafka cluster shared by this package's
// integration tests; nil under -short or when Java/Maven are missing.
var (
	kafka     infra.Cluster
	kafkaSkip string
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := func() int {
		if testing.Short() {
			kafkaSkip = "-short: real-broker tests skipped"
			return m.Run()
		}
		for _, tool := range []string{"java", "mvn"} {
			if _, err := exec.LookPath(tool); err != nil {
				kafkaSkip = fmt.Sprintf("%s not on PATH: real-broker tests skipped (.ci/run installs it)", tool)
				fmt.Fprintln(os.Stderr, kafkaSkip)
				return m.Run()
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		p, _ := infra.NewProvider("process")
		cl, err := p.Start(ctx, infra.ClusterSpec{Nodes: 1, Heap: "768m", Log: os.Stderr})
		if err != nil {
			fmt.Fprintln(os.Stderr, "start Kafka for the integration tests:", err)
			return 1
		}
		kafka = cl
		if err := primeCluster(ctx, cl.Bootstrap(), cl.Nodes()); err != nil {
			fmt.Fprintln(os.Stderr, "prime Kafka:", err)
			_ = cl.Stop(context.Background())
			return 1
		}
		code := m.Run()
		pids := cl.PIDs() // the running brokers: after Stop there are none to list
		if err := cl.Stop(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "stop Kafka:", err)
			return 1
		}
		for _, pid := range pids {
			if syscall.Kill(pid, 0) == nil {
				fmt.Fprintf(os.Stderr, "broker JVM %d still running after Stop\n", pid)
				return 1
			}
		}
		return code
	}()
	os.Exit(code)
}

func needKafka(t *testing.T) infra.Cluster {
	t.Helper()
	if kafka == nil {
		t.Skip(kafkaSkip)
	}
	return kafka
}
