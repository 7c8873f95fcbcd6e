package infra

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/internal/retry"
)

// An embedded PostgreSQL: a destination: block without a dsn writes into a
// server the harness starts for the campaign from the machine's PostgreSQL
// server binaries (Debian: the postgresql package, which installs
// /usr/lib/postgresql/<version>/bin). initdb makes a cluster in a temporary
// folder, postgres listens on a free 127.0.0.1 port (and a unix socket in
// the same folder), and Stop shuts it down and removes the folder. PostgreSQL
// refuses to run as root, so under root (a CI machine) both run as the
// unprivileged user nobody, which owns the folder.

// PostgresBinDirs are where the server binaries are looked for, after PATH
// and `pg_config --bindir`: the Debian layout, newest version first.
var PostgresBinDirs = "/usr/lib/postgresql/*/bin"

// PostgresUser is the account the embedded server runs as when the harness
// runs as root.
const PostgresUser = "nobody"

// Postgres is a running embedded PostgreSQL server.
type Postgres struct {
	dir      string
	port     int
	password string
	version  string
	p        *proc
	log      *tailBuffer
}

// FindPostgresBin returns the directory holding initdb and postgres: PATH
// first, then pg_config --bindir, then PostgresBinDirs (highest version).
func FindPostgresBin() (string, error) {
	has := func(dir string) bool {
		for _, b := range []string{"initdb", "postgres"} {
			if st, err := os.Stat(filepath.Join(dir, b)); err != nil || st.IsDir() {
				return false
			}
		}
		return true
	}
	if p, err := exec.LookPath("initdb"); err == nil && has(filepath.Dir(p)) {
		return filepath.Dir(p), nil
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if d := strings.TrimSpace(string(out)); has(d) {
			return d, nil
		}
	}
	dirs, _ := filepath.Glob(PostgresBinDirs)
	slices.SortFunc(dirs, func(a, b string) int { return versionOfDir(b) - versionOfDir(a) })
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	return "", errors.New("embedded PostgreSQL: no initdb and postgres found (PATH, pg_config --bindir, " + PostgresBinDirs +
		"): install the PostgreSQL server (Debian: apt-get install postgresql) or give the destination a dsn")
}

// versionOfDir reads the major version of /usr/lib/postgresql/<v>/bin.
func versionOfDir(d string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
	return v
}

// StartPostgres starts an embedded server with a fresh cluster and a
// database user "sharebench" with a random password; DSN says how to reach
// it. log gets a line when it is up (nil discards). The server is stopped
// by Stop, and killed by the kernel if the harness dies first (Linux).
func StartPostgres(ctx context.Context, log io.Writer) (_ *Postgres, err error) {
	if log == nil {
		log = io.Discard
	}
	bin, err := FindPostgresBin()
	if err != nil {
		return nil, err
	}
	cred, err := postgresCredential()
	if err != nil {
		return nil, err
	}
	parent, err := postgresParent(cred)
	if err != nil {
		return nil, err
	}
	SweepOrphanedTemp(log) // what killed harnesses left (tempsweep.go)
	dir, err := os.MkdirTemp(parent, "sharebench-postgres-")
	if err != nil {
		return nil, err
	}
	pg := &Postgres{dir: dir, log: &tailBuffer{max: 4096}}
	defer func() {
		if err != nil {
			pg.Stop()
		}
	}()
	if err := markOwner(dir); err != nil {
		return nil, err
	}
	var buf [16]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return nil, err
	}
	pg.password = hex.EncodeToString(buf[:])
	redact.AddSecret(pg.password)
	pwfile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(pg.password+"\n"), 0o600); err != nil {
		return nil, err
	}
	if cred != nil {
		// nobody must reach the folder and own what initdb writes into it.
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, err
		}
		for _, p := range []string{dir, pwfile} {
			if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
				return nil, fmt.Errorf("embedded PostgreSQL: give %s to %s: %w", p, PostgresUser, err)
			}
		}
	}
	data := filepath.Join(dir, "data")
	initOut := &tailBuffer{max: 4096}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "sharebench", "--pwfile", pwfile,
		"--auth=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if err := runTool(ctx, initdb, initOut); err != nil {
		return nil, fmt.Errorf("embedded PostgreSQL: initdb in %s: %w: %s", dir, err, initOut.String())
	}
	_ = os.Remove(pwfile)
	if b, err := os.ReadFile(filepath.Join(data, "PG_VERSION")); err == nil {
		pg.version = strings.TrimSpace(string(b))
	}
	// One attempt per port: another process may take a port between the
	// pick and the bind.
	for attempt := 0; ; attempt++ {
		ports, err := pickPorts(1)
		if err != nil {
			return nil, err
		}
		pg.port = ports[0]
		err = pg.start(ctx, bin, data, cred)
		if err == nil || attempt == 2 || ctx.Err() != nil || !strings.Contains(pg.log.String(), "could not bind") {
			if err != nil {
				return nil, err
			}
			break
		}
	}
	fmt.Fprintf(log, "embedded PostgreSQL %s on 127.0.0.1:%d (%s)\n", pg.version, pg.port, dir)
	return pg, nil
}

// postgresParent is where the server's folder goes: the temporary
// directory, which under root must be one PostgresUser can enter (every
// directory on the way searchable by others); else /tmp when it is.
func postgresParent(cred *syscall.Credential) (string, error) {
	if cred == nil {
		return "", nil
	}
	for _, dir := range []string{os.TempDir(), "/tmp"} {
		if searchableByOthers(dir) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("embedded PostgreSQL: the server runs as %s (the harness runs as root), who cannot enter %s: set TMPDIR to a directory every user may enter", PostgresUser, os.TempDir())
}

// searchableByOthers reports whether every directory from / to dir has
// the search bit for others.
func searchableByOthers(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for d := abs; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

// postgresCredential is the user the server runs as: nil (the harness's
// own) unless the harness runs as root, which PostgreSQL refuses.
func postgresCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(PostgresUser)
	if err != nil {
		return nil, fmt.Errorf("embedded PostgreSQL: the harness runs as root, which PostgreSQL refuses, and user %q to run it as is unknown: %w", PostgresUser, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("embedded PostgreSQL: user %q: ids %q/%q", PostgresUser, u.Uid, u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// start runs postgres on pg.port and waits until it accepts connections.
func (pg *Postgres) start(ctx context.Context, bin, data string, cred *syscall.Credential) error {
	pg.log = &tailBuffer{max: 4096}
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(pg.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+pg.dir,
		"-c", "max_connections=300", "-c", "logging_collector=off")
	cmd.Dir = pg.dir
	cmd.Stdout, cmd.Stderr = pg.log, pg.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	p, err := startProc(cmd)
	if err != nil {
		return fmt.Errorf("embedded PostgreSQL: start: %w", err)
	}
	pg.p = p
	err = retry.Do(ctx, retry.Policy{Wait: 100 * time.Millisecond, Timeout: 60 * time.Second, AttemptTimeout: time.Second}, func(ctx context.Context) error {
		if p.exited() {
			return retry.Permanent(fmt.Errorf("exited: %v", p.err))
		}
		// The postmaster writes "ready" as the 8th line of postmaster.pid
		// once it accepts connections (not while it is starting up).
		b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
		if err != nil {
			return err
		}
		if lines := strings.Split(string(b), "\n"); len(lines) < 8 || strings.TrimSpace(lines[7]) != "ready" {
			return errors.New("starting up")
		}
		return nil
	})
	if err != nil {
		pg.stopServer()
		return fmt.Errorf("embedded PostgreSQL on 127.0.0.1:%d: not ready: %w: %s", pg.port, err, pg.log.String())
	}
	return nil
}

// DSN is the connection string of the embedded server's database
// "postgres" as user "sharebench" (its password is a registered secret, so
// redaction masks it wherever it is written).
func (pg *Postgres) DSN() string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword("sharebench", pg.password),
		Host: net.JoinHostPort(loopback, strconv.Itoa(pg.port)), Path: "/postgres", RawQuery: "sslmode=disable"}
	return u.String()
}

// Version is the server's major version (PG_VERSION).
func (pg *Postgres) Version() string { return pg.version }

// Pid is the server's process id (0 when it is not running).
func (pg *Postgres) Pid() int {
	if pg.p == nil || pg.p.exited() {
		return 0
	}
	return pg.p.pid()
}

// stopServer asks the server for a fast shutdown (SIGINT) and kills it
// after 15 s.
func (pg *Postgres) stopServer() {
	if pg.p == nil {
		return
	}
	_ = pg.p.signal(syscall.SIGINT)
	select {
	case <-pg.p.done:
	case <-time.After(15 * time.Second):
		_ = pg.p.signal(syscall.SIGKILL)
		<-pg.p.done
	}
}

// Stop shuts the server down and removes its folder. Safe to call twice.
func (pg *Postgres) Stop() {
	pg.stopServer()
	if pg.dir != "" {
		_ = os.RemoveAll(pg.dir)
		pg.dir = ""
	}
}
