package runs

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// destinationRecord is a consistent run with a destination, made by the
// pieces a run uses: a ledger of 10 records produced and completed (one
// of them twice), the table read back with one row per record (the
// redelivered one upserted twice) and reconciled, the flags the counts
// raise.
func destinationRecord(t *testing.T) Record {
	t.Helper()
	l := results.NewLedger(1, 16)
	var rows []results.DestinationRows
	for seq := range uint64(10) {
		l.Produced(0, seq)
		l.Completed(0, seq)
		rows = append(rows, results.DestinationRows{Producer: 0, Seq: seq, Rows: 1, Writes: 1})
	}
	l.Completed(0, 3)
	rows[3].Writes = 2
	spec := &scenarios.Destination{Kind: "postgres", Key: "offset", Idempotent: true, BatchSize: 1, Pool: 2}
	audit := results.ReconcileDestination(l, 11, 0, true, rows)
	r := Record{RunID: "r01-share", Spec: &scenarios.RunSpec{ConsumerType: vocab.ShareGroup},
		Audit:       l.Audit(),
		Destination: &Destination{Kind: "postgres", Key: "offset", Idempotent: true, BatchSize: 1, Pool: 2, ServiceMs: 0.8, DestinationAudit: &audit}}
	r.Spec.Destination = spec
	for _, f := range DestinationFlags(r.Destination) {
		r.Validity.Flag(f)
	}
	if p := IntegrityProblems(r); len(p) != 0 {
		t.Fatalf("the consistent destination record: %v", p)
	}
	return r
}

// The gate recomputes the destination block from its counts: a record
// made by the reconciliation passes; each count a read-back could not have
// made, a block the spec asks for and the record lacks, and a flag the
// counts raise and the record lacks is named inconsistent, and fails the
// gate and the verdict.
func TestDestinationIntegrity(t *testing.T) {
	// A table that does not reconcile, with the flag it raises, is
	// consistent: the flag fails it (TestVerdictFlags), not the arithmetic.
	missing := destinationRecord(t)
	a := *missing.Destination.DestinationAudit
	a.Records, a.Rows, a.TableWrites, a.Writes, a.DuplicatesAbsorbed, a.Missing = 7, 7, 7, 7, 0, 3
	missing.Destination.DestinationAudit = &a
	missing.Validity = Validity{}
	for _, f := range DestinationFlags(missing.Destination) {
		missing.Validity.Flag(f)
	}
	if p := IntegrityProblems(missing); len(p) != 0 {
		t.Errorf("3 missing, flagged: %v", p)
	}
	nonIdem := destinationRecord(t)
	nonIdem.Spec.Destination = &scenarios.Destination{Kind: "postgres", Key: "offset", BatchSize: 1, Pool: 2}
	nonIdem.Destination.Idempotent = false
	na := *nonIdem.Destination.DestinationAudit
	na.Rows, na.DuplicateRows, na.DuplicatesAbsorbed = 11, 1, 0 // a row per write
	nonIdem.Destination.DestinationAudit = &na
	if p := IntegrityProblems(nonIdem); len(p) != 0 {
		t.Errorf("no key, a duplicate row: %v", p)
	}
	for name, tc := range map[string]struct {
		mut  func(r *Record, a *results.DestinationAudit)
		want string
	}{
		"block absent, spec has one":     {func(r *Record, _ *results.DestinationAudit) { r.Destination = nil }, "destination absent from run.json, but the spec has a destination: block"},
		"block without the spec's":       {func(r *Record, _ *results.DestinationAudit) { r.Spec.Destination = nil }, "the spec has no destination: block"},
		"pool not the spec's":            {func(r *Record, _ *results.DestinationAudit) { r.Destination.Pool = 9 }, "pool 9"},
		"idempotent not the spec's":      {func(r *Record, _ *results.DestinationAudit) { r.Destination.Idempotent = false }, "idempotent false"},
		"service_ms NaN":                 {func(r *Record, _ *results.DestinationAudit) { r.Destination.ServiceMs = math.NaN() }, "destination.service_ms = NaN"},
		"write_ms.p99 -1":                {func(r *Record, _ *results.DestinationAudit) { r.Destination.WriteMs.P99 = -1 }, "destination.write_ms.p99 = -1"},
		"rows -1":                        {func(_ *Record, a *results.DestinationAudit) { a.Rows = -1 }, "destination.rows = -1 is negative"},
		"writes -400":                    {func(_ *Record, a *results.DestinationAudit) { a.Writes = -400 }, "destination.writes = -400 is negative"},
		"missing -3":                     {func(_ *Record, a *results.DestinationAudit) { a.Missing = -3 }, "destination.missing = -3 is negative"},
		"rows beyond the records":        {func(_ *Record, a *results.DestinationAudit) { a.Rows = 15 }, "destination.rows = 15, but records 10 + duplicate_rows 0 + foreign 0 = 10"},
		"rows beyond the table's writes": {func(_ *Record, a *results.DestinationAudit) { a.TableWrites, a.Writes = 9, 9 }, "destination.rows = 10 is more than the 9 writes the table applied"},
		"duplicates_absorbed not writes − rows": {func(_ *Record, a *results.DestinationAudit) { a.DuplicatesAbsorbed = -5 },
			"destination.duplicates_absorbed = -5, but writes 11 − rows 10 = 1"},
		"duplicates_absorbed without a key": {func(r *Record, a *results.DestinationAudit) {
			r.Spec.Destination.Idempotent, r.Destination.Idempotent = false, false
		}, "destination.duplicates_absorbed = 1 without a key"},
		"written_not_completed beyond the records": {func(_ *Record, a *results.DestinationAudit) { a.WrittenNotCompleted = 11; a.Missing = 11 },
			"destination.written_not_completed = 11 is more than the 10 records"},
		"table missing completed records": {func(_ *Record, a *results.DestinationAudit) {
			a.Records, a.Rows, a.TableWrites, a.Writes, a.DuplicatesAbsorbed = 7, 7, 7, 7, 0
		}, "= 7 completed records, but the audit completed 10"},
		"table holds more completed than the audit": {func(_ *Record, a *results.DestinationAudit) { a.Missing = 4 }, "= 14 completed records, but the audit completed 10"},
		"table applied more than attempted": {func(_ *Record, a *results.DestinationAudit) { a.TableWrites = 40 },
			"destination.table_writes = 40 is more than the 11 writes the members attempted"},
		"0 of 400 applied, unflagged": {func(r *Record, a *results.DestinationAudit) {
			r.Audit = results.Audit{Produced: 400, CompletedOnce: 400, Balanced: true}
			*a = results.DestinationAudit{Writes: 400, Missing: 400, DuplicatesAbsorbed: 400}
		}, "validity.flags lacks destination_unreconciled"},
		"write errors, unflagged":        {func(_ *Record, a *results.DestinationAudit) { a.WriteErrors = 2 }, "validity.flags lacks destination_write_errors"},
		"table not read back, unflagged": {func(r *Record, _ *results.DestinationAudit) { r.Destination.DestinationAudit = nil }, "validity.flags lacks destination_unreconciled"},
		"missing count absent":           {func(r *Record, _ *results.DestinationAudit) { r.absentAudit = []string{"destination.missing"} }, "destination.missing absent from run.json"},
	} {
		r := destinationRecord(t)
		a := *r.Destination.DestinationAudit
		r.Destination.DestinationAudit = &a
		sd := *r.Spec.Destination
		r.Spec.Destination = &sd
		tc.mut(&r, &a)
		p := strings.Join(IntegrityProblems(r), "\n")
		if !strings.Contains(p, tc.want) || !strings.Contains(p, "inconsistent") {
			t.Errorf("%s: problems %q, want %q", name, p, tc.want)
		}
		if len(VerdictProblems([]Record{r}, nil)) == 0 {
			t.Errorf("%s: the verdict passes it", name)
		}
	}
}

// decodeRun notes a destination count absent from run.json (it would
// read as 0), and destinationAuditKeys are exactly the read-back's keys.
func TestDestinationCountAbsent(t *testing.T) {
	b, _ := json.Marshal(results.DestinationAudit{})
	var keys map[string]any
	_ = json.Unmarshal(b, &keys)
	if got := slices.Sorted(maps.Keys(keys)); !slices.Equal(got, slices.Sorted(slices.Values(destinationAuditKeys))) {
		t.Fatalf("destinationAuditKeys %v, the read-back's keys %v", destinationAuditKeys, got)
	}
	r := destinationRecord(t)
	r.SchemaVersion = SchemaVersion
	b, _ = json.Marshal(r)
	whole, err := decodeRun("run.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if p := IntegrityProblems(whole); len(p) != 0 {
		t.Fatalf("decoded whole: %v", p)
	}
	cut := strings.Replace(string(b), `"missing":0,`, "", 1)
	if cut == string(b) {
		t.Fatalf("no destination missing key in %s", b)
	}
	rec, err := decodeRun("run.json", []byte(cut))
	if err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(IntegrityProblems(rec), "\n"); !strings.Contains(p, "destination.missing absent from run.json") {
		t.Errorf("problems %q", p)
	}
}

// autoscaleRecord is a consistent run with a scaler, its block made by
// AutoscaleFigures from the decisions a share group's scaler logs (out
// 1→3 on a spike, in 3→1 after it) and the events its actions fired.
func autoscaleRecord(t *testing.T) Record {
	t.Helper()
	p := &scenarios.Autoscale{Signal: blocks.SignalLag, Threshold: 100, InBelow: 10, Window: time.Second, OutAfter: time.Second,
		InAfter: 2 * time.Second, Cooldown: time.Second, Step: 2, Min: 1, Max: 5, Poll: 500 * time.Millisecond,
		Remove: scenarios.ActionLeave, FlapWindow: 3 * time.Second, Goal: 10 * time.Second}
	spec := &scenarios.RunSpec{ConsumerType: vocab.ShareGroup, Partitions: 2,
		RateSchedule: []scenarios.RateStep{{Duration: 2 * time.Second, From: 50, To: 50}, {Duration: 3 * time.Second, From: 600, To: 600, Spike: true},
			{Duration: 3 * time.Second, From: 50, To: 50}},
		Autoscale: p}
	spec.Members, spec.Workers = 1, 1
	ds := []blocks.Decision{
		{AtSec: 0.5, Action: "hold", From: 1, To: 1, Lag: 10, Smoothed: 10, PerReplica: 10, ETDSec: -1, Reason: "filling the window (0.5s of 1s)"},
		{AtSec: 2.5, Action: "hold", From: 1, To: 1, Lag: 400, Smoothed: 300, PerReplica: 300, ETDSec: -1, Above: true},
		{AtSec: 3.5, Action: "out", From: 1, To: 3, Lag: 900, Smoothed: 700, PerReplica: 700, ETDSec: -1, Above: true, HeldSec: 1, Reason: "lag per replica 700 > 100 for 1.0s"},
		{AtSec: 5.5, Action: "hold", From: 3, To: 3, Lag: 30, Smoothed: 60, PerReplica: 20, ETDSec: 2},
		{AtSec: 6.0, Action: "blocked", From: 3, To: 3, Lag: 20, Smoothed: 20, PerReplica: 7, ETDSec: 1, LatencyMs: 30, Reason: "rule 4"},
		{AtSec: 7.5, Action: "in", From: 3, To: 1, Lag: 0, ETDSec: 0, HeldSec: 2, Reason: "lag per replica 0 ≤ 10 for 2.0s"},
	}
	events := []EventReport{{Event: Event{Label: ScalerLabel + "out 1→3"}, RebalancePauseMaxS: 0.3, Redeliveries: 2},
		{Event: Event{Label: ScalerLabel + "in 3→1"}, Redeliveries: 5}}
	r := Record{RunID: "r01-share", Spec: spec, Phases: Phases{MeasureSec: 8}, Events: events}
	r.Autoscale = AutoscaleFigures(AutoscaleInput{Policy: *p, Cap: spec.AutoscaleCap(), MaxReplicas: spec.AutoscaleMax(), Start: 1,
		WindowSec: 8, Decisions: ds, Schedule: spec.RateSchedule, Reports: events, ActionEvents: ScalerEvents(events)})
	if a := r.Autoscale; a.ScaleOuts != 1 || a.ScaleIns != 1 || a.PeakReplicas != 3 || a.DrainSec == nil || a.RedeliveredScaleIn != 5 {
		t.Fatalf("fixture's figures %+v", a)
	}
	if p := IntegrityProblems(r); len(p) != 0 {
		t.Fatalf("the consistent autoscale record: %v", p)
	}
	return r
}

// The gate recomputes the autoscale block from the scaler's decisions: a
// block AutoscaleFigures made passes (also through run.json); a block the
// spec asks for and the record lacks, a decision the rule cannot make, a
// member count outside the policy's bounds and every figure the decisions
// do not make is named inconsistent, and fails the verdict.
func TestAutoscaleIntegrity(t *testing.T) {
	r := autoscaleRecord(t)
	r.SchemaVersion = SchemaVersion
	b, _ := json.Marshal(r)
	dec, err := decodeRun("run.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if p := IntegrityProblems(dec); len(p) != 0 {
		t.Errorf("through run.json: %v", p)
	}
	backlog := autoscaleRecord(t)
	backlog.Spec.LoadMode, backlog.Autoscale = scenarios.LoadBacklog, nil
	if p := IntegrityProblems(backlog); len(p) != 0 {
		t.Errorf("a backlog run ignores autoscale: (no block): %v", p)
	}
	for name, tc := range map[string]struct {
		mut  func(r *Record, a *Autoscale)
		want string
	}{
		"block absent, spec has one":  {func(r *Record, _ *Autoscale) { r.Autoscale = nil }, "autoscale absent from run.json, but the spec has an autoscale: block"},
		"block without the spec's":    {func(r *Record, _ *Autoscale) { r.Spec.Autoscale = nil }, "the spec has no autoscale: block"},
		"cap not the spec's":          {func(_ *Record, a *Autoscale) { a.Cap.Replicas = 1000 }, "autoscale.cap.replicas = 1000, but rule 3's cap of the spec is 200"},
		"max_replicas above max":      {func(_ *Record, a *Autoscale) { a.MaxReplicas = 50 }, "autoscale.max_replicas = 50, but min(autoscale.max 5, cap 200) = 5"},
		"decision at_s NaN":           {func(_ *Record, a *Autoscale) { a.Decisions[1].AtSec = math.NaN() }, "autoscale.decisions[1].at_s = NaN"},
		"decision smoothed lag -1":    {func(_ *Record, a *Autoscale) { a.Decisions[1].Smoothed = -1 }, "autoscale.decisions[1].smoothed_lag = -1"},
		"decision lag -400":           {func(_ *Record, a *Autoscale) { a.Decisions[1].Lag = -400 }, "autoscale.decisions[1]: lag -400"},
		"decision etd -5":             {func(_ *Record, a *Autoscale) { a.Decisions[3].ETDSec = -5 }, "etd_s -5"},
		"decisions out of order":      {func(_ *Record, a *Autoscale) { a.Decisions[3].AtSec = 1 }, "autoscale.decisions[3].at_s = 1 is before the decision before it"},
		"hold that changes replicas":  {func(_ *Record, a *Autoscale) { a.Decisions[3].To = 4 }, "autoscale.decisions[3]: hold from 3 to 4"},
		"out past the bound":          {func(_ *Record, a *Autoscale) { a.Decisions[2].To = 9 }, "autoscale.decisions[2]: out from 1 to 9"},
		"out by more than step":       {func(_ *Record, a *Autoscale) { a.Decisions[2].To = 4 }, "a scale-out adds step 2 up to max_replicas 5"},
		"in below min":                {func(_ *Record, a *Autoscale) { a.Decisions[5].To = 0 }, "autoscale.decisions[5]: in from 3 to 0"},
		"unknown action":              {func(_ *Record, a *Autoscale) { a.Decisions[3].Action = "explode" }, `autoscale.decisions[3].action = "explode"`},
		"member count above max":      {func(_ *Record, a *Autoscale) { a.Decisions[3].From, a.Decisions[3].To = 7, 7 }, "autoscale.decisions[3].from = 7 replicas, outside the policy's [min, max] = [1, 5]"},
		"replicas empty":              {func(_ *Record, a *Autoscale) { a.Replicas = nil }, "autoscale.replicas is empty"},
		"start outside the policy":    {func(_ *Record, a *Autoscale) { a.Replicas[0].Replicas = 0 }, "autoscale.replicas[0] = 0"},
		"scale_outs -1":               {func(_ *Record, a *Autoscale) { a.ScaleOuts = -1 }, "autoscale.scale_outs = -1, but the decisions make 1"},
		"scale_ins 7":                 {func(_ *Record, a *Autoscale) { a.ScaleIns = 7 }, "autoscale.scale_ins = 7, but the decisions make 1"},
		"flaps 3":                     {func(_ *Record, a *Autoscale) { a.Flaps = 3 }, "autoscale.flaps = 3"},
		"peak_replicas 40":            {func(_ *Record, a *Autoscale) { a.PeakReplicas = 40 }, "autoscale.peak_replicas = 40, but the decisions make 3"},
		"replica_seconds 1":           {func(_ *Record, a *Autoscale) { a.ReplicaSeconds = 1 }, "autoscale.replica_seconds = 1"},
		"drain_s absent":              {func(_ *Record, a *Autoscale) { a.DrainSec = nil }, "autoscale.drain_s = absent"},
		"within_goal flipped":         {func(_ *Record, a *Autoscale) { a.WithinGoal = !a.WithinGoal }, "autoscale.within_goal"},
		"redelivered_scale_in 0":      {func(_ *Record, a *Autoscale) { a.RedeliveredScaleIn = 0 }, "autoscale.redelivered_scale_in = 0, but the decisions make 5"},
		"an action dropped":           {func(_ *Record, a *Autoscale) { a.Actions = a.Actions[:1] }, "autoscale.actions"},
		"replicas step edited":        {func(_ *Record, a *Autoscale) { a.Replicas[1].Replicas = 5 }, "autoscale.replicas"},
		"events' redeliveries edited": {func(r *Record, _ *Autoscale) { r.Events[1].Redeliveries = 0 }, "autoscale.redelivered_scale_in = 5, but the decisions make 0"},
	} {
		r := autoscaleRecord(t)
		tc.mut(&r, r.Autoscale)
		p := strings.Join(IntegrityProblems(r), "\n")
		if !strings.Contains(p, tc.want) || !strings.Contains(p, "inconsistent") {
			t.Errorf("%s: problems %q, want %q", name, p, tc.want)
		}
		if len(VerdictProblems([]Record{r}, nil)) == 0 {
			t.Errorf("%s: the verdict passes it", name)
		}
	}
	// With events beside the scaler the members change without it: a
	// count outside [min, max] is not the scaler's to answer for.
	withEvents := autoscaleRecord(t)
	withEvents.Spec.Events = []scenarios.Event{{At: 4 * time.Second, Action: scenarios.ActionJoin}}
	withEvents.Autoscale.Decisions[3].From, withEvents.Autoscale.Decisions[3].To = 7, 7
	if p := IntegrityProblems(withEvents); len(p) != 0 {
		t.Errorf("7 replicas after a join event: %v", p)
	}
}

// A flag of VerdictFlags fails the verdict and compare whatever the deny
// list: a consistent record whose table does not reconcile (3 completed
// records never written), flagged destination_unreconciled, is a problem
// with no deny list, an empty one and the default one; a
// destination_write_errors flag alone (the records were retried) is not.
func TestVerdictFlags(t *testing.T) {
	r := destinationRecord(t)
	a := *r.Destination.DestinationAudit
	a.Records, a.Rows, a.TableWrites, a.Writes, a.DuplicatesAbsorbed, a.Missing = 7, 7, 7, 7, 0, 3
	r.Destination.DestinationAudit = &a
	r.Validity = Validity{}
	for _, f := range DestinationFlags(r.Destination) {
		r.Validity.Flag(f)
	}
	for _, deny := range [][]Code{nil, {}, DefaultDenyFlags} {
		p := strings.Join(Problems(r, deny), "\n")
		if !strings.Contains(p, "run r01-share: validity flag destination_unreconciled: the destination table does not reconcile with the ledger: 3 missing") {
			t.Errorf("deny %v: problems %q", deny, p)
		}
	}
	if len(VerdictProblems([]Record{r}, nil)) == 0 {
		t.Error("the verdict passes an unreconciled destination")
	}
	retried := destinationRecord(t)
	retried.Destination.DestinationAudit.WriteErrors = 2
	retried.Validity = Validity{}
	for _, f := range DestinationFlags(retried.Destination) {
		retried.Validity.Flag(f)
	}
	if p := Problems(retried, nil); len(p) != 0 {
		t.Errorf("write errors retried: %v", p)
	}
}

// Expectations are recomputed from the run.json figures: a claim on
// destination.missing that campaign.json states MET is NOT MET when the
// run.json says 3 are missing, and says what campaign.json stated; a
// stated outcome of no claim in the scenario is NOT MET; without the
// scenario the stated outcomes stay. Through a folder, LoadCampaign and
// LoadSide give the recomputed outcomes and compare fails on them.
func TestRecomputeExpectations(t *testing.T) {
	r := destinationRecord(t)
	a := *r.Destination.DestinationAudit
	a.Records, a.Rows, a.TableWrites, a.Writes, a.DuplicatesAbsorbed, a.Missing = 7, 7, 7, 7, 0, 3
	r.Destination.DestinationAudit = &a
	claim := measureExp("destination.missing", scenarios.RunSelector{Runs: "all"}, scenarios.Bounds{Max: f(0)})
	claim.Name = "every completed record written"
	stated := []ExpectationOutcome{{Name: claim.Name, Claim: Claim(claim), Met: true, Measured: []Measured{{Run: "r01-share", Value: 0, Met: true}}},
		{Name: "made up", Claim: "all runs: audit.lost ≤ 0", Met: true}}
	sc := &scenarios.Scenario{Name: "dest", Expectations: []scenarios.Expectation{claim}}
	got := RecomputeExpectations(stated, sc, []Record{r})
	if len(got) != 2 || got[0].Met || got[0].Measured[0].Value != 3 || !strings.Contains(got[0].Detail, "campaign.json stated MET; recomputed from run.json") {
		t.Fatalf("recomputed %+v", got)
	}
	if got[1].Met || got[1].Name != "made up" || !strings.Contains(got[1].Detail, "the scenario has no such expect: claim") {
		t.Errorf("a stated outcome of no claim: %+v", got[1])
	}
	if kept := RecomputeExpectations(stated, nil, []Record{r}); len(kept) != 2 || !kept[0].Met {
		t.Errorf("without the scenario: %+v", kept)
	}

	dir := t.TempDir()
	r.SchemaVersion = SchemaVersion
	if err := os.MkdirAll(filepath.Join(dir, "runs", r.RunID), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(filepath.Join(dir, "runs", r.RunID, "run.json"), r); err != nil {
		t.Fatal(err)
	}
	camp := Campaign{SchemaVersion: SchemaVersion, Name: "dest", Status: StatusComplete, FinishedAt: "x", Scenario: sc,
		Runs: []string{r.RunID}, Expectations: stated[:1]}
	if err := WriteJSON(filepath.Join(dir, "campaign.json"), camp); err != nil {
		t.Fatal(err)
	}
	side, err := LoadSide(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(side.Expectations) != 1 || side.Expectations[0].Met {
		t.Fatalf("LoadSide's expectations %+v", side.Expectations)
	}
	cmp := CompareSides(side, side, CompareOptions{})
	if f := strings.Join(cmp.Failures, "\n"); !strings.Contains(f, `expectation "every completed record written" NOT MET (all runs: destination.missing ≤ 0): r01-share measured 3`) {
		t.Errorf("compare's failures %q", f)
	}
}

// Recomputing expectations from run.json gives what the campaign computed
// on its records in memory: every figure of a record with a destination
// and one with a scaler reads the same after run.json's round trip.
func TestFiguresSurviveRunJSON(t *testing.T) {
	for _, r := range []Record{destinationRecord(t), autoscaleRecord(t)} {
		r.SchemaVersion = SchemaVersion
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeRun("run.json", b)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range Figures() {
			v, ok := FieldValue(r, f.Path)
			w, okBack := FieldValue(back, f.Path)
			if ok != okBack || ok && v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
				t.Errorf("%s: %s = %v (%t) in memory, %v (%t) from run.json", r.RunID, f.Path, v, ok, w, okBack)
			}
		}
	}
}
