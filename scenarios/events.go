package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/vocab"
)

// Event is one scheduled change inside a run's measurement window (the
// top-level events: list). Events are not a sweep dimension: every run of
// the scenario gets the same list, recorded in its spec (run.json).
type Event struct {
	// At is the offset into the measurement window, 0 ≤ at < duration.
	At time.Duration `json:"at"`
	// Action is join, leave, crash, slow, broker_kill, broker_restart,
	// broker_pause, broker_disconnect, broker_rolling_restart or
	// broker_rolling_upgrade.
	Action string `json:"action"`
	// Members joins, leaves or crashes this many members (default 1; at
	// most 1000, and the group never holds more than 1000 members).
	Members int `json:"members,omitempty"`
	// Factor multiplies the processing time (slow; 1 < factor ≤ 1000, the
	// harness's limit: beyond it a slow-down is a stall).
	Factor float64 `json:"factor,omitempty"`
	// Duration is how long slow, broker_pause and broker_disconnect last
	// (> 0), and how long a killed broker stays down (broker_kill; 0: for
	// the rest of the run); at most 168h.
	Duration time.Duration `json:"duration,omitempty"`
	// Broker names the broker of a broker action: a node id 1..nodes,
	// share-coordinator, group-coordinator or partition-leader (of
	// partition 0 of the run's topic).
	Broker string `json:"broker,omitempty"`
	// Pause is the wait after each broker of a rolling restart or upgrade
	// is back (rejoined, no under-replicated partition), before the next
	// broker's shutdown and after the last (default 10s; 0s ≤ pause ≤ 10m).
	Pause time.Duration `json:"pause,omitempty"`
	// KafkaVersion is the release a rolling upgrade restarts every broker
	// on (broker_rolling_upgrade only; ≥ the run's kafka_version).
	KafkaVersion string `json:"kafka_version,omitempty"`
}

// Rolling restart and upgrade bounds.
const (
	// DefaultRollingPause is the pause between brokers when the event
	// names none: time for the clients to settle on the moved leaders and
	// coordinators before the next broker goes.
	DefaultRollingPause = 10 * time.Second
	// MaxRollingPause bounds the pause between brokers.
	MaxRollingPause = 10 * time.Minute
)

// maxSlowFactor bounds a slow event's factor.
const maxSlowFactor = 1000

// Event actions.
const (
	ActionJoin             = "join"
	ActionLeave            = "leave"
	ActionCrash            = "crash"
	ActionSlow             = "slow"
	ActionBrokerKill       = "broker_kill"
	ActionBrokerRestart    = "broker_restart"
	ActionBrokerPause      = "broker_pause"
	ActionBrokerDisconnect = "broker_disconnect"
	// ActionBrokerRollingRestart restarts every broker in turn (controlled
	// shutdown, start, rejoined with no under-replicated partition, pause).
	ActionBrokerRollingRestart = "broker_rolling_restart"
	// ActionBrokerRollingUpgrade does the same, each broker started again
	// on the jars (or image) of the event's kafka_version.
	ActionBrokerRollingUpgrade = "broker_rolling_upgrade"
)

// Rolling reports whether the action restarts every broker in turn.
func (e Event) Rolling() bool {
	return e.Action == ActionBrokerRollingRestart || e.Action == ActionBrokerRollingUpgrade
}

var (
	eventActions = []string{ActionJoin, ActionLeave, ActionCrash, ActionSlow,
		ActionBrokerKill, ActionBrokerRestart, ActionBrokerPause, ActionBrokerDisconnect,
		ActionBrokerRollingRestart, ActionBrokerRollingUpgrade}
	eventKeys     = []string{"at", "action", "members", "factor", "duration", "broker", "pause", "kafka_version"}
	brokerTargets = []string{"share-coordinator", "group-coordinator", "partition-leader"}
)

// String is a short label: "join 2", "slow ×3 for 5s", "broker_kill 1".
func (e Event) String() string {
	s := e.Action
	switch e.Action {
	case ActionJoin, ActionLeave, ActionCrash:
		s += " " + strconv.Itoa(e.Members)
	case ActionSlow:
		s += " ×" + strconv.FormatFloat(e.Factor, 'f', -1, 64)
	case ActionBrokerRollingRestart:
		return s + ", pause " + e.Pause.String()
	case ActionBrokerRollingUpgrade:
		return s + " to " + e.KafkaVersion + ", pause " + e.Pause.String()
	default:
		s += " " + e.Broker
	}
	if e.Duration > 0 {
		s += " for " + e.Duration.String()
	}
	return s
}

// events checks the events: list and collects its events. Checks that need
// a run's values (duration, members, nodes) are RunSpec.checkEvents.
func (c *fileChecker) events(v *yaml.Node) {
	if v.Kind != yaml.SequenceNode {
		c.errorf(v.Line, "events: expected a list of events like - {at: 10s, action: join, members: 2}, got %s", nodeKind(v))
		return
	}
	if c.longList("events", v, maxEvents, "every run carries and checks each event") {
		return
	}
	for i, item := range v.Content {
		where := fmt.Sprintf("events[%d]", i+1)
		c.info.lines[where] = resolve(item).Line
		if e, ok := c.event(where, resolve(item)); ok {
			c.info.events = append(c.info.events, e)
		}
	}
}

// event parses one events: item.
func (c *fileChecker) event(where string, n *yaml.Node) (Event, bool) {
	e := Event{Members: 1}
	if n.Kind != yaml.MappingNode {
		c.errorf(n.Line, "%s: expected a map with keys %s, got %s", where, strings.Join(eventKeys, ", "), nodeKind(n))
		return e, false
	}
	ok := true
	bad := func(line int, key, format string, args ...any) {
		c.errorf(line, "%s.%s: %s", where, key, fmt.Sprintf(format, args...))
		ok = false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], resolve(n.Content[i+1])
		if !slices.Contains(eventKeys, k.Value) {
			c.errorf(k.Line, "%s: unknown key %q%s", where, k.Value, suggest(k.Value, eventKeys))
			ok = false
			continue
		}
		seen[k.Value] = true
		if val.Kind != yaml.ScalarNode || isNull(val) {
			bad(val.Line, k.Value, "expected a single value, got %s", nodeKind(val))
			continue
		}
		switch k.Value {
		case "pause":
			d, err := time.ParseDuration(val.Value)
			if err != nil || d < 0 || d > MaxRollingPause {
				bad(val.Line, k.Value, "expected a Go duration from 0s to %v like 10s (the wait between brokers), got %q", MaxRollingPause, val.Value)
			}
			e.Pause = d
		case "kafka_version":
			e.KafkaVersion = val.Value
			if !parseable(val.Value) {
				bad(val.Line, k.Value, "expected a Kafka release like \"4.3.1\", got %q", val.Value)
			} else if !VersionAtLeast(val.Value, MinKafkaVersion) {
				bad(val.Line, k.Value, "must be a release the harness runs, %s or newer, got %q", MinKafkaVersion, val.Value)
			}
		case "at", "duration":
			d, err := time.ParseDuration(val.Value)
			if err != nil || d < 0 {
				bad(val.Line, k.Value, "expected a Go duration ≥ 0 like 10s, got %q", val.Value)
			} else if d > maxPhase {
				bad(val.Line, k.Value, "must be ≤ 168h (7 days, the harness's limit), got %v", d)
			} else if k.Value == "at" {
				e.At = d
			} else {
				e.Duration = d
			}
		case "action":
			if !slices.Contains(eventActions, val.Value) {
				bad(val.Line, k.Value, "expected one of %s, got %q", strings.Join(eventActions, ", "), val.Value)
			}
			e.Action = val.Value
		case "members":
			m, err := strconv.Atoi(val.Value)
			if err != nil || m < 1 || m > maxMembersLimit {
				bad(val.Line, k.Value, "expected an integer from 1 to %d (the harness's member limit), got %q", maxMembersLimit, val.Value)
			}
			e.Members = m
		case "factor":
			f, err := parseFinite(val.Value)
			if err != nil || !(f > 1 && f <= maxSlowFactor) {
				bad(val.Line, k.Value, "expected a number > 1 and ≤ %d (processing time × factor; %d is the harness's limit), got %q",
					maxSlowFactor, maxSlowFactor, val.Value)
			}
			e.Factor = f
		case "broker":
			e.Broker = val.Value
			if id, err := strconv.Atoi(val.Value); (err != nil || id < 1) && !slices.Contains(brokerTargets, val.Value) {
				bad(val.Line, k.Value, "expected a node id ≥ 1 or one of %s, got %q", strings.Join(brokerTargets, ", "), val.Value)
			}
		}
	}
	if !ok {
		return e, false
	}
	for _, req := range []string{"at", "action"} {
		if !seen[req] {
			bad(n.Line, req, "required")
		}
	}
	for _, p := range e.keyProblems(seen) {
		bad(n.Line, p[0], "%s", p[1])
	}
	if e.Action != ActionJoin && e.Action != ActionLeave && e.Action != ActionCrash {
		e.Members = 0
	}
	if e.Rolling() && !seen["pause"] {
		e.Pause = DefaultRollingPause
	}
	return e, ok
}

// keyProblems checks which keys the action needs and allows.
func (e Event) keyProblems(seen map[string]bool) [][2]string {
	var out [][2]string
	need := func(key, what string) {
		if !seen[key] {
			out = append(out, [2]string{key, "required with action " + e.Action + ": " + what})
		}
	}
	refuse := func(keys ...string) {
		for _, k := range keys {
			if seen[k] {
				out = append(out, [2]string{k, "not used by action " + e.Action + "; remove it"})
			}
		}
	}
	switch e.Action {
	case ActionJoin, ActionLeave, ActionCrash:
		refuse("factor", "duration", "broker", "pause", "kafka_version")
	case ActionBrokerRollingRestart, ActionBrokerRollingUpgrade:
		refuse("members", "factor", "duration", "broker")
		if e.Action == ActionBrokerRollingUpgrade {
			need("kafka_version", "the Kafka release every broker is restarted on, like 4.3.1 (≥ the run's kafka_version)")
		} else {
			refuse("kafka_version")
		}
	case ActionSlow:
		refuse("members", "broker", "pause", "kafka_version")
		need("factor", fmt.Sprintf("the processing-time multiplier, a number > 1 and ≤ %d", maxSlowFactor))
		need("duration", "how long the slow-down lasts, a Go duration > 0")
	case ActionBrokerKill, ActionBrokerRestart, ActionBrokerPause, ActionBrokerDisconnect:
		refuse("members", "factor")
		need("broker", "a node id or "+strings.Join(brokerTargets, ", "))
		if e.Action == ActionBrokerRestart {
			refuse("duration")
		}
		refuse("pause", "kafka_version")
		if e.Action == ActionBrokerPause || e.Action == ActionBrokerDisconnect {
			need("duration", "how long the fault lasts, a Go duration > 0")
		}
	}
	if seen["duration"] && e.Duration == 0 && (e.Action == ActionSlow || e.Action == ActionBrokerPause || e.Action == ActionBrokerDisconnect) {
		out = append(out, [2]string{"duration", "must be > 0 with action " + e.Action + ", got 0s"})
	}
	return out
}

// checkEvents checks the events against the run: offsets inside the
// window, leaves and crashes that keep at least one member, broker ids that
// exist. The modes with a window call it (rate, max_rate); load_mode
// backlog refuses events (a drain has no window fixed in advance to place
// them in).
func (r RunSpec) checkEvents(p *problems) {
	if len(r.Events) == 0 {
		return
	}
	if n := r.MaxMembers(); n > maxMembersLimit {
		p.addf("events", "members (%d) plus every join reach %d members; the harness's limit is %d", r.Members, n, maxMembersLimit)
	}
	members := r.Members
	order := slices.Clone(r.Events)
	idx := make([]int, len(order))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return int(order[a].At - order[b].At) })
	for _, i := range idx {
		e, key := r.Events[i], fmt.Sprintf("events[%d]", i+1)
		if e.At >= r.Duration {
			p.addf(key+".at", "must be < duration (%v), an offset into the measurement window, got %v", r.Duration, e.At)
		}
		switch e.Action {
		case ActionJoin:
			members += e.Members
		case ActionLeave, ActionCrash:
			if e.Members >= members {
				p.addf(key+".members", "must be < the %d member(s) in the group at %v: at least one member must stay, got %d", members, e.At, e.Members)
			}
			members -= e.Members
		}
		if id, err := strconv.Atoi(e.Broker); err == nil && id > r.Nodes {
			p.addf(key+".broker", "node id must be in 1..nodes (%d), got %d", r.Nodes, id)
		}
		if e.Broker == "share-coordinator" && r.ConsumerType != vocab.ShareGroup {
			p.addf(key+".broker", "share-coordinator needs consumer_type share, got %q; use group-coordinator or partition-leader", r.ConsumerType)
		}
		r.checkRolling(p, key, e)
	}
	if n := r.rollingUpgrades(); n > 1 {
		p.addf("events", "at most one broker_rolling_upgrade per run (each broker moves to one release), got %d", n)
	}
}

// checkRolling checks a rolling restart or upgrade against the run: it
// needs more than one node (a rolling restart of a single broker is a
// restart: use broker_restart, which says so), and an upgrade's release
// must not be older than the run's (a rolling downgrade is not offered).
func (r RunSpec) checkRolling(p *problems, key string, e Event) {
	if !e.Rolling() {
		return
	}
	if r.Nodes < 2 {
		p.addf(key+".action", "%s needs nodes 3: with nodes %d there is no other broker to carry the load while one restarts "+
			"(use action broker_restart to restart the single broker)", e.Action, r.Nodes)
	}
	if e.Action == ActionBrokerRollingUpgrade && parseable(e.KafkaVersion) && parseable(r.KafkaVersion) &&
		!VersionAtLeast(e.KafkaVersion, r.KafkaVersion) {
		p.addf(key+".kafka_version", "must be ≥ the run's kafka_version %s (an upgrade; downgrades are not offered), got %s", r.KafkaVersion, e.KafkaVersion)
	}
}

// rollingUpgrades counts the run's broker_rolling_upgrade events.
func (r RunSpec) rollingUpgrades() int {
	n := 0
	for _, e := range r.Events {
		if e.Action == ActionBrokerRollingUpgrade {
			n++
		}
	}
	return n
}

// RollingUpgrade returns the run's rolling upgrade target release, or ""
// when it has none: such a run gets a cluster of its own (its brokers end
// on another release than the one the cluster was started on).
func (r RunSpec) RollingUpgrade() string {
	for _, e := range r.Events {
		if e.Action == ActionBrokerRollingUpgrade {
			return e.KafkaVersion
		}
	}
	return ""
}

// MaxMembers is the most members the group has at any time: members plus
// every join.
func (r RunSpec) MaxMembers() int {
	n := max(r.Members, r.AutoscaleMax())
	for _, e := range r.Events {
		if e.Action == ActionJoin {
			n += e.Members
		}
	}
	return n
}
