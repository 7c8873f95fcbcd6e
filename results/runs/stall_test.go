package runs

import (
	"strings"
	"testing"
)

// The stalled flag names every dump file, and says why a broker or a
// client runner JVM has none.
func TestStallFlagNamesClientDumps(t *testing.T) {
	s := &Stall{BoundSec: 20, QuietSec: 21, Outstanding: 7, Lag: -1,
		Dumps: []StallDump{{Node: 1, Method: "jcmd Thread.print", File: "stall-threads-broker-1.txt"}},
		ClientDumps: []ClientDump{
			{Runner: "java runner", PID: 41, Members: []int{0}, Method: "jcmd Thread.print", File: "stall-threads-client-1.txt"},
			{Runner: "java runner", PID: 42, Members: []int{1}, Method: "unavailable", Error: "jcmd: no answer within 15s"},
		},
		Files: []string{"stall-threads-broker-1.txt", "stall-threads-client-1.txt", "stall-clients.json"}}
	msg := s.flag().Message
	for _, want := range []string{"stall-threads-broker-1.txt", "stall-threads-client-1.txt", "stall-clients.json",
		"java runner pid 42: no dump (jcmd: no answer within 15s)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("flag %q lacks %q", msg, want)
		}
	}
	if strings.Count(msg, "stall-threads-client-1.txt") != 1 {
		t.Errorf("flag %q names a file twice", msg)
	}
}
