//go:build integration && linux

package infra

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/internal/testkit"
)

// The container tests start real Kafka brokers in Docker containers. Where
// no Docker engine answers, or no broker image is usable (neither
// apache/kafka:<version> nor the local image of `make image`), they fail
// saying why under CI=true or SHAREBENCH_REQUIRE_BROKERS=1 (.ci/run starts
// an engine, builds the image and sets the latter) and skip otherwise
// (testkit.NeedDocker); with -short they skip.

func requireDocker(t *testing.T) *testcontainers.DockerClient {
	t.Helper()
	requireKafka(t) // the JMX exporter agent comes from the jar cache
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dc, err := dockerClient(ctx)
	if err == nil {
		if _, err = chooseImage(ctx, dc, "", DefaultKafkaVersion, testkit.Log(t)); err != nil {
			dc.Close()
		}
	}
	testkit.NeedDocker(t, err) // a failure under CI=true or SHAREBENCH_REQUIRE_BROKERS=1
	t.Cleanup(func() { dc.Close() })
	return dc
}

// ours lists the containers and networks carrying label=value.
func ours(t *testing.T, dc *testcontainers.DockerClient, label, value string) (containers, networks []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := client.Filters{}.Add("label", label+"="+value)
	cs, err := dc.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		t.Fatalf("list containers: %v", err)
	}
	for _, c := range cs.Items {
		containers = append(containers, firstOr(c.Names, c.ID))
	}
	ns, err := dc.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		t.Fatalf("list networks: %v", err)
	}
	for _, n := range ns.Items {
		networks = append(networks, n.Name)
	}
	return containers, networks
}

func assertNoneLeft(t *testing.T, dc *testcontainers.DockerClient, label, value string) {
	t.Helper()
	if cs, ns := ours(t, dc, label, value); len(cs)+len(ns) > 0 {
		t.Errorf("left behind with %s=%s: containers %v, networks %v", label, value, cs, ns)
	}
}

// startContainersForTest starts a cluster whose clean-up is registered.
func startContainersForTest(t *testing.T, spec ClusterSpec) (*containerCluster, time.Duration) {
	t.Helper()
	spec.Log = testkit.Log(t)
	began := time.Now()
	c, err := (&ContainerProvider{}).Start(context.Background(), spec)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	elapsed := time.Since(began)
	t.Cleanup(func() { c.Stop(context.Background()) })
	return c.(*containerCluster), elapsed
}

func TestContainerOneNode(t *testing.T) {
	dc := requireDocker(t)
	logDir := t.TempDir()
	c, startTime := startContainersForTest(t, ClusterSpec{Nodes: 1, LogDir: logDir})
	t.Logf("1 node: started in %v on image %s", startTime.Round(time.Millisecond), c.Image())

	if c.Provider() != "container" || !c.IsKafka() || c.Nodes() != 1 || c.KafkaVersion() != DefaultKafkaVersion {
		t.Errorf("identity: %q, IsKafka %v, nodes %d, version %q", c.Provider(), c.IsKafka(), c.Nodes(), c.KafkaVersion())
	}
	if img := c.Image(); img != PublicImage(DefaultKafkaVersion) && img != LocalImage(DefaultKafkaVersion) {
		t.Errorf("image %q: want the public or the local image", img)
	}
	if b := c.Bootstrap(); len(b) != 1 || !strings.HasPrefix(b[0], "127.0.0.1:") {
		t.Errorf("bootstrap %v: want one 127.0.0.1 address", b)
	}
	// The pid is a host pid: /proc shows the broker JVM under it.
	pids := c.PIDs()
	if len(pids) != 1 || pids[0] <= 0 {
		t.Fatalf("PIDs %v: want one host pid", pids)
	}
	if cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pids[0]), "cmdline")); err != nil ||
		!strings.Contains(string(cmdline), "kafka.Kafka") {
		t.Errorf("/proc/%d/cmdline: %v; want the broker JVM (kafka.Kafka), got %q", pids[0], err, cmdline)
	}
	body := fetch(t, c.MetricsURLs()[0])
	if !strings.Contains(body, "kafka_server_") {
		t.Errorf("metrics endpoint %s: no kafka_server_ series (%d bytes)", c.MetricsURLs()[0], len(body))
	}

	rt := checkCluster(t, c, 1)
	t.Logf("1 node: share group consumed its first record in %v", rt.shareConsume.Round(time.Millisecond))

	began := time.Now()
	if err := c.Stop(context.Background()); err != nil {
		t.Fatalf("stop: %v", err)
	}
	t.Logf("1 node: stopped (controlled shutdown) and removed in %v", time.Since(began).Round(time.Millisecond))
	assertNoneLeft(t, dc, labelCluster, c.id)
	log, err := os.ReadFile(filepath.Join(logDir, "broker-1.log"))
	if err != nil || !strings.Contains(string(log), "Kafka Server started") || !strings.Contains(string(log), "shutting down") {
		t.Errorf("broker-1.log: %v; want the broker's start and controlled shutdown; it ends:\n%s", err, log[max(0, len(log)-1500):])
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Errorf("second stop: %v", err)
	}
}

func TestContainerThreeNodes(t *testing.T) {
	dc := requireDocker(t)
	c, startTime := startContainersForTest(t, ClusterSpec{Nodes: 3, StartTimeout: 10 * time.Minute})
	t.Logf("3 nodes: started in %v on image %s", startTime.Round(time.Millisecond), c.Image())
	if got := c.BrokerConfig()["share.coordinator.state.topic.min.isr"]; got != "2" {
		t.Errorf("share coordinator state min ISR %q, want 2 on three nodes", got)
	}
	pids := c.PIDs()
	if len(pids) != 3 || pids[0] == pids[1] || pids[1] == pids[2] || pids[0] <= 0 {
		t.Errorf("PIDs %v: want 3 distinct host pids", pids)
	}
	rt := checkCluster(t, c, 3)
	t.Logf("3 nodes: share group consumed its first record in %v", rt.shareConsume.Round(time.Millisecond))
	began := time.Now()
	if err := c.Stop(context.Background()); err != nil {
		t.Fatalf("stop: %v", err)
	}
	t.Logf("3 nodes: stopped and removed in %v", time.Since(began).Round(time.Millisecond))
	assertNoneLeft(t, dc, labelCluster, c.id)
}

// TestContainerFaults runs every Faults method on a one-node cluster.
func TestContainerFaults(t *testing.T) {
	requireDocker(t)
	c, _ := startContainersForTest(t, ClusterSpec{Nodes: 1})
	var f Faults = c
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordRetries(3), kgo.RequestTimeoutOverhead(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	topic := "faults-" + randomHex(3)
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatalf("create topic: %v", err)
	}
	before := []byte("before the kill " + randomHex(4))
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: before}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}

	t.Run("kill and start", func(t *testing.T) {
		pid := c.PIDs()[0]
		if err := f.KillBroker(ctx, 1); err != nil {
			t.Fatalf("kill: %v", err)
		}
		if processAlive(pid) {
			t.Errorf("broker JVM pid %d alive after KillBroker", pid)
		}
		if !unreachable(c) {
			t.Error("a killed broker still answers")
		}
		began := time.Now()
		if err := f.StartBroker(ctx, 1); err != nil {
			t.Fatalf("start: %v", err)
		}
		t.Logf("broker serves again %v after StartBroker", time.Since(began).Round(time.Millisecond))
		if got := readFirst(ctx, t, c, topic); got != string(before) {
			t.Errorf("after kill and start, the topic's first record is %q, want %q (data kept)", got, before)
		}
	})
	t.Run("restart", func(t *testing.T) {
		if err := f.RestartBroker(ctx, 1); err != nil {
			t.Fatalf("restart: %v", err)
		}
		if got := readFirst(ctx, t, c, topic); got != string(before) {
			t.Errorf("after restart, first record %q, want %q", got, before)
		}
	})
	t.Run("pause and resume", func(t *testing.T) {
		if err := f.PauseBroker(ctx, 1); err != nil {
			t.Fatalf("pause: %v", err)
		}
		if !unreachable(c) {
			t.Error("a paused broker answered a request")
		}
		if err := f.ResumeBroker(ctx, 1); err != nil {
			t.Fatalf("resume: %v", err)
		}
		if err := waitServing(ctx, c.Bootstrap(), allNodes(1), DefaultKafkaVersion, nil); err != nil {
			t.Errorf("after resume: %v", err)
		}
	})
	t.Run("disconnect and reconnect", func(t *testing.T) {
		if err := f.DisconnectBroker(ctx, 1); err != nil {
			t.Fatalf("disconnect: %v", err)
		}
		if !unreachable(c) {
			t.Error("a disconnected broker answered a request")
		}
		if err := f.ReconnectBroker(ctx, 1); err != nil {
			t.Fatalf("reconnect: %v", err)
		}
		if got := readFirst(ctx, t, c, topic); got != string(before) {
			t.Errorf("after reconnect, first record %q, want %q", got, before)
		}
	})
	if err := f.KillBroker(ctx, 9); err == nil {
		t.Error("KillBroker(9) on a one-node cluster: no error")
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Errorf("stop after faults: %v", err)
	}
}

// unreachable reports whether a fresh client gets no answer from the
// cluster within a few seconds.
func unreachable(c Cluster) bool {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.DialTimeout(time.Second))
	if err != nil {
		return false
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return cl.Ping(ctx) != nil
}

// readFirst reads the first record of topic's partition 0.
func fetch(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, %v", url, resp.StatusCode, err)
	}
	return string(b)
}

// TestContainerStartCancelledRemovesEverything cancels Start as soon as the
// first container runs (as Ctrl-C does): Start must fail and leave no
// container or network of this process.
func TestContainerStartCancelledRemovesEverything(t *testing.T) {
	dc := requireDocker(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := cancelOn{t, "container sharebench-", cancel}
	_, err := (&ContainerProvider{}).Start(ctx, ClusterSpec{Nodes: 1, Log: log})
	if err == nil {
		t.Fatal("start with a cancelled context succeeded")
	}
	t.Logf("start error: %v", err)
	assertNoneLeft(t, dc, labelPID, strconv.Itoa(os.Getpid()))
}

// TestContainerRemovesOrphans: what a harness killed with SIGKILL left (a
// network labelled with its pid, now dead) is removed by the next start's
// clean-up; what a live harness owns is kept.
func TestContainerRemovesOrphans(t *testing.T) {
	dc := requireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := strconv.Itoa(dead.Process.Pid)
	orphanLabels := ownLabels("orphan" + randomHex(3))
	orphanLabels[labelPID] = deadPID
	liveLabels := ownLabels("live" + randomHex(3))
	liveLabels[labelPID] = "1" // init: alive
	for _, l := range []map[string]string{orphanLabels, liveLabels} {
		if _, err := dc.NetworkCreate(ctx, "sharebench-test-"+l[labelCluster], client.NetworkCreateOptions{Driver: "bridge", Labels: l}); err != nil {
			t.Fatalf("create network: %v", err)
		}
	}
	t.Cleanup(func() {
		dc.NetworkRemove(context.Background(), "sharebench-test-"+liveLabels[labelCluster], client.NetworkRemoveOptions{})
		dc.NetworkRemove(context.Background(), "sharebench-test-"+orphanLabels[labelCluster], client.NetworkRemoveOptions{})
	})
	if err := removeOrphans(ctx, dc, testkit.Log(t)); err != nil {
		t.Fatalf("removeOrphans: %v", err)
	}
	assertNoneLeft(t, dc, labelCluster, orphanLabels[labelCluster])
	if _, ns := ours(t, dc, labelCluster, liveLabels[labelCluster]); len(ns) != 1 {
		t.Errorf("network of a live harness: %v, want it kept", ns)
	}
}

// Where an engine answers and an image is usable, auto picks the container
// provider with that image.
func TestAutoPicksContainers(t *testing.T) {
	requireDocker(t)
	p, why := chooseProvider(context.Background(), ClusterSpec{})
	cp, ok := p.(*ContainerProvider)
	if !ok || cp.Image == "" || !strings.Contains(why, cp.Image) {
		t.Errorf("auto chose %s (%s); want the container provider with its image named", p.Name(), why)
	}
}

// One code path serves both images: the public apache/kafka image runs as
// an unprivileged user with java only in /opt/java/openjdk. An image shaped
// like that (derived from whichever image is usable here) must run the
// same start script, format its storage and serve.
func TestContainerPublicImageLayout(t *testing.T) {
	requireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	base, err := ContainerImage(ctx, DefaultKafkaVersion)
	if err != nil {
		t.Fatal(err)
	}
	derived := "sharebench-test/public-layout:" + randomHex(3)
	name := "sharebench-test-derive-" + randomHex(3)
	// Keep java off PATH and only under /opt/java/openjdk; run as uid 1000.
	script := `set -e
if [ -x /opt/java/openjdk/bin/java ]; then exit 0; fi
j=$(readlink -f "$(command -v java)"); mkdir -p /opt/java
mv "$(dirname "$(dirname "$j")")" /opt/java/openjdk
rm -f "$(command -v java)"`
	for _, args := range [][]string{
		{"run", "--name", name, "--user", "0", "--entrypoint", "/bin/sh", base, "-c", script},
		{"commit", "-c", "USER 1000", "-c", `ENTRYPOINT []`, name, derived},
		{"rm", name},
	} {
		if out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput(); err != nil {
			exec.Command("docker", "rm", "-f", name).Run()
			t.Fatalf("docker %s: %v\n%s", args[0], err, out)
		}
	}
	t.Cleanup(func() { exec.Command("docker", "rmi", derived).Run() })

	c, err := (&ContainerProvider{Image: derived}).Start(ctx, ClusterSpec{Nodes: 1, Log: testkit.Log(t)})
	if err != nil {
		t.Fatalf("start on %s: %v", derived, err)
	}
	defer c.Stop(context.Background())
	if ImageOf(c) != derived {
		t.Errorf("image %q, want %q", ImageOf(c), derived)
	}
	cc := c.(*containerCluster)
	res, err := cc.dc.ContainerInspect(ctx, cc.nodes[0].containerID, client.ContainerInspectOptions{})
	if err != nil || res.Container.Config == nil || res.Container.Config.User != "1000" {
		t.Errorf("broker container user: %v; want the image's unprivileged user 1000", err)
	}
	checkCluster(t, c, 1)
	if err := c.Stop(context.Background()); err != nil {
		t.Errorf("stop: %v", err)
	}
}
