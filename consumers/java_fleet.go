package consumers

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sharebench/sharebench/internal/tail"
	"github.com/sharebench/sharebench/results"
)

// javaFleet runs a fleet's members in one client runner process: the Java
// runner (javarunner/, one JVM) or the librdkafka runner (rdkafkarunner/,
// one Python process). Commands go to its stdin as text lines, per-record
// events come back on its stdout as fixed-size frames (java_frames.go) and
// are turned into the same results.Recorder calls the franz-go members
// make. Nothing here depends on which runner it is but name and the
// command that starts it.
type javaFleet struct {
	c     Config
	name  string // "java runner", "librdkafka runner": errors say which
	rec   *results.Recorder
	rebal *rebalanceWatch

	cmd *exec.Cmd
	// cfgDir (mode 0700) holds the runner's configuration file (0600),
	// connection secrets included; it is removed once the runner has read
	// it (its hello), and again when it exits.
	cfgDir string
	stderr *tail.Writer
	inMu   sync.Mutex
	stdin  io.WriteCloser

	// offset is added to runner clock readings to get harness Clock ns;
	// bound is half the round trip it was measured with: the alignment's
	// error bound.
	offset, bound int64
	pongs         chan javaFrame
	hello         chan struct{}

	mu         sync.RWMutex
	memberRecs []*results.MemberRecorder // by member id (nil: not this JVM's)
	exited     []chan struct{}           // by member id
	active     []int                     // oldest first, in every JVM of the fleet
	stopping   bool
	// crashKilled: this JVM was SIGKILLed on purpose (a crash, java_crash.go):
	// its end is not an error.
	crashKilled bool
	// own are the JVMs of their own of the members a crash will take
	// (Config.OwnJVM), by member id (java_crash.go); nil in those JVMs.
	own            map[int]*javaFleet
	nextID, joined int // the next member's id; members started (Config.IDs)

	readDone chan struct{} // the event stream ended
	done     chan struct{} // the JVM was reaped; err is set
	err      error
	stopOnce sync.Once
	// killed: the harness killed the runner; killedAfter > 0: because it
	// had not exited that long after stop (java_exit.go). Under mu.
	killed      bool
	killedAfter time.Duration
	// settingsFile is where the runner's first member writes the client
	// settings it resolved (settings.go).
	settingsFile string
	// requests are the members' request counts (frameRequests,
	// java_requests.go); under mu.
	requests results.RequestTimings
}

// javaStartTimeout bounds the JVM's start until its hello frame.
const javaStartTimeout = 60 * time.Second

// javaPingRounds is how many ping/pong round trips align the clocks; the one
// with the smallest round trip is kept.
const javaPingRounds = 16

// startJava builds (on first use) and starts the Java runner (startRunner).
func startJava(ctx context.Context, c Config, rec *results.Recorder) (*javaFleet, error) {
	dir, err := JavaRunnerDir(ctx, c.KafkaVersion, c.Log)
	if err != nil {
		return nil, err
	}
	return startRunner(ctx, c, rec, "java runner", func(cfgFile string) *exec.Cmd {
		return javaCommand(dir, cfgFile)
	})
}

// javaCommand starts the Java runner built in dir (a Java or a Spring build)
// on the configuration file cfgFile.
func javaCommand(dir, cfgFile string) *exec.Cmd {
	return exec.Command("java", "-Xss512k", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-Dorg.slf4j.simpleLogger.logFile=System.err", "-cp", javaClasspath(dir), "sharebench.runner.Main", cfgFile)
}

// startRunner starts a client runner process for the fleet (the command
// command makes for the runner's configuration file), and one more process
// of the same runner for each member a crash will take (Config.OwnJVM,
// java_crash.go), aligns their clocks with rec's and joins c.Members
// members. The runners stop when ctx ends.
func startRunner(ctx context.Context, c Config, rec *results.Recorder, name string, command func(cfgFile string) *exec.Cmd) (*javaFleet, error) {
	rebal := newRebalanceWatch(rec)
	own := make(chan ownJVMs, 1)
	go func() { own <- startOwn(ctx, c, rec, rebal, name, command) }() // beside the fleet's process: JVMs start slowly
	j, err := startRunnerProc(ctx, c, rec, rebal, name, command, true)
	o := <-own
	if err == nil {
		err = o.err
	}
	if err != nil {
		for _, f := range o.jvms {
			f.kill()
		}
		if j != nil {
			j.kill()
		}
		return nil, err
	}
	j.own = o.jvms
	j.Join(c.Members)
	return j, nil
}

// startRunnerProc starts one runner process with no member and aligns its
// clock (recorded as the run's client clock when record is set).
func startRunnerProc(ctx context.Context, c Config, rec *results.Recorder, rebal *rebalanceWatch, name string,
	command func(cfgFile string) *exec.Cmd, record bool) (*javaFleet, error) {
	cfgFile, err := writeRunnerConfig(c, rec.Run)
	if err != nil {
		return nil, err
	}
	cfgDir := filepath.Dir(cfgFile)
	j := &javaFleet{c: c, name: name, rec: rec, rebal: rebal, cfgDir: cfgDir, settingsFile: javaSettingsFile(cfgFile), stderr: tail.New(8 << 10),
		pongs: make(chan javaFrame, 1), hello: make(chan struct{}), readDone: make(chan struct{}), done: make(chan struct{})}
	j.cmd = command(cfgFile)
	j.cmd.SysProcAttr = javaProcAttr()
	j.cmd.Stderr = j.stderr
	if j.stdin, err = j.cmd.StdinPipe(); err != nil {
		os.RemoveAll(cfgDir)
		return nil, err
	}
	stdout, err := j.cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(cfgDir)
		return nil, err
	}
	if err := j.startProc(stdout); err != nil {
		os.RemoveAll(cfgDir)
		return nil, fmt.Errorf("%s: start: %w", j.name, err)
	}
	go func() {
		select {
		case <-ctx.Done():
			j.shutdown()
		case <-j.done:
		}
	}()
	if err := j.waitHello(ctx); err != nil {
		j.kill()
		return nil, err
	}
	// Read: the secrets in the configuration are not left on disk. The
	// directory (0700) stays for the settings file the runner writes when it
	// ends (settings.go), and goes when the runner is reaped.
	os.Remove(cfgFile)
	j.offset, j.bound, err = alignClocks(rec.Clock.Now, j.ping, j.pongs, j.readDone, javaPingRounds, 5*time.Second)
	if err != nil {
		j.kill()
		return nil, fmt.Errorf("%s: clock alignment: %w%s", j.name, err, j.stderrTail())
	}
	if record {
		rec.SetClientClock(results.ClientClock{OffsetNs: j.offset, BoundNs: j.bound})
	}
	return j, nil
}

// startProc starts the runner from a locked OS thread (Pdeathsig fires when the
// starting thread ends), reads its event stream, and reaps it.
func (j *javaFleet) startProc(stdout io.Reader) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread() // only once the JVM is reaped
		if err := j.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		go j.read(stdout)
		<-j.readDone
		werr := j.cmd.Wait()
		_ = killJavaGroup(j.cmd.Process.Pid) // anything it left behind
		j.recordSettings()
		os.RemoveAll(j.cfgDir)
		j.mu.Lock()
		x := javaExit{state: j.cmd.ProcessState, waitErr: werr, stopping: j.stopping, killed: j.killed, killedAfter: j.killedAfter,
			crashed: j.crashKilled, closeTimeout: j.c.closeTimeout(), stderr: j.stderrTail(), client: j.c.Client}
		j.mu.Unlock()
		j.err = x.exitError()
		close(j.done)
	}()
	return <-started
}

// stderrTail is ": last lines of the runner's stderr", or "".
func (j *javaFleet) stderrTail() string {
	s := strings.TrimSpace(j.stderr.String())
	if s == "" {
		return ""
	}
	return ": " + lastLines(s, 20)
}

func (j *javaFleet) waitHello(ctx context.Context) error {
	select {
	case <-j.hello:
		return nil
	case <-j.done:
		return j.err
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(javaStartTimeout):
		return fmt.Errorf("%s: no hello within %v%s", j.name, javaStartTimeout, j.stderrTail())
	}
}

// send writes one command line to the runner.
func (j *javaFleet) send(format string, args ...any) error {
	j.inMu.Lock()
	defer j.inMu.Unlock()
	_, err := fmt.Fprintf(j.stdin, format+"\n", args...)
	return err
}

func (j *javaFleet) ping(seq int) error { return j.send("ping %d", seq) }

// shutdown asks the runner to stop every member (flush, leave) and exit, and
// kills its process group if it has not exited within the close timeout and
// a margin.
func (j *javaFleet) shutdown() {
	j.stopOnce.Do(func() {
		j.mu.Lock()
		j.stopping = true
		j.mu.Unlock()
		_ = j.send("stop")
		j.inMu.Lock()
		_ = j.stdin.Close()
		j.inMu.Unlock()
		go func() {
			grace := j.c.closeTimeout() + javaKillMargin
			select {
			case <-j.done:
			case <-time.After(grace):
				j.mu.Lock()
				j.killedAfter = grace
				j.mu.Unlock()
				j.kill()
			}
		}()
	})
}

// kill ends the runner at once (its whole process group).
func (j *javaFleet) kill() {
	j.killGroup()
	<-j.done
}

// killGroup kills the runner's process group, noting that the harness did.
func (j *javaFleet) killGroup() {
	j.mu.Lock()
	j.stopping, j.killed = true, true
	j.mu.Unlock()
	if j.cmd.Process != nil {
		_ = killJavaGroup(j.cmd.Process.Pid)
	}
}

// recordSettings hands the client settings the runner wrote to the
// recorder (run.json client.settings) and removes their file.
func (j *javaFleet) recordSettings() {
	s, ok, err := readJavaSettings(j.settingsFile)
	os.Remove(j.settingsFile)
	switch {
	case err != nil && j.c.Log != nil:
		fmt.Fprintf(j.c.Log, "  %v (run.json gets no client.settings)\n", err)
	case ok:
		j.rec.SetClientSettings(s)
	}
}

// Wait waits until the runner (and every JVM of its own) has exited and
// returns why one failed (nil after a clean stop).
func (j *javaFleet) Wait() error {
	<-j.done
	errs := []error{j.err}
	for _, id := range slices.Sorted(maps.Keys(j.own)) {
		errs = append(errs, j.own[id].Wait())
	}
	return errors.Join(errs...)
}

// read decodes the event stream until it ends.
func (j *javaFleet) read(r io.Reader) {
	defer close(j.readDone)
	br := bufio.NewReaderSize(r, 64<<10)
	buf := make([]byte, javaFrameSize)
	for {
		if _, err := io.ReadFull(br, buf); err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(j.stderr, "\nsharebench: %s event stream: %v\n", j.name, err)
			}
			return
		}
		f, err := decodeJavaFrame(buf)
		if err != nil {
			fmt.Fprintf(j.stderr, "\nsharebench: %v\n", err)
			j.killGroup() // a corrupt stream: nothing after it can be trusted
			return
		}
		j.apply(f)
	}
}

// apply turns one frame into the recorder calls a franz-go member makes.
func (j *javaFleet) apply(f javaFrame) {
	switch f.Kind {
	case frameHello:
		if f.N != javaFrameProtocol {
			fmt.Fprintf(j.stderr, "\nsharebench: %s speaks protocol %d, want %d\n", j.name, f.N, javaFrameProtocol)
			j.killGroup()
			return
		}
		close(j.hello)
		return
	case framePong:
		select {
		case j.pongs <- f:
		default: // a late pong: alignment gave up on it
		}
		return
	case frameBye:
		return
	case frameRequests:
		j.addRequests(f)
		return
	}
	s := j.memberRec(int(f.Member))
	if s == nil {
		fmt.Fprintf(j.stderr, "\nsharebench: %s: frame %d for unknown member %d\n", j.name, f.Kind, f.Member)
		return
	}
	at := f.At + j.offset
	switch f.Kind {
	case framePoll:
		s.RecordPoll(int(f.N), at)
	case frameDelivery:
		s.RecordDelivery(f.stamp(), f.N, f.Aux, at)
	case frameCompletion:
		s.RecordCompletion(f.stamp(), f.Aux+j.offset, at, f.Flags&frameFlagLockExpired != 0)
	case frameRelease:
		s.RecordRelease(f.stamp(), at, f.Flags&frameFlagArchived != 0)
	case frameReject:
		s.RecordReject(f.stamp(), at)
	case frameRetry:
		s.RecordRetry(at)
	case frameForeign:
		j.rec.Ledger.Foreign()
	case framePollError:
		s.PollErrors.Add(1)
	case frameAckError:
		s.AckErrors.Add(int64(f.N))
	case frameWrite:
		s.RecordDestinationWrite(int64(f.N)*int64(time.Microsecond), f.Aux, f.Flags&frameFlagWriteFailed != 0)
	case frameRenewal:
		s.Renewals.Add(1)
	case frameAssigned:
		j.rebal.assigned(int(f.Member), []int32{f.N})
	case frameRevoked:
		j.rebal.revoked(int(f.Member), []int32{f.N})
	case frameLeft:
		s.Left(at)
	case frameExited:
		j.mu.RLock()
		ch := j.exited[f.Member]
		j.mu.RUnlock()
		close(ch)
	}
}

// Join starts n more members and returns their ids (Config.IDs first,
// then ids above the largest): each in the runner, or in its JVM of its
// own (Config.OwnJVM).
func (j *javaFleet) Join(n int) []int {
	j.mu.Lock()
	ids := nextIDs(n, j.c.IDs, &j.joined, &j.nextID)
	j.mu.Unlock()
	return j.JoinIDs(ids)
}

// JoinIDs starts members with the ids given (see Fleet.JoinIDs).
func (j *javaFleet) JoinIDs(ids []int) []int {
	j.mu.Lock()
	if j.stopping {
		j.mu.Unlock()
		return nil
	}
	for _, id := range ids {
		j.nextID = max(j.nextID, id+1)
		j.active = append(j.active, id)
	}
	j.mu.Unlock()
	for _, id := range ids {
		s := j.rec.MemberRecorder()
		s.Joined(id, j.rec.Clock.Now())
		o := j.owner(id)
		o.add(id, s)
		_ = o.send("join %d", id) // a runner gone is reported by Wait
	}
	return ids
}

// add makes member id one of this JVM's.
func (j *javaFleet) add(id int, s *results.MemberRecorder) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for len(j.memberRecs) <= id {
		j.memberRecs = append(j.memberRecs, nil)
		j.exited = append(j.exited, nil)
	}
	j.memberRecs[id] = s
	j.exited[id] = make(chan struct{})
}

// memberRec is member id's recorder, nil when id is not this JVM's.
func (j *javaFleet) memberRec(id int) *results.MemberRecorder {
	j.mu.RLock()
	defer j.mu.RUnlock()
	if id < 0 || id >= len(j.memberRecs) {
		return nil
	}
	return j.memberRecs[id]
}

// owner is the JVM that runs member id.
func (j *javaFleet) owner(id int) *javaFleet {
	if o := j.own[id]; o != nil {
		return o
	}
	return j
}

// Members is the number of members running now.
func (j *javaFleet) Members() int {
	j.mu.RLock()
	defer j.mu.RUnlock()
	return len(j.active)
}

// take removes the n oldest members from the active set.
func (j *javaFleet) take(n int) ([]int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := checkTake(n, len(j.active), j.c.OneOfSeveral); err != nil {
		return nil, err
	}
	out := j.active[:n:n]
	j.active = j.active[n:]
	return out, nil
}

// Leave makes the n oldest members leave gracefully (see Fleet.Leave).
func (j *javaFleet) Leave(ctx context.Context, n int) ([]int, error) {
	ids, err := j.take(n)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		_ = j.owner(id).send("leave %d", id)
	}
	return ids, j.waitExited(ctx, ids)
}

// Crash stops the n oldest members dead: they stop polling, acknowledging
// and committing at once. A member in a process of its own (Config.OwnJVM)
// then has its process SIGKILLed: nothing of it reaches the broker any
// more and its connections close, as with a crash in production. A member
// in the shared process never closes its client, but its client's
// heartbeat thread lives on (see docs/how-to/compare-clients.md).
func (j *javaFleet) Crash(ctx context.Context, n int) ([]int, error) {
	ids, err := j.take(n)
	if err != nil {
		return nil, err
	}
	now := j.rec.Clock.Now()
	for _, id := range ids {
		o := j.owner(id)
		if o == j {
			j.crashed(id, now)
		}
		_ = o.send("crash %d", id)
	}
	if err := j.waitExited(ctx, ids); err != nil {
		return ids, err
	}
	// A member in its own JVM is marked crashed once it has stopped (its
	// exited frame: every event it wrote before has been applied), so what
	// it held counts what it had not finished then; then its JVM dies.
	now = j.rec.Clock.Now()
	for _, id := range ids {
		if o := j.own[id]; o != nil {
			j.crashed(id, now)
			o.crashKill()
		}
	}
	return ids, nil
}

// crashed records member id's crash at now.
func (j *javaFleet) crashed(id int, now int64) {
	j.owner(id).memberRec(id).Crashed(now)
	j.rebal.crashed(id, now)
}

// waitExited waits until each of ids has exited (its exited frame), or its
// JVM has ended.
func (j *javaFleet) waitExited(ctx context.Context, ids []int) error {
	for _, id := range ids {
		o := j.owner(id)
		o.mu.RLock()
		ch := o.exited[id]
		o.mu.RUnlock()
		select {
		case <-ch:
		case <-o.done:
			return o.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// SlowDown multiplies every processing time by factor for d, from now.
func (j *javaFleet) SlowDown(factor float64, d time.Duration) {
	for _, o := range append([]*javaFleet{j}, slices.Collect(maps.Values(j.own))...) {
		_ = o.send("slow %s %d", strconv.FormatFloat(factor, 'g', -1, 64), int64(d))
	}
}

// alignClocks measures the offset between the harness clock (now) and the
// runner's: each round sends a ping and takes the runner's pong reading;
// the round with the smallest round trip gives offset = midpoint − runner
// reading, with an error bound of half that round trip (both processes read
// CLOCK_MONOTONIC-based clocks on the same host, so the offset stays put
// once measured).
func alignClocks(now func() int64, ping func(int) error, pongs <-chan javaFrame, gone <-chan struct{}, rounds int, timeout time.Duration) (offset, bound int64, err error) {
	best := int64(math.MaxInt64)
	for i := range rounds {
		t0 := now()
		if err := ping(i); err != nil {
			return 0, 0, err
		}
		for {
			var f javaFrame
			select {
			case f = <-pongs:
			case <-gone:
				return 0, 0, errJavaRunnerGone
			case <-time.After(timeout):
				return 0, 0, fmt.Errorf("no pong within %v", timeout)
			}
			if int(f.N) != i {
				continue // a late pong of an earlier round
			}
			t1 := now()
			if rtt := t1 - t0; rtt < best {
				best = rtt
				offset = t0 + rtt/2 - f.At
				bound = (rtt + 1) / 2
			}
			break
		}
	}
	return offset, bound, nil
}

// runnerConfigName is the runner's configuration file in its directory.
const runnerConfigName = "runner.properties"

// writeRunnerConfig writes a client runner's configuration (RunnerConfig.java,
// runner.py's Config) and the client's connection settings under "client."
// (the Java client's, ClientSecurity.java copies them into every client;
// librdkafka's, runner.py's client_properties) to a properties file of
// mode 0600 in a new directory of mode 0700 of its own, and returns the
// file's path.
func writeRunnerConfig(c Config, run uint64) (string, error) {
	conn, err := runnerConnection(c)
	if err != nil {
		return "", err
	}
	p := c.Processing
	lines := []string{
		"bootstrap=" + strings.Join(c.Brokers, ","),
		"topic=" + c.Topic,
		"group=" + c.Group,
		"type=" + string(c.Type),
		"client=" + runnerClient(c.Client),
		"acquire_mode=" + string(c.Acquire),
		"ack_mode=" + string(c.Ack),
		"workers=" + strconv.Itoa(c.Workers),
		"max_poll_records=" + strconv.Itoa(c.MaxPollRecords),
		"delivery_limit=" + strconv.Itoa(c.DeliveryLimit),
		"transient_rate=" + strconv.FormatFloat(c.TransientRate, 'g', -1, 64),
		"poison_rate=" + strconv.FormatFloat(c.PoisonRate, 'g', -1, 64),
		"stuck_rate=" + strconv.FormatFloat(c.StuckRate, 'g', -1, 64),
		"renew=" + strconv.FormatBool(c.Renew),
		"close_timeout_ns=" + strconv.FormatInt(int64(c.closeTimeout()), 10),
		"fetch_max_wait_ns=" + strconv.FormatInt(int64(c.Fetch.MaxWait), 10),
		"fetch_min_bytes=" + strconv.FormatInt(int64(c.Fetch.MinBytes), 10),
		"fetch_max_bytes=" + strconv.FormatInt(int64(c.Fetch.MaxBytes), 10),
		"fetch_max_partition_bytes=" + strconv.FormatInt(int64(c.Fetch.MaxPartitionBytes), 10),
		"session_timeout_ns=" + strconv.FormatInt(int64(c.SessionTimeout), 10),
		"lock_ns=" + strconv.FormatInt(int64(c.LockDuration), 10),
		"group_protocol=" + string(cmp.Or(c.Groups.Protocol, ProtocolClassic)),
		"remote_assignor=" + cmp.Or(c.Groups.RemoteAssignor, RemoteUniform),
		"assignor=" + cmp.Or(c.Groups.Assignor, AssignorCooperativeSticky),
		"static_membership=" + strconv.FormatBool(c.Groups.Static),
		"auto_commit=" + strconv.FormatBool(c.Groups.AutoCommit),
		"auto_commit_interval_ns=" + strconv.FormatInt(int64(c.Groups.AutoCommitInterval), 10),
		"run=" + strconv.FormatUint(run, 10),
		"processing.model=" + string(p.Model),
		"processing.time=" + strconv.FormatInt(int64(p.Time), 10),
		"processing.min=" + strconv.FormatInt(int64(p.Min), 10),
		"processing.max=" + strconv.FormatInt(int64(p.Max), 10),
		"processing.mean=" + strconv.FormatInt(int64(p.Mean), 10),
		"processing.median=" + strconv.FormatInt(int64(p.Median), 10),
		"processing.p99=" + strconv.FormatInt(int64(p.P99), 10),
	}
	for _, k := range slices.Sorted(maps.Keys(conn)) {
		lines = append(lines, propertyKey(javaClientPrefix+k)+"="+propertyValue(conn[k]))
	}
	if c.Destination != nil {
		dest, err := runnerDestinationLines(c.DestinationConfig) // java_destination.go
		if err != nil {
			return "", fmt.Errorf("client runner: %w", err)
		}
		lines = append(lines, dest...)
	}
	dir, err := os.MkdirTemp("", "sharebench-javarunner-") // mode 0700
	if err != nil {
		return "", fmt.Errorf("client runner: config: %w", err)
	}
	lines = append(lines, "settings_file="+filepath.ToSlash(javaSettingsFile(filepath.Join(dir, runnerConfigName))))
	// Properties files escape backslashes; the values above have none
	// (broker addresses, generated names, numbers), the connection's are
	// escaped.
	body := strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, runnerConfigName), []byte(body), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("client runner: config: %w", err)
	}
	return filepath.Join(dir, runnerConfigName), nil
}

// runnerClient is the configuration's client: spring for the Spring
// build of the Java runner, java otherwise (the librdkafka runner ignores
// it).
func runnerClient(c Client) string {
	if c == ClientSpring {
		return string(ClientSpring)
	}
	return string(ClientJava)
}

// runnerConnection are the connection settings of c's runner client as
// that client's properties (secrets registered with redact).
func runnerConnection(c Config) (map[string]string, error) {
	var conn map[string]string
	var err error
	if c.Client == ClientLibrdkafka {
		conn, err = c.Connection.LibrdkafkaProperties()
	} else {
		conn, err = c.Connection.JavaProperties()
	}
	if err != nil {
		return nil, fmt.Errorf("client %s: %w", cmp.Or(c.Client, ClientJava), err)
	}
	return conn, nil
}

// javaClientPrefix marks the client properties in a runner's
// configuration (ClientSecurity.java and runner.py's client_properties
// copy them into every client).
const javaClientPrefix = "client."

// propertyValue escapes v for a java.util.Properties file: backslashes,
// line ends and a leading space.
func propertyValue(v string) string {
	v = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(v)
	if strings.HasPrefix(v, " ") {
		v = `\` + v
	}
	return v
}

// propertyKey escapes k for a java.util.Properties file.
func propertyKey(k string) string {
	return strings.NewReplacer(`\`, `\\`, "=", `\=`, ":", `\:`, " ", `\ `, "\n", `\n`).Replace(k)
}
