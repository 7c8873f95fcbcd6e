package infra

import (
	"context"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// fakeDocker is a stand-in Docker Engine API (not Docker) for the three
// calls a container thread dump makes: inspect, kill and logs. Container
// "up" runs with pid 42, "paused" is paused; kill records the signal and
// the logs answer the multiplexed stream a container with a TTY-less JVM
// gives.
func fakeDocker(t *testing.T) (*testcontainers.DockerClient, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var kills []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case strings.HasSuffix(p, "/containers/up/json"):
			_, _ = w.Write([]byte(`{"Id":"up","State":{"Running":true,"Paused":false,"Pid":42}}`))
		case strings.HasSuffix(p, "/containers/paused/json"):
			_, _ = w.Write([]byte(`{"Id":"paused","State":{"Running":true,"Paused":true,"Pid":43}}`))
		case strings.HasSuffix(p, "/containers/up/kill"):
			mu.Lock()
			kills = append(kills, r.URL.Query().Get("signal"))
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		case strings.HasSuffix(p, "/containers/up/logs"):
			for _, frame := range []struct {
				stream byte
				text   string
			}{{1, "Full thread dump OpenJDK 64-Bit Server VM\n"}, {2, "\"data-plane-kafka-request-handler-0\" daemon\n"}} {
				hdr := make([]byte, 8)
				hdr[0] = frame.stream
				binary.BigEndian.PutUint32(hdr[4:], uint32(len(frame.text)))
				_, _ = w.Write(append(hdr, frame.text...))
			}
		default:
			http.Error(w, `{"message":"not found"}`, http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	api, err := client.New(client.WithHost("tcp://"+strings.TrimPrefix(srv.URL, "http://")), client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.Close() })
	return &testcontainers.DockerClient{Client: api}, &kills
}

// A container broker's dump is SIGQUIT through the Docker API and the
// container's output since (both streams); a paused container and one
// without a container are unavailable, each saying why. Against a
// stand-in Docker API (not Docker).
func TestContainerThreadDumps(t *testing.T) {
	t.Parallel() // it waits out the dump's 3 s
	dc, kills := fakeDocker(t)
	c := &containerCluster{dc: dc, nodes: []*ctrNode{{id: 1, containerID: "up"}, {id: 2, containerID: "paused"}, {id: 3}}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ds := c.ThreadDumps(ctx)
	if len(ds) != 3 {
		t.Fatalf("dumps %+v, want 3", ds)
	}
	if d := ds[0]; d.Node != 1 || d.PID != 42 || d.Method != DumpSignal ||
		!strings.Contains(d.Text, "Full thread dump") || !strings.Contains(d.Text, "request-handler-0") {
		t.Errorf("running broker: %+v, want SIGQUIT with both streams' text", d)
	}
	if len(*kills) != 1 || (*kills)[0] != "QUIT" {
		t.Errorf("signals sent %v, want exactly [QUIT] to the running container", *kills)
	}
	if d := ds[1]; d.Method != DumpUnavailable || !strings.Contains(d.Err, "paused") {
		t.Errorf("paused broker: %+v, want unavailable saying paused", d)
	}
	if d := ds[2]; d.Method != DumpUnavailable || !strings.Contains(d.Err, "no container") {
		t.Errorf("broker without a container: %+v, want unavailable saying so", d)
	}
}
