package infra

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// ThreadDump is one broker's threads at an instant: what a stalled run
// saves beside its run.json (docs/explanation/measurement.md#stalls).
type ThreadDump struct {
	Node int `json:"node"`
	PID  int `json:"pid,omitempty"`
	// Method is how the dump was taken: "jcmd Thread.print", "SIGQUIT"
	// (the JVM printed it to its log; Text is the part it appended) or
	// "unavailable".
	Method string `json:"method"`
	Text   string `json:"-"`
	// Err says why there is no dump, or why jcmd failed before SIGQUIT.
	Err string `json:"error,omitempty"`
}

// Thread-dump methods.
const (
	DumpJcmd        = "jcmd Thread.print"
	DumpSignal      = "SIGQUIT"
	DumpUnavailable = "unavailable"
)

// threadDumpTimeout bounds each broker's dump: a wedged or paused JVM
// (broker_pause) never answers jcmd.
const threadDumpTimeout = 15 * time.Second

// maxDumpBytes bounds one dump's text.
const maxDumpBytes = 8 << 20

// ThreadDumper is a cluster that can dump its brokers' threads.
type ThreadDumper interface {
	ThreadDumps(ctx context.Context) []ThreadDump
}

// ThreadDumpsOf dumps cl's brokers' threads, each bounded in time; a
// cluster that cannot (kfake, external) gives one "unavailable" entry
// saying why.
func ThreadDumpsOf(ctx context.Context, cl Cluster) []ThreadDump {
	if d, ok := cl.(ThreadDumper); ok {
		return d.ThreadDumps(ctx)
	}
	return []ThreadDump{{Method: DumpUnavailable,
		Err: fmt.Sprintf("the %s provider has no broker JVM on this host to dump", cl.Provider())}}
}

// ThreadDumps dumps every running broker JVM with jcmd (beside the java
// that runs them), falling back to SIGQUIT, whose dump the JVM writes to
// the broker's log: the text appended to the log within a few seconds is
// kept.
func (c *processCluster) ThreadDumps(ctx context.Context) []ThreadDump {
	c.mu.Lock()
	type target struct {
		node, pid int
		log       string
		paused    bool
	}
	var ts []target
	for _, b := range c.brokers {
		if !b.proc.exited() {
			ts = append(ts, target{b.addr.ID, b.proc.pid(), b.logPath, b.state == brokerPaused})
		}
	}
	c.mu.Unlock()
	jcmd := jcmdBeside(c.java.Path)
	var out []ThreadDump
	for _, t := range ts {
		d := ThreadDump{Node: t.node, PID: t.pid}
		if t.paused {
			d.Method, d.Err = DumpUnavailable, "the broker is paused (SIGSTOP by a broker_pause fault): a stopped JVM answers nothing"
			out = append(out, d)
			continue
		}
		out = append(out, dumpProcess(ctx, jcmd, d, t.log))
	}
	return out
}

// dumpProcess dumps the JVM d.PID with jcmd, falling back to SIGQUIT (the
// dump the JVM appends to logPath) when jcmd fails; d says how, or why
// neither worked.
func dumpProcess(ctx context.Context, jcmd string, d ThreadDump, logPath string) ThreadDump {
	text, err := runJcmd(ctx, jcmd, d.PID)
	if err == nil {
		d.Method, d.Text = DumpJcmd, text
		return d
	}
	d.Err = "jcmd: " + err.Error()
	if text, serr := dumpBySignal(ctx, d.PID, logPath); serr == nil {
		d.Method, d.Text = DumpSignal, text
	} else {
		d.Method, d.Err = DumpUnavailable, d.Err+"; SIGQUIT: "+serr.Error()
	}
	return d
}

// ClientThreadDump dumps a client JVM on this host (the Java runner's) by
// jcmd alone: the jcmd beside the java on PATH (which started the runner),
// or on PATH. There is no SIGQUIT fallback: the runner's JVM would print
// the dump to its stdout, which is the runner's frame stream to the
// harness, and corrupt it; a JVM jcmd cannot reach is reported unavailable
// with jcmd's error.
func ClientThreadDump(ctx context.Context, pid int) ThreadDump {
	jcmd := "jcmd"
	if java, err := exec.LookPath("java"); err == nil {
		jcmd = jcmdBeside(java)
	}
	return clientThreadDump(ctx, jcmd, pid)
}

func clientThreadDump(ctx context.Context, jcmd string, pid int) ThreadDump {
	d := ThreadDump{PID: pid}
	text, err := runJcmd(ctx, jcmd, pid)
	if err != nil {
		d.Method, d.Err = DumpUnavailable, "jcmd: "+err.Error()+" (no SIGQUIT: the runner's stdout is its frame stream)"
		return d
	}
	d.Method, d.Text = DumpJcmd, text
	return d
}

// jcmdBeside is the jcmd of the JDK whose java is javaPath ("jcmd" on PATH
// when there is none beside it).
func jcmdBeside(javaPath string) string {
	if real, err := filepath.EvalSymlinks(javaPath); err == nil {
		javaPath = real
	}
	p := filepath.Join(filepath.Dir(javaPath), "jcmd")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return "jcmd"
}

func runJcmd(ctx context.Context, jcmd string, pid int) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, threadDumpTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, jcmd, strconv.Itoa(pid), "Thread.print", "-l")
	cmd.WaitDelay = time.Second
	b, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return "", fmt.Errorf("no answer within %v", threadDumpTimeout)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, tailString(b, 300))
	}
	if len(b) > maxDumpBytes {
		b = b[:maxDumpBytes]
	}
	return string(b), nil
}

// dumpBySignal sends SIGQUIT to pid and returns what the JVM appended to
// its log (logPath) in the next seconds.
func dumpBySignal(ctx context.Context, pid int, logPath string) (string, error) {
	if !canDumpBySignal {
		return "", errors.New("no SIGQUIT on this platform")
	}
	st, err := os.Stat(logPath)
	if err != nil {
		return "", err
	}
	if err := signalPid(pid, dumpSignal); err != nil {
		return "", err
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(3 * time.Second):
	}
	f, err := os.Open(logPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.Seek(st.Size(), io.SeekStart); err != nil {
		return "", err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxDumpBytes))
	if err != nil {
		return "", err
	}
	if len(b) == 0 {
		return "", fmt.Errorf("nothing appended to %s within 3s", filepath.Base(logPath))
	}
	return string(b), nil
}

func tailString(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// ThreadDumps sends SIGQUIT to every running broker container (the image
// has a JRE without jcmd) and keeps what the JVM printed to the
// container's output in the next seconds.
func (c *containerCluster) ThreadDumps(ctx context.Context) []ThreadDump {
	var out []ThreadDump
	for _, n := range c.nodes {
		d := ThreadDump{Node: n.id, Method: DumpUnavailable}
		st, err := c.state(ctx, n)
		switch {
		case err != nil:
			d.Err = err.Error()
		case !st.Running:
			d.Err = "the broker container is not running"
		case st.Paused:
			d.Err = "the broker container is paused: a frozen JVM answers nothing"
		default:
			d.PID = st.Pid
			if text, err := c.dumpBySignal(ctx, n); err != nil {
				d.Err = "SIGQUIT: " + err.Error()
			} else {
				d.Method, d.Text = DumpSignal, text
			}
		}
		out = append(out, d)
	}
	return out
}

func (c *containerCluster) dumpBySignal(ctx context.Context, n *ctrNode) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, threadDumpTimeout)
	defer cancel()
	since := time.Now().Add(-time.Second)
	if _, err := c.dc.ContainerKill(ctx, n.containerID, client.ContainerKillOptions{Signal: "QUIT"}); err != nil {
		return "", err
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(3 * time.Second):
	}
	rc, err := c.dc.ContainerLogs(ctx, n.containerID, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true,
		Since: since.Format(time.RFC3339Nano)})
	if err != nil {
		return "", err
	}
	defer rc.Close()
	var b limitedBuffer
	if _, err := stdcopy.StdCopy(&b, &b, rc); err != nil && b.Len() == 0 {
		return "", err
	}
	if b.Len() == 0 {
		return "", errors.New("the container printed nothing within 3s")
	}
	return b.String(), nil
}

// limitedBuffer keeps the first maxDumpBytes written to it.
type limitedBuffer struct{ buf []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxDumpBytes - len(l.buf); room > 0 {
		l.buf = append(l.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
func (l *limitedBuffer) Len() int       { return len(l.buf) }
func (l *limitedBuffer) String() string { return string(l.buf) }
