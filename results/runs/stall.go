package runs

import (
	"fmt"
	"strings"
)

// Stall is what a stalled run recorded (run.json stall): completions
// stopped while records were available, for longer than the run's stall
// bound (docs/explanation/measurement.md#stalls). nil: the run did not stall.
type Stall struct {
	// AtSec is when the stall was detected, seconds since the load started.
	AtSec float64 `json:"at_s"`
	// BoundSec is the stall bound: max(StallHolds × the expected gap
	// between a member's completions, the floor).
	BoundSec float64 `json:"bound_s"`
	// ExpectedGapMs is the expected gap behind BoundSec, ms.
	ExpectedGapMs float64 `json:"expected_gap_ms"`
	// QuietSec is how long nothing completed, from the last completion to
	// the run's stop (or to the completion that ended the stall).
	QuietSec float64 `json:"quiet_s"`
	// Outstanding are the records acknowledged to the producers and not
	// finished (completed or archived) at detection: what was available.
	Outstanding int64 `json:"outstanding"`
	// Lag is the group's lag at detection (the last reading; -1: none).
	Lag int64 `json:"lag"`
	// Recovered: a completion came after the detection and before the run
	// stopped.
	Recovered bool `json:"recovered,omitempty"`
	// Dumps say, per broker, how its threads were dumped (or why not).
	Dumps []StallDump `json:"dumps,omitempty"`
	// ClientDumps say, per client runner JVM (the Java runner's), how its
	// threads were dumped (or why not); none for franz-go, whose members
	// are the harness's own goroutines (stall-clients.json has their state).
	ClientDumps []ClientDump `json:"client_dumps,omitempty"`
	// Files are the dump files beside run.json (also in the record's files).
	Files []string `json:"files,omitempty"`
}

// StallDump is one broker's thread dump as taken at a stall.
type StallDump struct {
	Node   int    `json:"node"`
	Method string `json:"method"` // jcmd Thread.print, SIGQUIT or unavailable
	File   string `json:"file,omitempty"`
	Error  string `json:"error,omitempty"`
}

// ClientDump is one client runner JVM's thread dump as taken at a stall.
type ClientDump struct {
	Runner  string `json:"runner"` // "java runner"
	PID     int    `json:"pid"`
	Members []int  `json:"members,omitempty"` // the members it ran
	Method  string `json:"method"`            // jcmd Thread.print or unavailable
	File    string `json:"file,omitempty"`
	Error   string `json:"error,omitempty"`
}

// stallFlag is the stalled flag's message.
func (s *Stall) flag() Flag {
	msg := fmt.Sprintf("completions stopped for %.1f s (bound %.1f s) with %d records acknowledged and unfinished", s.QuietSec, s.BoundSec, s.Outstanding)
	if s.Lag >= 0 {
		msg += fmt.Sprintf(", lag %d", s.Lag)
	}
	if s.Recovered {
		msg += "; completions resumed later"
	}
	var notes []string
	for _, d := range s.Dumps {
		if d.File != "" {
			notes = append(notes, d.File)
		} else {
			notes = append(notes, fmt.Sprintf("broker %d: no dump (%s)", d.Node, d.Error))
		}
	}
	for _, d := range s.ClientDumps {
		if d.File == "" {
			notes = append(notes, fmt.Sprintf("%s pid %d: no dump (%s)", d.Runner, d.PID, d.Error))
		}
	}
	if len(s.Files) > 0 || len(notes) > 0 {
		msg += ": a broker or client bug, or a wedged client; see " + strings.Join(uniq(append(notes, s.Files...)), ", ")
	}
	return Flag{Code: CodeStalled, Message: msg}
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
