package campaign

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// needPostgres ends a test that needs the PostgreSQL server binaries
// where they are missing (a failure where brokers are required).
func needPostgres(t *testing.T) {
	t.Helper()
	if _, err := infra.FindPostgresBin(); err != nil {
		testkit.Unavailable(t, err.Error())
	}
}

// privateTmp points TMPDIR at a folder of this test's own, so that
// leftPostgres sees only what this test's servers leave and not the
// servers of other packages' tests that go test runs beside it. The
// folder is open to others (0755) because the embedded server runs as
// nobody under root and must enter it.
func privateTmp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sharebench-pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("TMPDIR", dir)
	return dir
}

// leftPostgres names embedded PostgreSQL servers still running from the
// folder tmp (their command line names the harness's folder) and the
// harness's folders left behind in it.
func leftPostgres(tmp string) string {
	var left []string
	marker := []byte(filepath.Join(tmp, "sharebench-postgres-"))
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, marker) {
			left = append(left, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, "sharebench-postgres-*"))
	return strings.Join(append(left, dirs...), "; ")
}

func destinationSpec(typ vocab.GroupType, records int, idempotent bool) scenarios.RunSpec {
	s := backlogSpec(typ, records)
	s.Members, s.Workers, s.MaxPollRecords = 3, 2, 20
	s.Processing.Time = time.Millisecond
	s.Destination = &scenarios.Destination{Kind: "postgres", Key: "offset", Idempotent: idempotent, BatchSize: 1, BatchWait: 5 * time.Millisecond, Pool: 1}
	return s
}

// On kfake (not Kafka) and an embedded PostgreSQL: both group types write
// every completed record into the run's table before acknowledging it; the
// read-back reconciles (rows = records completed, nothing missing, the
// table's write count the members'), and the write time is in the record
// and inside the hold time.
func TestDestinationRunOnKfake(t *testing.T) {
	needPostgres(t)
	tmp := privateTmp(t)
	ctx, cl := startKfake(t)
	for _, typ := range vocab.GroupTypes {
		s := destinationSpec(typ, 400, true)
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		m, err := RunOne(ctx, cl, s, "kfake-dest-"+string(typ), testLog(t))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		r := m.Record
		d := r.Destination
		if d == nil || d.DestinationAudit == nil {
			t.Fatalf("%s: no destination block: %+v (errors %v)", typ, d, r.Errors)
		}
		a := d.DestinationAudit
		completed := r.Audit.CompletedOnce + r.Audit.Duplicates
		if a.Missing != 0 || a.Foreign != 0 || a.Rows != completed || a.Records != completed || a.TableWrites != a.Writes ||
			a.DuplicatesAbsorbed != a.Writes-a.Rows || a.DuplicateRows != 0 || a.WriteErrors != 0 {
			t.Errorf("%s: audit %+v for %d records completed", typ, *a, completed)
		}
		if d.WriteMs.Count != a.Writes || d.WriteMs.Mean <= 0 || r.Latency.HoldMs.Mean < d.WriteMs.Mean {
			t.Errorf("%s: write ms %+v, hold mean %.3f", typ, d.WriteMs, r.Latency.HoldMs.Mean)
		}
		if !strings.HasPrefix(d.Server, "embedded PostgreSQL") || d.Table == "" {
			t.Errorf("%s: server %q table %q", typ, d.Server, d.Table)
		}
		if r.Ceiling.Destination <= 0 {
			t.Errorf("%s: no destination capacity in the ceiling: %+v", typ, r.Ceiling)
		}
		for _, f := range r.Validity.Flags {
			if f.Code == runs.CodeDestinationUnreconciled || f.Code == runs.CodeDestinationWriteErrors {
				t.Errorf("%s: flagged %s: %s", typ, f.Code, f.Message)
			}
		}
		if left := leftPostgres(tmp); left != "" {
			t.Errorf("%s: left behind after the run: %s", typ, left)
		}
	}
}

// Ctrl-C in the middle of a campaign's run stops the embedded server and
// removes its folder.
func TestDestinationInterruptedLeavesNothing(t *testing.T) {
	needPostgres(t)
	tmp := privateTmp(t)
	s := destinationSpec(vocab.ShareGroup, 400, true)
	sc := &scenarios.Scenario{Name: "interrupted", Runs: []scenarios.RunSpec{s}}
	ctx, cancel := context.WithCancel(context.Background())
	var log syncBuffer
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, sc, Options{Provider: "kfake", ResultsDir: t.TempDir(), Log: &log})
		done <- err
	}()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(log.String(), "forming a group"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the run did not start: %s", log.String())
		}
	}
	if leftPostgres(tmp) == "" {
		t.Fatal("no embedded server running mid-run")
	}
	cancel()
	if err := <-done; err == nil {
		t.Error("an interrupted campaign returned no error")
	}
	if left := leftPostgres(tmp); left != "" {
		t.Errorf("left behind after Ctrl-C: %s", left)
	}
}

// syncBuffer is a log the campaign writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A campaign with a wrong dsn fails before its first run, naming the host
// and the user, without the password, and removes its folder.
func TestDestinationBadDSNFailsBeforeTheFirstRun(t *testing.T) {
	sc := &scenarios.Scenario{Name: "bad-dsn", Runs: []scenarios.RunSpec{destinationSpec(vocab.ShareGroup, 10, true)}}
	sc.Runs[0].Destination.DSN = "postgres://app:s3cret-pw@127.0.0.1:1/bench?connect_timeout=2"
	var log strings.Builder
	res, err := Run(context.Background(), sc, Options{Provider: "kfake", ResultsDir: t.TempDir(), Log: &log})
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{"127.0.0.1:1 unreachable", `user "app"`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if strings.Contains(err.Error()+log.String(), "s3cret-pw") {
		t.Errorf("the password leaked: %v\n%s", err, log.String())
	}
	if res == nil || res.Dir != "" || len(res.Runs) != 0 {
		t.Errorf("result %+v", res)
	}
	if _, err := Run(context.Background(), &scenarios.Scenario{Name: "no-dest", Runs: []scenarios.RunSpec{baseSpec()}},
		Options{Provider: "kfake", ResultsDir: t.TempDir(), DestinationDSN: "postgres://x@h/db"}); err == nil || !strings.Contains(err.Error(), "no run has a destination") {
		t.Errorf("--destination-dsn without a destination: %v", err)
	}
}

// A campaign given its database by --destination-dsn (a password in the
// URL) writes the password into no file and no log line, and names the
// server by host and database.
func TestDestinationDSNNeverWritten(t *testing.T) {
	needPostgres(t)
	pg, err := infra.StartPostgres(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	dsn := pg.DSN()
	u, _ := url.Parse(dsn)
	password, _ := u.User.Password()
	s := destinationSpec(vocab.ConsumerGroup, 100, true)
	sc := &scenarios.Scenario{Name: "dsn-secret", Runs: []scenarios.RunSpec{s}}
	var log syncBuffer
	dir := t.TempDir()
	res, err := Run(context.Background(), sc, Options{Provider: "kfake", ResultsDir: dir, Log: &log, DestinationDSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Runs[0].Destination; d == nil || d.Server != "PostgreSQL at "+u.Hostname()+":"+u.Port()+"/postgres" || d.DestinationAudit == nil || d.Missing != 0 {
		t.Errorf("destination %+v", d)
	}
	if strings.Contains(log.String(), password) {
		t.Error("the log holds the password")
	}
	err = filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(password)) {
			t.Errorf("%s holds the password", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// CheckDestination reads the dsn as the run will, before anything starts:
// --destination-dsn without a destination: block, an unset or malformed
// ${VAR} and a dsn that does not parse are refused, naming the flag or the
// file:line of destination.dsn and never the password; the password a
// variable gives is masked from then on.
func TestCheckDestination(t *testing.T) {
	defer redact.ForgetSecrets()
	t.Setenv("SB_TEST_PGPW", "VarPw1234")
	withDSN := func(dsn string) *scenarios.Scenario {
		s := destinationSpec(vocab.ShareGroup, 10, true)
		s.Destination.DSN, s.Destination.DSNSource = dsn, "s.yaml:9"
		return &scenarios.Scenario{Name: "d", Runs: []scenarios.RunSpec{s}}
	}
	for _, c := range []struct {
		sc       *scenarios.Scenario
		override string
		want     string // "" accepted
	}{
		{&scenarios.Scenario{Name: "n", Runs: []scenarios.RunSpec{baseSpec()}}, "postgres://u:FlagPw1@h/db", "--destination-dsn: no run has a destination: block"},
		{&scenarios.Scenario{Name: "n", Runs: []scenarios.RunSpec{baseSpec()}}, "", ""},
		{withDSN(""), "", ""},
		{withDSN("postgres://u:${SB_TEST_PGPW}@h/db"), "", ""},
		{withDSN("postgres://u:${SB_TEST_UNSET}@h/db"), "", "s.yaml:9: destination.dsn: environment variable SB_TEST_UNSET is not set"},
		{withDSN("host=h password=${"), "", `s.yaml:9: destination.dsn: "${": expected ${NAME}`},
		{withDSN("host=h password=${A"), "", `s.yaml:9: destination.dsn: "${A": expected ${NAME}`},
		{withDSN("host=h password=${1A}"), "", `s.yaml:9: destination.dsn: "${1A}": expected ${NAME}`},
		{withDSN("host=h port=x password='File Pw2'"), "", "s.yaml:9: destination.dsn: port: expected a whole number"},
		{withDSN("host=h password='File Pw3"), "", "s.yaml:9: destination.dsn: password: a quoted value without its closing quote"},
		{withDSN("host=h"), "host=h pasword=FlagPw4", `--destination-dsn: unknown key "pasword"`},
		{withDSN("host=h port=x"), "postgres://u:${SB_TEST_PGPW}@h/db", ""},
	} {
		err := CheckDestination(c.sc, c.override)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q / %q: %v", c.sc.Runs[0].Destination, c.override, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want %q", c.override, err, c.want)
		case err != nil && strings.Contains(err.Error(), "Pw"):
			t.Errorf("the error holds a password: %v", err)
		}
	}
	if got := redact.Text("login VarPw1234 refused"); strings.Contains(got, "VarPw1234") {
		t.Errorf("the variable's password is not masked: %q", got)
	}
}

// A variable inside a password is data: its quotes, blanks, backslashes
// and @ stay in the password, in both forms, and an empty one is an empty
// password, not the next setting.
func TestExpandDSNEscapesSecrets(t *testing.T) {
	defer redact.ForgetSecrets()
	vars := map[string]string{"PW": `it's a \ p@ss/w%rd`, "EMPTY": "", "HOST": "db1,db2"}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	for dsn, want := range map[string]string{
		"host=${HOST} password=${PW} dbname=x":   vars["PW"],
		"host=${HOST} password='${PW}' dbname=x": vars["PW"],
		"host=h password=pre${PW}post dbname=x":  "pre" + vars["PW"] + "post",
		"postgres://u:${PW}@${HOST}/x":           vars["PW"],
		"postgres://u@h/x?password=${PW}&a=b":    vars["PW"],
		"host=h password=${EMPTY} dbname=x":      "",
	} {
		out, err := expandDSN(dsn, lookup)
		if err != nil {
			t.Errorf("%q: %v", dsn, err)
			continue
		}
		fields, err := redact.DSNFields(out)
		if err != nil {
			t.Errorf("%q → %q: %v", dsn, out, err)
			continue
		}
		got, db := "", ""
		for _, f := range fields {
			switch f.Key {
			case "password":
				got = f.Value
			case "dbname":
				db = f.Value
			}
		}
		if got != want || strings.HasPrefix(dsn, "host=") && db != "x" {
			t.Errorf("%q → %q: password %q dbname %q, want %q", dsn, out, got, db, want)
		}
		if strings.Contains(dsn, "${HOST}") && !strings.Contains(out, "db1,db2") {
			t.Errorf("%q → %q: a variable outside the password was escaped", dsn, out)
		}
	}
}
