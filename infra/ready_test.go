package infra

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBrokerExitErrorQuotesCauseAndSpotsPortClash(t *testing.T) {
	log := filepath.Join(t.TempDir(), "broker-2.log")
	var b strings.Builder
	b.WriteString("[2026-01-01 00:00:00,000] INFO starting (kafka.Kafka)\n")
	b.WriteString("[2026-01-01 00:00:01,000] ERROR [BrokerServer id=2] Fatal error during broker startup. Prepare to shutdown (kafka.server.BrokerServer)\n")
	b.WriteString("org.apache.kafka.common.KafkaException: Socket server failed to bind to 127.0.0.1:9092: Address already in use.\n")
	b.WriteString("\tat kafka.network.Acceptor.openServerSocket(SocketServer.scala:633)\n")
	for range 2000 { // shutdown noise pushes the cause out of the tail
		b.WriteString("[2026-01-01 00:00:02,000] INFO shutting down something (kafka.server.X)\n")
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newBrokerExitError(&broker{addr: nodeAddr{ID: 2}, logPath: log, proc: &proc{err: errors.New("exit status 1")}})
	msg := e.Error()
	for _, want := range []string{"broker 2: exited during start-up (exit status 1)", "Fatal error during broker startup", "Address already in use", log} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q", want)
		}
	}
	if len(msg) > 2*logTailBytes {
		t.Errorf("error is %d bytes; want the cause and a tail, not the log", len(msg))
	}
	if !errors.Is(e, errPortClash) {
		t.Error("a bind failure is not recognised as a port clash")
	}

	os.WriteFile(log, []byte("[x] ERROR ClassNotFoundException: no.such.Authorizer\n"), 0o644)
	e = newBrokerExitError(&broker{addr: nodeAddr{ID: 1}, logPath: log, proc: &proc{err: errors.New("exit status 1")}})
	if errors.Is(e, errPortClash) {
		t.Error("an unrelated failure is taken for a port clash (it would be retried)")
	}
}
