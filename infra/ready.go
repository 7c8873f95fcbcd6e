package infra

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/internal/retry"
)

// brokerExitError is a broker JVM that exited while the cluster started.
type brokerExitError struct {
	ID        int
	Err       error  // the process's exit status
	Log       string // its log file
	FirstErr  string // the first ERROR entry of the log, if any
	Tail      string // the end of its log
	PortClash bool   // the log says a port was taken
}

func newBrokerExitError(b *broker) *brokerExitError {
	e := &brokerExitError{ID: b.addr.ID, Err: b.proc.err, Log: b.logPath, Tail: fileTail(b.logPath, logTailBytes)}
	// The cause is usually far above the tail, before the shutdown noise.
	text := fileTail(b.logPath, 1<<20)
	e.FirstErr = firstLogError(text)
	e.PortClash = strings.Contains(text, "Address already in use")
	return e
}

func (e *brokerExitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "broker %d: exited during start-up (%v)", e.ID, e.Err)
	if e.FirstErr != "" {
		fmt.Fprintf(&b, "; first error:\n%s\n", e.FirstErr)
	}
	fmt.Fprintf(&b, "; %s ends:\n%s", e.Log, e.Tail)
	return b.String()
}

// Unwrap also yields errPortClash when the log says a port was taken, so
// that Start retries with new ports.
func (e *brokerExitError) Unwrap() []error {
	errs := []error{e.Err}
	if e.PortClash {
		errs = append(errs, errPortClash)
	}
	return errs
}

// firstLogError returns the first ERROR or FATAL entry of a broker log with
// the two lines after it (usually the exception), or "".
func firstLogError(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.Contains(l, "] ERROR ") || strings.Contains(l, "] FATAL ") {
			entry := lines[i:min(i+3, len(lines))]
			for j, l := range entry {
				if len(l) > 300 {
					entry[j] = l[:300] + "..."
				}
			}
			return strings.Join(entry, "\n")
		}
	}
	return ""
}

// readyStep is one check of waitReady, retried until it passes.
type readyStep struct {
	what string
	try  func(ctx context.Context) error
}

// waitReady returns once the cluster serves clients (brokersServing with
// every broker).
func (c *processCluster) waitReady(ctx context.Context) error {
	return c.brokersServing(ctx, c.brokers)
}

// brokersServing returns once brokers serve clients (waitServing on their
// node ids). If one of their JVMs exits meanwhile, it fails at once with
// the end of its log. The cluster start checks every broker; a start after
// a fault checks the one broker, whatever the others are doing.
func (c *processCluster) brokersServing(ctx context.Context, brokers []*broker) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopWatching := watchExits(brokers, cancel)
	defer stopWatching()
	want := make([]int32, len(brokers))
	for i, b := range brokers {
		want[i] = int32(b.addr.ID)
	}
	version := c.spec.KafkaVersion
	if len(brokers) == 1 && brokers[0].version != "" {
		version = brokers[0].version // a broker started again on another release (RestartBrokerOn)
	}
	err := waitServing(ctx, c.Bootstrap(), want, version, c.spec.Log, c.connOpts()...)
	if exit, ok := errors.AsType[*brokerExitError](context.Cause(ctx)); ok && err != nil {
		return exit
	}
	return err
}

// waitServing returns once the brokers want (node ids) behind bootstrap
// serve clients, judged through a client rather than log lines: metadata
// lists each of them and a controller; a probe topic with one replica on
// each of them is created, accepts a record with acks=all, and is deleted. Each step is
// retried with backoff until ctx ends. Every provider that starts brokers
// uses it, after a start and after a broker fault.
func waitServing(ctx context.Context, bootstrap []string, want []int32, version string, log io.Writer, conn ...kgo.Opt) error {
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(bootstrap...),
		kgo.DialTimeout(2 * time.Second),
		kgo.MetadataMinAge(200 * time.Millisecond),
		kgo.RetryBackoffFn(func(int) time.Duration { return 200 * time.Millisecond }),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(0),
	}, conn...)...)
	if err != nil {
		return fmt.Errorf("cluster: readiness client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	topic := "sharebench-probe-" + randomHex(4)
	steps := []readyStep{
		{fmt.Sprintf("metadata lists broker(s) %v and a controller", want), func(ctx context.Context) error {
			ids, controller, err := brokerMetadata(ctx, cl)
			if err != nil {
				return err
			}
			for _, id := range want {
				if !slices.Contains(ids, id) {
					return fmt.Errorf("broker %d not yet registered and unfenced (listed: %v)", id, ids)
				}
			}
			if controller < 0 {
				return errors.New("no controller")
			}
			return nil
		}},
		{fmt.Sprintf("create probe topic %q (replicas %v)", topic, want), func(ctx context.Context) error {
			return createTopicOn(ctx, cl, topic, want)
		}},
		{fmt.Sprintf("produce to probe topic %q", topic), func(ctx context.Context) error {
			return cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("probe")}).FirstErr()
		}},
		{fmt.Sprintf("delete probe topic %q", topic), func(ctx context.Context) error {
			_, err := adm.DeleteTopic(ctx, topic)
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				return nil
			}
			return err
		}},
	}
	began := time.Now()
	for _, s := range steps {
		err := retryUntil(ctx, s)
		progress(log, "ready check %q: %s after %v", s.what, passOrFail(err), time.Since(began).Round(10*time.Millisecond))
		if err != nil {
			return fmt.Errorf("cluster: not ready: %w", err)
		}
	}
	noteVersion(ctx, adm, version, log)
	return nil
}

// retryUntil runs step until it passes or ctx ends, backing off from 100 ms
// to 1 s between attempts, each attempt bounded to 10 s.
func retryUntil(ctx context.Context, step readyStep) error {
	err := retry.Do(ctx, retry.Policy{Wait: 100 * time.Millisecond, MaxWait: time.Second, AttemptTimeout: 10 * time.Second}, step.try)
	if g, ok := errors.AsType[*retry.GiveUpError](err); ok {
		return fmt.Errorf("%s: %w (last attempt: %v)", step.what, g.Cause, g.Last)
	}
	return err
}

// brokerMetadata asks the cluster behind cl for the brokers it lists
// (registered and unfenced; sorted node ids) and its controller (-1: none).
// It is the one metadata probe: readiness, the external provider's check
// and ProbeBrokers use it. A raw request: kadm's BrokerMetadata answers
// from kgo's cache once the client knows any broker, and would keep
// reporting the first brokers seen.
func brokerMetadata(ctx context.Context, cl *kgo.Client) (ids []int32, controller int32, err error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	md, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, -1, err
	}
	ids = make([]int32, len(md.Brokers))
	for i, b := range md.Brokers {
		ids[i] = b.NodeID
	}
	slices.Sort(ids)
	return ids, md.ControllerID, nil
}

// ProbeBrokers asks the cluster behind bootstrap, once and within timeout,
// which brokers it lists (sorted node ids): brokerMetadata through a client
// of its own, connected with conn (Connection.ClientOpts).
func ProbeBrokers(ctx context.Context, bootstrap []string, timeout time.Duration, conn ...kgo.Opt) ([]int32, error) {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap...), kgo.DialTimeout(min(timeout, 5*time.Second))}, conn...)...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ids, _, err := brokerMetadata(ctx, cl)
	return ids, err
}

// allNodes returns the node ids 1..n of an n-node cluster.
func allNodes(n int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(i + 1)
	}
	return ids
}

// createTopicOn creates topic with one partition replicated on exactly
// replicas (an explicit assignment, so that a probe reaches the brokers it
// is about). An existing topic counts as created: an earlier attempt got
// through after all.
func createTopicOn(ctx context.Context, cl *kgo.Client, topic string, replicas []int32) error {
	req := kmsg.NewPtrCreateTopicsRequest()
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic, t.NumPartitions, t.ReplicationFactor = topic, -1, -1
	a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
	a.Partition, a.Replicas = 0, replicas
	t.ReplicaAssignment = []kmsg.CreateTopicsRequestTopicReplicaAssignment{a}
	req.Topics = []kmsg.CreateTopicsRequestTopic{t}
	req.TimeoutMillis = 10_000
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	if len(resp.Topics) != 1 {
		return fmt.Errorf("create topic %q: %d answers, expected 1", topic, len(resp.Topics))
	}
	err = kerr.ErrorForCode(resp.Topics[0].ErrorCode)
	if errors.Is(err, kerr.TopicAlreadyExists) {
		return nil
	}
	return err
}

// watchExits cancels ctx (through cancel) with a *brokerExitError as soon
// as one of brokers' current JVMs exits. The returned function ends the
// watch and waits for its goroutines.
func watchExits(brokers []*broker, cancel context.CancelCauseFunc) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for _, b := range brokers {
		p := b.proc
		wg.Go(func() {
			select {
			case <-p.done:
				cancel(newBrokerExitError(b))
			case <-quit:
			}
		})
	}
	return func() {
		close(quit)
		wg.Wait()
	}
}

// noteVersion logs the Kafka release the brokers' ApiVersions look like, a
// cross-check of the jars' version (patch releases are indistinguishable).
func noteVersion(ctx context.Context, adm *kadm.Client, version string, log io.Writer) {
	if log == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	vs, err := adm.ApiVersions(ctx)
	if err != nil {
		progress(log, "ApiVersions: %v", err)
		return
	}
	for _, v := range vs.Sorted() {
		if v.Err == nil {
			progress(log, "broker %d: Kafka %s, ApiVersions look like Kafka %s", v.NodeID, version, v.VersionGuess())
			return
		}
	}
}

func passOrFail(err error) string {
	if err != nil {
		return "failed"
	}
	return "passed"
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
