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

// waitReady returns once the cluster serves clients (waitServing). If a
// broker JVM exits meanwhile, waitReady fails at once with the end of its
// log.
func (c *processCluster) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopWatching := c.watchExits(cancel)
	defer stopWatching()
	err := waitServing(ctx, c.Bootstrap(), len(c.nodes), c.spec.KafkaVersion, c.spec.Log)
	if exit, ok := errors.AsType[*brokerExitError](context.Cause(ctx)); ok && err != nil {
		return exit
	}
	return err
}

// waitServing returns once the n brokers behind bootstrap serve clients,
// judged through a client rather than log lines: metadata lists every
// broker and a controller; a probe topic replicated on every broker is
// created, accepts a record with acks=all, and is deleted. Each step is
// retried with backoff until ctx ends. Every provider that starts brokers
// uses it, after a start and after a broker fault.
func waitServing(ctx context.Context, bootstrap []string, n int, version string, log io.Writer) error {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(bootstrap...),
		kgo.DialTimeout(2*time.Second),
		kgo.MetadataMinAge(200*time.Millisecond),
		kgo.RetryBackoffFn(func(int) time.Duration { return 200 * time.Millisecond }),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(0),
	)
	if err != nil {
		return fmt.Errorf("cluster: readiness client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	topic := "sharebench-probe-" + randomHex(4)
	steps := []readyStep{
		{fmt.Sprintf("metadata lists %d broker(s) and a controller", n), func(ctx context.Context) error {
			// A raw request: kadm's BrokerMetadata answers from kgo's
			// cache once the client knows any broker, and would keep
			// reporting the first brokers seen.
			req := kmsg.NewPtrMetadataRequest()
			req.Topics = []kmsg.MetadataRequestTopic{}
			md, err := req.RequestWith(ctx, cl)
			if err != nil {
				return err
			}
			if len(md.Brokers) < n {
				ids := make([]int32, len(md.Brokers))
				for i, b := range md.Brokers {
					ids[i] = b.NodeID
				}
				slices.Sort(ids)
				return fmt.Errorf("%d of %d brokers registered and unfenced (ids %v)", len(md.Brokers), n, ids)
			}
			if md.ControllerID < 0 {
				return errors.New("no controller")
			}
			return nil
		}},
		{fmt.Sprintf("create probe topic %q (replication factor %d)", topic, n), func(ctx context.Context) error {
			_, err := adm.CreateTopic(ctx, 1, int16(n), nil, topic)
			if errors.Is(err, kerr.TopicAlreadyExists) {
				return nil // an earlier attempt got through after all
			}
			return err
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
	backoff := 100 * time.Millisecond
	for {
		attemptCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := step.try(attemptCtx)
		cancel()
		if err == nil {
			return nil
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w (last attempt: %v)", step.what, context.Cause(ctx), err)
		case <-t.C:
		}
		backoff = min(2*backoff, time.Second)
	}
}

// watchExits cancels ctx (through cancel) with a *brokerExitError as soon
// as any started broker exits. The returned function ends the watch and
// waits for its goroutines.
func (c *processCluster) watchExits(cancel context.CancelCauseFunc) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for _, b := range c.brokers {
		wg.Go(func() {
			select {
			case <-b.proc.done:
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
