package consumers

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/cachedir"
	"github.com/sharebench/sharebench/internal/tail"
	"github.com/sharebench/sharebench/results"
)

func TestDecodeJavaFrameRejects(t *testing.T) {
	if _, err := decodeJavaFrame(make([]byte, 10)); err == nil {
		t.Error("short frame decoded")
	}
	b := javaFrame{Kind: frameWrite + 1}.encode()
	if _, err := decodeJavaFrame(b); err == nil || !strings.Contains(err.Error(), "unknown frame kind") {
		t.Errorf("unknown kind: %v", err)
	}
	good := javaFrame{Kind: framePoll, Member: 3, N: 7}.encode()
	for _, tc := range []struct {
		name, want string
		edit       func([]byte)
	}{
		{"magic", `want "SBRF"`, func(b []byte) { b[0] = 'X' }},
		{"version 1 (little-endian)", "format version 1, want 2", func(b []byte) { b[4] = 1 }},
		{"a flipped body bit", "checksum mismatch", func(b []byte) { b[10] ^= 0x10 }},
		{"a flipped checksum bit", "checksum mismatch", func(b []byte) { b[javaFrameSize-1] ^= 1 }},
	} {
		b := bytes.Clone(good)
		tc.edit(b)
		if _, err := decodeJavaFrame(b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if f, err := decodeJavaFrame(good); err != nil || f.Kind != framePoll || f.Member != 3 || f.N != 7 {
		t.Errorf("good frame: %+v, %v", f, err)
	}
}

// newTestJavaFleet is a javaFleet without a JVM: frames are applied
// directly, as read() would.
func newTestJavaFleet(t *testing.T, members int, offset int64) (*javaFleet, *results.Recorder) {
	t.Helper()
	clock := results.NewClock()
	rec := results.NewRecorder(clock, 42, results.NewLedger(1, 100), results.NewSeries(clock.Now(), 60))
	rec.SetWindow(results.Window{Start: 0, End: 1 << 62})
	j := &javaFleet{rec: rec, rebal: newRebalanceWatch(rec), offset: offset, stderr: tail.New(4096),
		pongs: make(chan javaFrame, 1), hello: make(chan struct{})}
	for id := range members {
		s := rec.MemberRecorder()
		s.Joined(id, clock.Now())
		j.memberRecs = append(j.memberRecs, s)
		j.exited = append(j.exited, make(chan struct{}))
		j.active = append(j.active, id)
	}
	return j, rec
}

// TestJavaFramesIntoRecorder streams one record's life through the decoder
// (from bytes, as the runner writes them) and checks that it lands in the
// same recorder calls a franz-go member makes, with runner times shifted by
// the clock offset.
func TestJavaFramesIntoRecorder(t *testing.T) {
	const offset = int64(1_000_000) // runner clock is 1 ms behind
	j, rec := newTestJavaFleet(t, 2, offset)
	now := rec.Clock.Now()
	rec.Ledger.Produced(0, 1)
	rec.Ledger.Produced(0, 2)
	rec.Ledger.Produced(0, 3)
	intended := now - int64(50*time.Millisecond)
	var stream bytes.Buffer
	for _, f := range []javaFrame{
		{Kind: frameHello, N: javaFrameProtocol},
		{Kind: framePoll, Member: 1, N: 3, At: now - offset},
		{Kind: frameDelivery, Member: 1, N: 1, Producer: 0, Run: 42, Seq: 1, Intended: intended, At: now - offset, Aux: intended},
		{Kind: frameDelivery, Member: 1, N: 1, Producer: 0, Run: 42, Seq: 2, Intended: intended, At: now - offset, Aux: intended},
		{Kind: frameDelivery, Member: 1, N: 1, Producer: 0, Run: 42, Seq: 3, Intended: intended, At: now - offset, Aux: intended},
		{Kind: frameCompletion, Member: 1, Flags: frameFlagLockExpired, Run: 42, Seq: 1, Intended: intended,
			At: now - offset + int64(10*time.Millisecond), Aux: now - offset},
		{Kind: frameRelease, Member: 1, Flags: frameFlagArchived, Run: 42, Seq: 2, Intended: intended, At: now - offset},
		{Kind: frameReject, Member: 1, Run: 42, Seq: 3, Intended: intended, At: now - offset},
		{Kind: frameForeign, Member: 0},
		{Kind: frameRenewal, Member: 1},
		{Kind: frameAckError, Member: 0, N: 2},
		{Kind: framePollError, Member: 0},
		{Kind: frameRetry, Member: 0, At: now - offset},
		{Kind: frameAssigned, Member: 0, N: 5},
		{Kind: frameRevoked, Member: 0, N: 5},
		{Kind: frameAssigned, Member: 1, N: 5},
		{Kind: frameLeft, Member: 0, At: now - offset},
		{Kind: frameExited, Member: 0},
		{Kind: frameBye},
	} {
		stream.Write(f.encode())
	}
	j.readDone = make(chan struct{})
	j.read(&stream)
	select {
	case <-j.hello:
	default:
		t.Error("hello not seen")
	}
	select {
	case <-j.exited[0]:
	default:
		t.Error("member 0 exit not seen")
	}
	m := rec.Merge()
	if m.Polls != 1 || m.Delivered != 3 || m.Completed != 1 || m.Released != 1 || m.Rejected != 1 || m.LockExpired != 1 ||
		m.Renewals != 1 || m.AckErrors != 2 || m.PollErrors != 1 || m.Retried != 1 || m.DeliveryCounts[0] != 3 {
		t.Errorf("merged counts: %+v", m)
	}
	if got := m.Hold.Max(); got < 9_900 || got > 10_100 { // µs: completion − delivery, both shifted alike
		t.Errorf("hold max %d µs, want 10 ms", got)
	}
	// Delivery latency = (runner at + offset) − intended = 50 ms exactly.
	if got := m.Delivery.Max(); got < 49_900 || got > 50_100 {
		t.Errorf("delivery max %d µs, want 50 ms", got)
	}
	a := rec.Ledger.Audit()
	if a.CompletedOnce != 1 || a.Archived != 2 || a.Foreign != 1 || a.Lost != 0 || a.InFlight != 0 {
		t.Errorf("audit %+v", a)
	}
	if m.Members[0].LeftNs != now {
		t.Errorf("left at %d, want %d (runner time + offset)", m.Members[0].LeftNs, now)
	}
	if len(m.Pauses) != 1 || m.Pauses[0].Partition != 5 {
		t.Errorf("pauses %+v", m.Pauses)
	}
}

func TestJavaFrameUnknownMember(t *testing.T) {
	j, _ := newTestJavaFleet(t, 1, 0)
	j.apply(javaFrame{Kind: framePoll, Member: 7, N: 1})
	if !strings.Contains(j.stderr.String(), "unknown member 7") {
		t.Errorf("stderr: %q", j.stderr.String())
	}
}

// TestAlignClocks runs the alignment against a fake runner whose clock is
// 3 ms ahead and whose pongs take a variable time: the offset must be found
// within the reported bound, and the bound is half the best round trip.
func TestAlignClocks(t *testing.T) {
	clock := results.NewClock()
	const skew = int64(3 * time.Millisecond)
	pongs := make(chan javaFrame, 1)
	delays := []time.Duration{2 * time.Millisecond, 200 * time.Microsecond, time.Millisecond, 50 * time.Microsecond}
	ping := func(seq int) error {
		go func() {
			d := delays[seq%len(delays)]
			time.Sleep(d / 2)
			at := clock.Now() + skew
			time.Sleep(d / 2)
			pongs <- javaFrame{Kind: framePong, N: int32(seq), At: at}
		}()
		return nil
	}
	offset, bound, err := alignClocks(clock.Now, ping, pongs, make(chan struct{}), 8, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if bound <= 0 || bound > int64(2*time.Millisecond) {
		t.Errorf("bound %v", time.Duration(bound))
	}
	if d := offset + skew; d < -bound || d > bound {
		t.Errorf("offset %v, want −3ms ± %v", time.Duration(offset), time.Duration(bound))
	}
}

func TestAlignClocksRunnerGone(t *testing.T) {
	gone := make(chan struct{})
	close(gone)
	_, _, err := alignClocks(time.Now().UnixNano, func(int) error { return nil }, make(chan javaFrame), gone, 4, time.Second)
	if err == nil {
		t.Fatal("alignment with a runner gone succeeded")
	}
}

func TestJavaClientValidation(t *testing.T) {
	c := Config{Members: 1, Workers: 1, MaxPollRecords: 1, Type: ConsumerGroup, Style: StyleContinuous, Client: ClientJava, KafkaVersion: "4.2.2"}
	if err := c.validate(); err == nil || !strings.Contains(err.Error(), "blocking") {
		t.Errorf("java continuous: %v", err)
	}
	c.Style, c.Client = StyleBlocking, "jvm"
	if err := c.validate(); err == nil || !strings.Contains(err.Error(), "client") {
		t.Errorf("unknown client: %v", err)
	}
	c.Client = ClientJava
	if err := c.validate(); err != nil {
		t.Errorf("java blocking: %v", err)
	}
	if info := c.Info(); info.Name != "java" || info.Version != "4.2.2" {
		t.Errorf("java info %+v", info)
	}
	c.Client = ""
	if info := c.Info(); info.Name != "franz-go" || info.Version == "" {
		t.Errorf("franz-go info %+v", info)
	}
	if _, err := JavaRunnerDir(context.Background(), "4.2", nil); err == nil {
		t.Error("JavaRunnerDir accepted version 4.2")
	}
}

func TestCheckJavaClientMessage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := CheckJavaClient()
	if err == nil || !strings.HasPrefix(err.Error(), "client java needs a JDK (javac) and Maven: ") {
		t.Errorf("got %v", err)
	}
}

func TestJavaRunnerSourcesEmbedded(t *testing.T) {
	dir := t.TempDir()
	if err := writeJavaSources(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"pom.xml", "src/main/java/sharebench/runner/Main.java", "src/main/java/sharebench/runner/Stamp.java"} {
		if !cachedir.Exists(dir + "/" + p) {
			t.Errorf("%s not embedded", p)
		}
	}
	h1, err := javaRunnerHash()
	if err != nil || len(h1) != 12 {
		t.Errorf("hash %q, %v", h1, err)
	}
}

// A fleet of Java members answers Generation (the harness asks while the
// group forms) without a franz-go rebalance watch of its own.
func TestJavaFleetGeneration(t *testing.T) {
	j, _ := newTestJavaFleet(t, 2, 0)
	f := &Fleet{java: j}
	if g := f.Generation(); g != 0 {
		t.Errorf("Generation = %d before any assignment, want 0", g)
	}
}
