//go:build integration && long

package campaign

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/results/runs"
)

// TestJavaStallIsAFinding is TestStallIsAFinding with the Java runner: its
// one worker wedges on a record (stuck_rate, Member.wedge in the runner),
// so nothing completes while records are available. Beside what every
// client shows (stallOnKafka), the runner JVM's own thread dump (by jcmd,
// showing the worker in the wedge) lies beside run.json; the wedged runner
// is stopped (its JVM is gone when the campaign returns, without the close
// timeout's kill).
func TestJavaStallIsAFinding(t *testing.T) {
	f := stallOnKafka(t, stallCase{
		client: "java", tools: []string{"java", "mvn", "jcmd"}, timeout: 6 * time.Minute, jitWarmup: true,
		files: []string{"stall-threads-client-1.txt"},
		// The wedged worker returns when its member stops: the runner
		// closes its client and exits by itself, not by the harness's kill.
		notFlags: []runs.Code{runs.CodeClientCloseTimeout, runs.CodeClientKilled},
	})
	st := f.stalled.Stall
	if len(st.ClientDumps) != 1 || st.ClientDumps[0].Method != infra.DumpJcmd || st.ClientDumps[0].Runner != "java runner" ||
		!slices.Equal(st.ClientDumps[0].Members, []int{0}) {
		t.Fatalf("%s: client dumps %+v, want the java runner's JVM by jcmd, running member 0", f.stalled.RunID, st.ClientDumps)
	}
	dump, _ := os.ReadFile(filepath.Join(f.dir, "stall-threads-client-1.txt"))
	// A JVM thread dump of the runner: the worker parked in the wedge, and
	// the client's own network thread beside it.
	for _, want := range []string{"Full thread dump", "sharebench.runner.Member.wedge", "consumer_background_thread"} {
		if !strings.Contains(string(dump), want) {
			t.Errorf("%s: the runner's thread dump (%d bytes) lacks %q: %.400s", f.stalled.RunID, len(dump), want, dump)
		}
	}
	if pid := st.ClientDumps[0].PID; testkit.Alive(pid) {
		t.Errorf("%s: the wedged runner's JVM (pid %d) still runs after the campaign", f.stalled.RunID, pid)
	}
	if !strings.Contains(f.clients.Unavailable, "stall-threads-client-") {
		t.Errorf("%s: stall-clients.json unavailable %q: want the runner's dump named", f.stalled.RunID, f.clients.Unavailable)
	}
}
