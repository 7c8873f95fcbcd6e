package infra

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharebench/sharebench/internal/redact"
	"github.com/sharebench/sharebench/internal/testkit"
)

// The embedded server starts (as nobody under root), answers on its port,
// keeps its password out of redacted text, and leaves nothing behind.
func TestEmbeddedPostgresStartsAndStops(t *testing.T) {
	if _, err := FindPostgresBin(); err != nil {
		testkit.Unavailable(t, err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, err := StartPostgres(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir, pid := pg.dir, pg.Pid()
	if pid == 0 {
		t.Fatal("no server process")
	}
	dsn := pg.DSN()
	if masked := redact.Text("dsn " + dsn); strings.Contains(masked, pg.password) {
		t.Errorf("password not redacted: %s", masked)
	}
	host := strings.Split(strings.Split(dsn, "@")[1], "/")[0]
	c, err := net.DialTimeout("tcp", host, time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", host, err)
	}
	c.Close()
	pg.Stop()
	if alive, _ := ProcessAlive(pid); alive {
		t.Errorf("server pid %d still running after Stop", pid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("folder %s left behind: %v", dir, err)
	}
	pg.Stop() // twice is fine
}

func TestSearchableByOthers(t *testing.T) {
	private := t.TempDir()
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(private, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if searchableByOthers(open) {
		t.Errorf("%s: searchable although its parent is 0700", open)
	}
	if !searchableByOthers("/") {
		t.Error("/ not searchable")
	}
	if p, err := postgresParent(nil); err != nil || p != "" {
		t.Errorf("not root: parent %q, %v; want the default", p, err)
	}
}
