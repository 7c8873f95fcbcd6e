package shard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// sendTimeout bounds one control message's or chunk's delivery.
const sendTimeout = 30 * time.Second

// Bus is one side's connection to a run's control and results topics: it
// sends messages and chunks, and delivers what arrives on both topics
// (every message of the run, from the start of the topics: a shard that
// joins late still reads what was sent before it subscribed).
type Bus struct {
	run, results string
	cl           *kgo.Client
	asm          Assembler
	msgs         chan Msg
	blobs        chan Blob
	errs         chan error
	done         chan struct{}
	token        string // SignWith
}

// SignWith makes Send sign every message, and SendBlob every blob, with token (an agent's, given by
// its launcher: Msg.Signed). Call it before the first Send.
func (b *Bus) SignWith(token string) { b.token = token }

// NewBus connects to the run's topics (control, results) with the given
// client options (connection settings) and starts reading them.
func NewBus(ctx context.Context, bootstrap []string, control, results string, opts ...kgo.Opt) (*Bus, error) {
	all := append([]kgo.Opt{kgo.SeedBrokers(bootstrap...), kgo.DefaultProduceTopic(control),
		kgo.ConsumeTopics(control, results), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.ProducerLinger(0), kgo.FetchMaxWait(100 * time.Millisecond), kgo.ProducerBatchMaxBytes(ChunkBytes + 64<<10),
		kgo.FetchMaxBytes(8 << 20), kgo.FetchMaxPartitionBytes(4 << 20),
		// A send fails instead of retrying forever when the brokers are
		// gone, so neither side waits on a vanished peer without bound.
		kgo.RecordDeliveryTimeout(sendTimeout),
	}, opts...)
	cl, err := kgo.NewClient(all...)
	if err != nil {
		return nil, err
	}
	b := &Bus{run: control, results: results, cl: cl, asm: Assembler{Run: control},
		msgs: make(chan Msg, 1024), blobs: make(chan Blob, 256), errs: make(chan error, 1), done: make(chan struct{})}
	go b.read(ctx)
	return b, nil
}

// Run is the run the bus carries (its control topic's name): what its
// messages and blobs are signed for.
func (b *Bus) Run() string { return b.run }

// Msgs delivers the run's control messages in topic order (both sides').
func (b *Bus) Msgs() <-chan Msg { return b.msgs }

// Blobs delivers reassembled results-topic blobs.
func (b *Bus) Blobs() <-chan Blob { return b.blobs }

// Errs delivers the reader's error, once (a malformed message of this run,
// or the client failing).
func (b *Bus) Errs() <-chan error { return b.errs }

func (b *Bus) read(ctx context.Context) {
	defer close(b.done)
	fail := func(err error) {
		select {
		case b.errs <- err:
		default:
		}
	}
	for ctx.Err() == nil {
		fs := b.cl.PollFetches(ctx)
		if fs.IsClientClosed() {
			return
		}
		for _, e := range fs.Errors() {
			if !errors.Is(e.Err, context.Canceled) && !kerr.IsRetriable(e.Err) {
				fail(fmt.Errorf("shard: read %s: %w", e.Topic, e.Err))
			}
		}
		for it := fs.RecordIter(); !it.Done(); {
			r := it.Next()
			if r.Topic == b.results {
				blob, err := b.asm.Add(r)
				if err != nil {
					fail(err)
					continue
				}
				if blob != nil {
					select {
					case b.blobs <- *blob:
					case <-ctx.Done():
						return
					}
				}
				continue
			}
			m, err := Decode(r.Value)
			if err != nil {
				if m.Run == b.run {
					fail(err)
				}
				continue
			}
			if m.Run != b.run {
				continue
			}
			select {
			case b.msgs <- m:
			case <-ctx.Done():
				return
			}
		}
	}
}

// Send writes one control message and waits for the broker's
// acknowledgement.
func (b *Bus) Send(ctx context.Context, m Msg) error {
	m.Run = b.run
	if b.token != "" {
		m = m.Signed(b.token)
	}
	v, err := m.Encode()
	if err != nil {
		return err
	}
	if err := b.cl.ProduceSync(ctx, &kgo.Record{Value: v}).FirstErr(); err != nil {
		return fmt.Errorf("shard: send %s: %w", m.Type, err)
	}
	return nil
}

// SendBlob writes a blob to the results topic in chunks, signed like Send's
// messages (SignWith).
func (b *Bus) SendBlob(ctx context.Context, shard int, kind string, seq int, data []byte) error {
	recs := Chunks(b.run, shard, kind, seq, data, b.token)
	for _, r := range recs {
		r.Topic = b.results
	}
	if err := b.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("shard: write %s results (%d bytes): %w", kind, len(data), err)
	}
	return nil
}

// Close stops reading and closes the client.
func (b *Bus) Close() {
	b.cl.Close()
	<-b.done
}
