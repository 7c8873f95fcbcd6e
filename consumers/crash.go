package consumers

import (
	"context"
	"errors"
	"net"
	"sync"
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
// the fleet, when the broker has long timed the member out).
func (c *crashDialer) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, fc := range c.conns {
		_ = fc.Conn.Close()
	}
	c.conns = nil
}

// freezableConn passes through until frozen; then Write swallows, Read
// blocks until Close, and Close leaves the real connection open (release
// closes it).
type freezableConn struct {
	net.Conn
	frozen    chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
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
		<-f.closed
		return 0, net.ErrClosed
	}
	// A read in progress when the freeze comes: its bytes are dropped.
	n, err := f.Conn.Read(b)
	if f.isFrozen() {
		<-f.closed
		return 0, net.ErrClosed
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
