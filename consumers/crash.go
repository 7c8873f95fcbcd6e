package consumers

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// crashDialer dials normally until crash; then every connection it made
// freezes (writes are swallowed, reads block) and every new dial fails, so
// nothing the client sends reaches the brokers and nothing they send is
// read. The TCP connections stay open until release: a closed connection
// would tell the broker at once (a share-partition leader releases a closed
// session's records), while a crashed host or a partition is noticed only
// by timeouts (acquisition locks, session timeouts).
type crashDialer struct {
	mu    sync.Mutex
	dead  bool
	conns []*freezableConn
	d     net.Dialer
}

var errCrashed = errors.New("member crashed (simulated): network unreachable")

func (c *crashDialer) dial(ctx context.Context, network, host string) (net.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return nil, errCrashed
	}
	conn, err := c.d.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	fc := &freezableConn{Conn: conn, frozen: make(chan struct{}), closed: make(chan struct{})}
	c.conns = append(c.conns, fc)
	return fc, nil
}

func (c *crashDialer) crash() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dead = true
	for _, fc := range c.conns {
		close(fc.frozen)
	}
}

// release closes the real connections of a crashed client (at the end of
// the fleet, when the broker has long timed the member out), and ends any
// read still blocked on one.
func (c *crashDialer) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, fc := range c.conns {
		fc.closeOnce.Do(func() { close(fc.closed) })
		_ = fc.Conn.Close()
	}
	c.conns = nil
}

// freezableConn passes through until frozen; then Write swallows, Read
// blocks as on a peer gone silent (until Close, or until the read deadline
// the client set passes: the client's own request timeout, as on a real
// network), and Close leaves the real connection open (release closes it).
// Without the deadline a crashed client's Close, waiting on a response
// over a frozen connection (a share session's close), never ended.
type freezableConn struct {
	net.Conn
	frozen    chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
	// readDeadline is the last read deadline set (Unix ns; 0: none).
	readDeadline atomic.Int64
}

func (f *freezableConn) SetReadDeadline(t time.Time) error {
	f.noteDeadline(t)
	return f.Conn.SetReadDeadline(t)
}

func (f *freezableConn) SetDeadline(t time.Time) error {
	f.noteDeadline(t)
	return f.Conn.SetDeadline(t)
}

func (f *freezableConn) noteDeadline(t time.Time) {
	if t.IsZero() {
		f.readDeadline.Store(0)
		return
	}
	f.readDeadline.Store(t.UnixNano())
}

// frozenRead is a read on a frozen connection: nothing arrives; it ends at
// Close (net.ErrClosed) or at the read deadline (os.ErrDeadlineExceeded,
// a timeout).
func (f *freezableConn) frozenRead() (int, error) {
	var timeout <-chan time.Time
	if d := f.readDeadline.Load(); d != 0 {
		t := time.NewTimer(time.Until(time.Unix(0, d)))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-f.closed:
		return 0, net.ErrClosed
	case <-timeout:
		return 0, os.ErrDeadlineExceeded
	}
}

func (f *freezableConn) isFrozen() bool {
	select {
	case <-f.frozen:
		return true
	default:
		return false
	}
}

func (f *freezableConn) Write(b []byte) (int, error) {
	if f.isFrozen() {
		return len(b), nil
	}
	return f.Conn.Write(b)
}

func (f *freezableConn) Read(b []byte) (int, error) {
	if f.isFrozen() {
		return f.frozenRead()
	}
	// A read in progress when the freeze comes: its bytes are dropped.
	n, err := f.Conn.Read(b)
	if f.isFrozen() {
		return f.frozenRead()
	}
	return n, err
}

func (f *freezableConn) Close() error {
	f.closeOnce.Do(func() { close(f.closed) })
	if f.isFrozen() {
		return nil
	}
	return f.Conn.Close()
}

// closeCrashed closes a crashed member's client: its dials fail, so the
// leave and release requests Close sends fail fast; d bounds the wait all the
// same, and the Close goroutine ends when Close returns.
func (m *member) closeCrashed(d time.Duration) {
	m.group.allowRebalance()
	closed := make(chan struct{})
	go func() {
		m.cl.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(d):
	}
}
