package consumers

// MemberState is one member's client state at an instant: what a stalled
// run's clients.json records of each member (docs/measurement.md#stalls).
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
// (oldest first), then the crashed ones; nil for the Java runner, whose
// members' state stays in its JVM (Fleet.StatesUnavailable says so).
func (f *Fleet) MemberStates() []MemberState {
	if f.java != nil {
		return nil
	}
	f.mu.Lock()
	ms := append(append([]*member(nil), f.active...), f.crashed...)
	f.mu.Unlock()
	out := make([]MemberState, 0, len(ms))
	for _, m := range ms {
		st := MemberState{ID: m.id, Crashed: m.crashed.Load(), Left: m.pollCtx != nil && m.pollCtx.Err() != nil,
			BusyWorkers: m.busy.Load(), WedgedWorkers: m.wedged.Load()}
		if sh := m.memberRec; sh != nil {
			st.Polls, st.Delivered, st.Completed = sh.Polls.Load(), sh.Delivered.Load(), sh.Completed.Load()
			st.Held = sh.Polled.Load() - st.Completed - sh.Released.Load() - sh.Rejected.Load()
			st.LastDeliveryNs, st.LastFinishNs = sh.LastTimes()
		}
		if cl := m.client.Load(); cl != nil {
			st.BufferedRecords, st.BufferedBytes = cl.BufferedFetchRecords(), cl.BufferedFetchBytes()
		}
		out = append(out, st)
	}
	return out
}

// StatesUnavailable says why MemberStates is empty, "" when it is not.
func (f *Fleet) StatesUnavailable() string {
	if f.java != nil {
		return "the Java runner's members keep their state in its JVM: see the runner's log and the JVM's own thread dump"
	}
	return ""
}
