package consumers

import (
	"maps"
	"slices"

	"github.com/sharebench/sharebench/results"
)

// MemberState is one member's client state at an instant: what a stalled
// run's clients.json records of each member (docs/explanation/measurement.md#stalls).
type MemberState struct {
	ID      int  `json:"id"`
	Crashed bool `json:"crashed,omitempty"`
	// Left: the member stopped polling (a leave event or a crash).
	Left bool `json:"left,omitempty"`
	// Polls are the polls returned so far; Delivered the records handed to
	// its workers, Completed those completed.
	Polls     int64 `json:"polls"`
	Delivered int64 `json:"delivered"`
	Completed int64 `json:"completed"`
	// Held is polled − completed − released − rejected: the records the
	// member holds (in its workers or waiting for one).
	Held int64 `json:"held"`
	// BusyWorkers are inside a record now, WedgedWorkers on a stuck one
	// (stuck_rate), never to return until the member stops.
	BusyWorkers   int64 `json:"busy_workers"`
	WedgedWorkers int64 `json:"wedged_workers,omitempty"`
	// LastDeliveryNs and LastFinishNs are its latest delivery and its latest
	// completion or archive, Clock ns (0: none yet).
	LastDeliveryNs int64 `json:"last_delivery_ns,omitempty"`
	LastFinishNs   int64 `json:"last_finish_ns,omitempty"`
	// BufferedRecords and BufferedBytes are what franz-go has fetched and
	// not yet returned from a poll (kgo.Client.BufferedFetchRecords).
	BufferedRecords int64 `json:"buffered_records"`
	BufferedBytes   int64 `json:"buffered_bytes"`
}

// MemberStates are the states of the fleet's members, running ones first
// (oldest first), then the crashed ones. A client runner's (Java,
// librdkafka) running members give what their frames told the harness:
// polls, records delivered, completed and held, the last times; their busy
// workers and fetched records stay in the runner (0 here;
// Fleet.StatesUnavailable says so).
func (f *Fleet) MemberStates() []MemberState {
	if f.java != nil {
		return f.java.memberStates()
	}
	f.mu.Lock()
	ms := append(append([]*member(nil), f.active...), f.crashed...)
	f.mu.Unlock()
	out := make([]MemberState, 0, len(ms))
	for _, m := range ms {
		st := recorderState(m.id, m.memberRec)
		st.Crashed, st.Left = m.crashed.Load(), m.pollCtx != nil && m.pollCtx.Err() != nil
		st.BusyWorkers, st.WedgedWorkers = m.busy.Load(), m.wedged.Load()
		if cl := m.client.Load(); cl != nil {
			st.BufferedRecords, st.BufferedBytes = cl.BufferedFetchRecords(), cl.BufferedFetchBytes()
		}
		out = append(out, st)
	}
	return out
}

// recorderState is what a member's recorder knows of it (sh nil: only
// the id).
func recorderState(id int, sh *results.MemberRecorder) MemberState {
	st := MemberState{ID: id}
	if sh != nil {
		st.Polls, st.Delivered, st.Completed = sh.Polls.Load(), sh.Delivered.Load(), sh.Completed.Load()
		st.Held = sh.Polled.Load() - st.Completed - sh.Released.Load() - sh.Rejected.Load()
		st.LastDeliveryNs, st.LastFinishNs = sh.LastTimes()
	}
	return st
}

// memberStates are the running members' states from their frames, oldest
// first.
func (j *javaFleet) memberStates() []MemberState {
	j.mu.RLock()
	ids := slices.Clone(j.active)
	j.mu.RUnlock()
	out := make([]MemberState, 0, len(ids))
	for _, id := range ids {
		out = append(out, recorderState(id, j.owner(id).memberRec(id)))
	}
	return out
}

// StatesUnavailable says what MemberStates lacks, "" when nothing.
func (f *Fleet) StatesUnavailable() string {
	if f.java != nil {
		where := "see the runner's log"
		if f.c.Client.JVM() {
			where = "the runner's thread dump (stall-threads-client-*.txt) shows where its workers are"
		}
		return f.java.name + ": polls, delivered, completed, held and the last times come from the runner's frames; " +
			"its busy workers and fetched records stay in the runner (0 here): " + where
	}
	return ""
}

// RunnerProcess is a running client runner process of the fleet: what a
// stall dumps the threads of (a JVM of the Java runner).
type RunnerProcess struct {
	// Name is the runner ("java runner"); PID its process; Members the
	// members it runs now.
	Name    string
	PID     int
	Members []int
}

// RunnerProcesses are the fleet's Java runner JVMs still running (the
// fleet's own, then those of members a crash will take, by member); none
// for franz-go (its members are this process) or the librdkafka runner (a
// Python process: no JVM to dump).
func (f *Fleet) RunnerProcesses() []RunnerProcess {
	if f.java == nil || !f.c.Client.JVM() {
		return nil
	}
	j := f.java
	j.mu.RLock()
	active := slices.Clone(j.active)
	j.mu.RUnlock()
	var out []RunnerProcess
	for _, o := range append([]*javaFleet{j}, sortedOwn(j.own)...) {
		p := RunnerProcess{Name: o.name, PID: o.pid()}
		if p.PID == 0 {
			continue
		}
		for _, id := range active {
			if j.owner(id) == o {
				p.Members = append(p.Members, id)
			}
		}
		out = append(out, p)
	}
	return out
}

// sortedOwn are a fleet's JVMs of their own, by member id.
func sortedOwn(own map[int]*javaFleet) []*javaFleet {
	out := make([]*javaFleet, 0, len(own))
	for _, id := range slices.Sorted(maps.Keys(own)) {
		out = append(out, own[id])
	}
	return out
}

// pid is the runner's process id while it runs; 0 once it has been reaped
// (or killed on purpose).
func (j *javaFleet) pid() int {
	select {
	case <-j.done:
		return 0
	default:
	}
	j.mu.RLock()
	defer j.mu.RUnlock()
	if j.crashKilled || j.cmd == nil || j.cmd.Process == nil {
		return 0
	}
	return j.cmd.Process.Pid
}
