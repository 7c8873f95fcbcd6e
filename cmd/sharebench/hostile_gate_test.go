package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/blocks"
	"github.com/sharebench/sharebench/results"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// The gate over the destination and autoscale blocks (issue 36): compare
// and report recompute both blocks from their counts, check them against
// the spec, recompute the expectations on them from run.json and count
// destination_unreconciled in the verdict. Each broken record is a named
// failure (compare exit 1; report exit 0 with a FAILED verdict on its
// pages); each consistent one passes.
func init() {
	hostileGroups = append(hostileGroups, func(t *testing.T, k hostileKit) []hostileCase {
		const group = "gate: destination and autoscale"
		var cs []hostileCase
		compare := func(name string, want int, says, base, cand string, extra ...string) {
			cs = append(cs, hostileCase{group: group, name: "compare: " + name, want: want, says: says,
				args: append([]string{"compare", base, cand}, extra...)})
		}
		// report renders dir and checks both pages: FAILED naming says, or
		// (says "") passed.
		report := func(name, dir, says string) {
			want, not := []string{"Run verdict: FAILED", says}, []string{"Run verdict: passed"}
			if says == "" {
				want, not = []string{"Run verdict: passed"}, []string{"Run verdict: FAILED"}
			}
			cs = append(cs, hostileCase{group: group, name: "report: " + name, want: ExitOK, says: "wrote",
				args: []string{"report", dir}, check: gatePages(dir, want, not)})
		}

		// A destination run: 400 records produced and completed, each
		// written once and read back (idempotent, nothing absorbed).
		dest := run("r01-share", "share", 0, 1000, 20)
		dest.Audit = results.Audit{Produced: 400, CompletedOnce: 400, Balanced: true}
		dest.Spec.Destination = &scenarios.Destination{Kind: "postgres", Key: "offset", Idempotent: true, BatchSize: 1, Pool: 2}
		withAudit := func(mut func(r *runs.Record, a *results.DestinationAudit)) runs.Record {
			r := dest
			sp := *dest.Spec
			r.Spec = &sp
			a := results.DestinationAudit{Writes: 400, TableWrites: 400, Rows: 400, Records: 400}
			r.Destination = &runs.Destination{Kind: "postgres", Key: "offset", Idempotent: true, BatchSize: 1, Pool: 2, ServiceMs: 0.8,
				WriteMs: results.Percentiles{Count: 400, Mean: 1, P50: 1, P99: 2, Max: 3}, DestinationAudit: &a}
			r.Validity = runs.Validity{Valid: true}
			if mut != nil {
				mut(&r, &a)
			}
			return r
		}
		flagged := func(r runs.Record) runs.Record {
			for _, f := range runs.DestinationFlags(r.Destination) {
				r.Validity.Flag(f)
			}
			return r
		}
		folder := func(name string, r runs.Record) string { return campaignFolder(t, k.dir, "gd-"+name, r) }
		dBase := folder("base", withAudit(nil))
		compare("destination consistent (400 written, 400 rows)", ExitOK, "**PASS**", dBase, folder("ok", withAudit(nil)))
		report("destination consistent", folder("rep-ok", withAudit(nil)), "")

		missing100 := func(r *runs.Record, a *results.DestinationAudit) {
			a.Writes, a.TableWrites, a.Rows, a.Records = 300, 300, 300, 300
		}
		compare("table missing 100 completed records, missing says 0", ExitError, "= 300 completed records, but the audit completed 400", dBase, folder("miss100", withAudit(missing100)))
		report("table missing 100 completed records", folder("rep-miss100", withAudit(missing100)), "= 300 completed records, but the audit completed 400")
		zeroOf400 := func(r *runs.Record, a *results.DestinationAudit) {
			*a = results.DestinationAudit{Writes: 400, Missing: 400, DuplicatesAbsorbed: 400}
		}
		compare("0 of 400 writes applied, flagged", ExitError, "validity flag destination_unreconciled", dBase, folder("zero400", flagged(withAudit(zeroOf400))))
		compare("0 of 400 writes applied, flag stripped", ExitError, "validity.flags lacks destination_unreconciled", dBase, folder("zero400-nf", withAudit(zeroOf400)))
		compare("0 of 400 applied, flagged, --deny-flags ''", ExitError, "validity flag destination_unreconciled", dBase, folder("zero400-deny", flagged(withAudit(zeroOf400))), "--deny-flags", "")
		report("destination_unreconciled flag: verdict not passed", folder("rep-zero400", flagged(withAudit(zeroOf400))), "validity flag destination_unreconciled")
		missing3 := func(r *runs.Record, a *results.DestinationAudit) {
			a.Writes, a.TableWrites, a.Rows, a.Records, a.Missing = 397, 397, 397, 397, 3
		}
		compare("3 completed records never written, flagged", ExitError, "3 missing (completed, never written)", dBase, folder("miss3", flagged(withAudit(missing3))))

		negative := map[string]func(r *runs.Record, a *results.DestinationAudit){
			"rows":                  func(_ *runs.Record, a *results.DestinationAudit) { a.Rows = -1 },
			"writes":                func(_ *runs.Record, a *results.DestinationAudit) { a.Writes = -400 },
			"duplicate_rows":        func(_ *runs.Record, a *results.DestinationAudit) { a.DuplicateRows = -1 },
			"missing":               func(_ *runs.Record, a *results.DestinationAudit) { a.Missing = -5 },
			"foreign":               func(_ *runs.Record, a *results.DestinationAudit) { a.Foreign = -1 },
			"write_errors":          func(_ *runs.Record, a *results.DestinationAudit) { a.WriteErrors = -2 },
			"table_writes":          func(_ *runs.Record, a *results.DestinationAudit) { a.TableWrites = -400 },
			"written_not_completed": func(_ *runs.Record, a *results.DestinationAudit) { a.WrittenNotCompleted = -7 },
		}
		for _, name := range slices.Sorted(maps.Keys(negative)) {
			compare("destination."+name+" negative", ExitError, "destination."+name+" = -", dBase, folder("neg-"+name, withAudit(negative[name])))
		}
		compare("destination.duplicates_absorbed -3 (idempotent)", ExitError, "destination.duplicates_absorbed = -3, but writes 400 − rows 400 = 0", dBase,
			folder("neg-absorbed", withAudit(func(_ *runs.Record, a *results.DestinationAudit) { a.DuplicatesAbsorbed = -3 })))
		compare("rows 500 beyond 400 writes applied", ExitError, "destination.rows = 500 is more than the 400 writes the table applied", dBase,
			folder("rows500", withAudit(func(_ *runs.Record, a *results.DestinationAudit) { a.Rows, a.Records = 500, 500 })))
		compare("rows not records + duplicate_rows + foreign", ExitError, "destination.rows = 400, but records 350 + duplicate_rows 0 + foreign 0 = 350", dBase,
			folder("rowsum", withAudit(func(_ *runs.Record, a *results.DestinationAudit) { a.Records, a.Missing = 350, 50 })))
		compare("table applied 900 of 400 attempted", ExitError, "destination.table_writes = 900 is more than the 400 writes the members attempted", dBase,
			folder("tw900", flagged(withAudit(func(_ *runs.Record, a *results.DestinationAudit) { a.TableWrites = 900 }))))
		compare("duplicates_absorbed 50 where writes − rows is 0", ExitError, "destination.duplicates_absorbed = 50, but writes 400 − rows 400 = 0", dBase,
			folder("absorbed50", withAudit(func(_ *runs.Record, a *results.DestinationAudit) { a.DuplicatesAbsorbed = 50 })))
		compare("duplicates_absorbed without a key", ExitError, "destination.duplicates_absorbed = 5 without a key", dBase,
			folder("absorbed-nokey", withAudit(func(r *runs.Record, a *results.DestinationAudit) {
				r.Spec.Destination = &scenarios.Destination{Kind: "postgres", Key: "offset", BatchSize: 1, Pool: 2}
				r.Destination.Idempotent, a.DuplicatesAbsorbed = false, 5
			})))
		compare("written_not_completed beyond the records", ExitError, "destination.written_not_completed = 500 is more than the 400 records", dBase,
			folder("wnc500", withAudit(func(_ *runs.Record, a *results.DestinationAudit) { a.WrittenNotCompleted, a.Missing = 500, 500 })))
		noBlock := withAudit(func(r *runs.Record, _ *results.DestinationAudit) { r.Destination = nil })
		compare("destination block absent, spec has destination:", ExitError, "destination absent from run.json, but the spec has a destination: block", dBase, folder("noblock", noBlock))
		report("destination block absent, spec has destination:", folder("rep-noblock", noBlock), "destination absent from run.json")
		compare("destination block, spec without destination:", ExitError, "the spec has no destination: block", dBase,
			folder("nospec", withAudit(func(r *runs.Record, _ *results.DestinationAudit) { r.Spec.Destination = nil })))
		compare("destination pool 64, spec pool 2", ExitError, "pool 64", dBase,
			folder("pool", withAudit(func(r *runs.Record, _ *results.DestinationAudit) { r.Destination.Pool = 64 })))
		compare("destination.service_ms -1", ExitError, "destination.service_ms = -1", dBase,
			folder("svc", withAudit(func(r *runs.Record, _ *results.DestinationAudit) { r.Destination.ServiceMs = -1 })))
		compare("destination.write_ms.p99 -5", ExitError, "destination.write_ms.p99 = -5", dBase,
			folder("wms", withAudit(func(r *runs.Record, _ *results.DestinationAudit) { r.Destination.WriteMs.P99 = -5 })))
		for _, key := range []string{"missing", "rows"} {
			d := folder("absent-"+key, withAudit(missing3))
			editRun(t, d, "r01-share", func(m map[string]any) { delete(m["destination"].(map[string]any), key) })
			compare("destination."+key+" key deleted from run.json", ExitError, "destination."+key+" absent from run.json", dBase, d)
		}
		notRead := folder("notread", withAudit(nil))
		editRun(t, notRead, "r01-share", func(m map[string]any) {
			for _, key := range []string{"writes", "write_errors", "table_writes", "rows", "records", "duplicates_absorbed", "duplicate_rows", "missing", "written_not_completed", "foreign"} {
				delete(m["destination"].(map[string]any), key)
			}
		})
		compare("read-back deleted from run.json, unflagged", ExitError, "validity.flags lacks destination_unreconciled", dBase, notRead)
		compare("write errors unflagged", ExitError, "validity.flags lacks destination_write_errors", dBase,
			folder("werr", withAudit(func(_ *runs.Record, a *results.DestinationAudit) { a.WriteErrors = 12 })))
		compare("write errors flagged (retried, table reconciles)", ExitOK, "**PASS**", dBase,
			folder("werr-flag", flagged(withAudit(func(_ *runs.Record, a *results.DestinationAudit) { a.WriteErrors = 12 }))))

		// Expectations on destination.* and autoscale.* are recomputed
		// from run.json, whatever campaign.json states.
		claim := func(name, field string, min, max *float64) scenarios.Expectation {
			return scenarios.Expectation{Name: name, Measure: &scenarios.MeasureClaim{RunSelector: scenarios.RunSelector{Runs: "all"}, Field: field,
				Bounds: scenarios.Bounds{Min: min, Max: max}}}
		}
		zero, four00 := 0.0, 400.0
		absorbed5 := withAudit(func(_ *runs.Record, a *results.DestinationAudit) {
			a.Writes, a.TableWrites, a.DuplicatesAbsorbed = 405, 405, 5
		})
		stated := func(name string, met bool) runs.ExpectationOutcome {
			return runs.ExpectationOutcome{Name: name, Claim: "stated", Met: met, Measured: []runs.Measured{{Run: "r01-share", Value: 0, Met: met}}}
		}
		noDup := claim("no duplicate absorbed", "destination.duplicates_absorbed", nil, &zero)
		e1 := withScenario(t, folder("exp-absorbed", absorbed5), []scenarios.Expectation{noDup}, stated(noDup.Name, true))
		compare("campaign.json says destination.duplicates_absorbed ≤ 0 MET, run.json has 5", ExitError, "campaign.json stated MET; recomputed from run.json", dBase, e1)
		e1r := withScenario(t, folder("rep-exp-absorbed", absorbed5), []scenarios.Expectation{noDup}, stated(noDup.Name, true))
		report("campaign.json says MET, run.json says NOT MET", e1r, `NOT MET (all runs: destination.duplicates_absorbed ≤ 0): r01-share measured 5`)
		rows400 := claim("every record has a row", "destination.rows", &four00, nil)
		compare("destination.rows ≥ 400 stated and recomputed MET", ExitOK, "**PASS**", dBase,
			withScenario(t, folder("exp-rows", withAudit(nil)), []scenarios.Expectation{rows400}, stated(rows400.Name, true)))
		compare("campaign.json says NOT MET, run.json meets it: recomputed MET", ExitOK, "**PASS**", dBase,
			withScenario(t, folder("exp-rows-nm", withAudit(nil)), []scenarios.Expectation{rows400}, stated(rows400.Name, false)))
		compare("campaign.json states an outcome of no expect: claim", ExitError, "the scenario has no such expect: claim", dBase,
			withScenario(t, folder("exp-madeup", withAudit(nil)), []scenarios.Expectation{rows400}, stated(rows400.Name, true), stated("made up", true)))
		compare("campaign.json's outcomes deleted, claim NOT MET in run.json", ExitError, `expectation "no duplicate absorbed" NOT MET`, dBase,
			withScenario(t, folder("exp-deleted", absorbed5), []scenarios.Expectation{noDup}))

		// An autoscale run: a share group's scaler out 1→3 on a spike,
		// in 3→1 after it, with the events its actions fired.
		auto := run("r01-share", "share", 0, 1000, 20)
		p := &scenarios.Autoscale{Signal: blocks.SignalLag, Threshold: 100, InBelow: 10, Window: time.Second, OutAfter: time.Second,
			InAfter: 2 * time.Second, Cooldown: time.Second, Step: 2, Min: 1, Max: 5, Poll: 500 * time.Millisecond,
			Remove: scenarios.ActionLeave, FlapWindow: 3 * time.Second, Goal: 10 * time.Second}
		auto.Spec.Partitions, auto.Spec.Members, auto.Spec.Workers, auto.Spec.Autoscale = 2, 1, 1, p
		auto.Spec.RateSchedule = []scenarios.RateStep{{Duration: 2 * time.Second, From: 50, To: 50},
			{Duration: 3 * time.Second, From: 600, To: 600, Spike: true}, {Duration: 3 * time.Second, From: 50, To: 50}}
		auto.Phases.MeasureSec = 8
		auto.Throughput.CompletedPerSec = 10
		auto.Events = []runs.EventReport{{Event: runs.Event{Label: runs.ScalerLabel + "out 1→3"}, RebalancePauseMaxS: 0.3, Redeliveries: 2},
			{Event: runs.Event{Label: runs.ScalerLabel + "in 3→1"}, Redeliveries: 5}}
		scaled := func(mut func(r *runs.Record, a *runs.Autoscale)) runs.Record {
			r := auto
			sp := *auto.Spec
			r.Spec = &sp
			r.Events = append([]runs.EventReport(nil), auto.Events...)
			ds := []blocks.Decision{
				{AtSec: 0.5, Action: "hold", From: 1, To: 1, Lag: 10, Smoothed: 10, PerReplica: 10, ETDSec: -1, Reason: "filling the window (0.5s of 1s)"},
				{AtSec: 2.5, Action: "hold", From: 1, To: 1, Lag: 400, Smoothed: 300, PerReplica: 300, ETDSec: -1, Above: true},
				{AtSec: 3.5, Action: "out", From: 1, To: 3, Lag: 900, Smoothed: 700, PerReplica: 700, ETDSec: -1, Above: true, HeldSec: 1, Reason: "lag per replica 700 > 100 for 1.0s"},
				{AtSec: 5.5, Action: "hold", From: 3, To: 3, Lag: 30, Smoothed: 60, PerReplica: 20, ETDSec: 2},
				{AtSec: 7.5, Action: "in", From: 3, To: 1, ETDSec: 0, HeldSec: 2, Reason: "lag per replica 0 ≤ 10 for 2.0s"},
			}
			r.Autoscale = runs.AutoscaleFigures(runs.AutoscaleInput{Policy: *p, Cap: sp.AutoscaleCap(), MaxReplicas: sp.AutoscaleMax(), Start: 1,
				WindowSec: 8, Decisions: ds, Schedule: sp.RateSchedule, Reports: r.Events, ActionEvents: runs.ScalerEvents(r.Events)})
			if mut != nil {
				mut(&r, r.Autoscale)
			}
			return r
		}
		aFolder := func(name string, r runs.Record) string { return campaignFolder(t, k.dir, "ga-"+name, r) }
		aBase := aFolder("base", scaled(nil))
		compare("autoscale consistent (out 1→3, in 3→1)", ExitOK, "**PASS**", aBase, aFolder("ok", scaled(nil)))
		report("autoscale consistent", aFolder("rep-ok", scaled(nil)), "")
		noAuto := scaled(func(r *runs.Record, _ *runs.Autoscale) { r.Autoscale = nil })
		compare("autoscale block absent, spec has autoscale:", ExitError, "autoscale absent from run.json, but the spec has an autoscale: block", aBase, aFolder("noblock", noAuto))
		report("autoscale block absent, spec has autoscale:", aFolder("rep-noblock", noAuto), "autoscale absent from run.json")
		backlog := func(r *runs.Record, _ *runs.Autoscale) { r.Spec.LoadMode, r.Autoscale = scenarios.LoadBacklog, nil }
		compare("backlog run with autoscale: in its spec, no block (ignored)", ExitOK, "**PASS**", aFolder("backlog-base", scaled(backlog)), aFolder("backlog", scaled(backlog)))
		compare("autoscale block, spec without autoscale:", ExitError, "the spec has no autoscale: block", aBase,
			aFolder("nospec", scaled(func(r *runs.Record, _ *runs.Autoscale) { r.Spec.Autoscale = nil })))
		autoCases := []struct {
			name, says string
			mut        func(r *runs.Record, a *runs.Autoscale)
		}{
			{"scale_outs -1", "autoscale.scale_outs = -1, but the decisions make 1", func(_ *runs.Record, a *runs.Autoscale) { a.ScaleOuts = -1 }},
			{"scale_ins 5 of 1", "autoscale.scale_ins = 5, but the decisions make 1", func(_ *runs.Record, a *runs.Autoscale) { a.ScaleIns = 5 }},
			{"peak_replicas 50 past max 5", "autoscale.peak_replicas = 50, but the decisions make 3", func(_ *runs.Record, a *runs.Autoscale) { a.PeakReplicas = 50 }},
			{"max_replicas 50", "autoscale.max_replicas = 50, but min(autoscale.max 5, cap 200) = 5", func(_ *runs.Record, a *runs.Autoscale) { a.MaxReplicas = 50 }},
			{"cap 1000", "autoscale.cap.replicas = 1000, but rule 3's cap of the spec is 200", func(_ *runs.Record, a *runs.Autoscale) { a.Cap.Replicas = 1000 }},
			{"out 1→9 past the bound", "autoscale.decisions[2]: out from 1 to 9", func(_ *runs.Record, a *runs.Autoscale) { a.Decisions[2].To = 9 }},
			{"in 3→0 below min", "autoscale.decisions[4]: in from 3 to 0", func(_ *runs.Record, a *runs.Autoscale) { a.Decisions[4].To = 0 }},
			{"hold 3→4", "autoscale.decisions[3]: hold from 3 to 4", func(_ *runs.Record, a *runs.Autoscale) { a.Decisions[3].To = 4 }},
			{"decision lag -400", "autoscale.decisions[1]: lag -400", func(_ *runs.Record, a *runs.Autoscale) { a.Decisions[1].Lag = -400 }},
			{"decision action explode", `autoscale.decisions[3].action = "explode"`, func(_ *runs.Record, a *runs.Autoscale) { a.Decisions[3].Action = "explode" }},
			{"decision from 7 outside [1, 5]", "autoscale.decisions[3].from = 7 replicas, outside the policy's [min, max] = [1, 5]",
				func(_ *runs.Record, a *runs.Autoscale) { a.Decisions[3].From, a.Decisions[3].To = 7, 7 }},
			{"decisions out of time order", "autoscale.decisions[3].at_s = 1 is before the decision before it", func(_ *runs.Record, a *runs.Autoscale) { a.Decisions[3].AtSec = 1 }},
			{"replicas empty", "autoscale.replicas is empty", func(_ *runs.Record, a *runs.Autoscale) { a.Replicas = nil }},
			{"starts with 0 replicas", "autoscale.replicas[0] = 0", func(_ *runs.Record, a *runs.Autoscale) { a.Replicas[0].Replicas = 0 }},
			{"replica_seconds -10", "autoscale.replica_seconds = -10", func(_ *runs.Record, a *runs.Autoscale) { a.ReplicaSeconds = -10 }},
			{"flaps -1", "autoscale.flaps = -1", func(_ *runs.Record, a *runs.Autoscale) { a.Flaps = -1 }},
			{"drain_s removed", "autoscale.drain_s = absent", func(_ *runs.Record, a *runs.Autoscale) { a.DrainSec = nil }},
			{"redelivered_scale_in -5", "autoscale.redelivered_scale_in = -5, but the decisions make 5", func(_ *runs.Record, a *runs.Autoscale) { a.RedeliveredScaleIn = -5 }},
			{"action_pause_max_s 99", "autoscale.action_pause_max_s = 99, but the decisions make 0.3", func(_ *runs.Record, a *runs.Autoscale) { a.PauseMaxSec = 99 }},
			{"a scale-in dropped from actions", "autoscale.actions", func(_ *runs.Record, a *runs.Autoscale) { a.Actions = a.Actions[:1] }},
		}
		for _, c := range autoCases {
			compare("autoscale "+c.name, ExitError, c.says, aBase, aFolder(strings.NewReplacer(" ", "-", "→", "to").Replace(c.name), scaled(c.mut)))
		}
		report("autoscale peak_replicas 50", aFolder("rep-peak", scaled(autoCases[2].mut)), "autoscale.peak_replicas = 50")
		peak2 := 2.0
		fewPeak := claim("peak at most 2 replicas", "autoscale.peak_replicas", nil, &peak2)
		compare("campaign.json says autoscale.peak_replicas ≤ 2 MET, run.json has 3", ExitError, "campaign.json stated MET; recomputed from run.json", aBase,
			withScenario(t, aFolder("exp-peak", scaled(nil)), []scenarios.Expectation{fewPeak}, stated(fewPeak.Name, true)))
		return cs
	})
}

// gatePages checks report.html and summary.md of dir hold every want and
// no not: "" or why not.
func gatePages(dir string, want, not []string) func() string {
	return func() string {
		for _, f := range []string{"report.html", "summary.md"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				return err.Error()
			}
			page := strings.ReplaceAll(string(b), "&#34;", `"`)
			for _, w := range want {
				if !strings.Contains(page, w) {
					return fmt.Sprintf("%s lacks %q", f, w)
				}
			}
			for _, w := range not {
				if strings.Contains(page, w) {
					return fmt.Sprintf("%s holds %q", f, w)
				}
			}
		}
		return ""
	}
}

// editRun rewrites a campaign folder's run.json through a generic map.
func editRun(t *testing.T, dir, id string, edit func(map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, "runs", id, "run.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// withScenario gives a campaign folder's campaign.json a scenario with exps
// and the expectation outcomes stated, and returns the folder.
func withScenario(t *testing.T, dir string, exps []scenarios.Expectation, stated ...runs.ExpectationOutcome) string {
	t.Helper()
	c, err := runs.ReadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.Scenario, c.Expectations = &scenarios.Scenario{Name: "fixture", Expectations: exps}, stated
	if err := runs.WriteJSON(filepath.Join(dir, "campaign.json"), c); err != nil {
		t.Fatal(err)
	}
	return dir
}
