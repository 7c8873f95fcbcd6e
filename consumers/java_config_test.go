package consumers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/connection"
)

// The runner's configuration, connection secrets included, is a 0600 file
// in a 0700 directory; the Java client properties are under "client.",
// escaped for java.util.Properties. The JAAS line is the one
// TokenLoginHandlerTest.jaasLineFromGoParses reads back (the same bytes).
func TestRunnerConfigHoldsConnectionPrivately(t *testing.T) {
	c := Config{Brokers: []string{"127.0.0.1:9093"}, Topic: "t", Group: "g", Type: ShareGroup, Workers: 1, MaxPollRecords: 1,
		Connection: connection.Settings{SASL: &connection.SASL{Mechanism: connection.MechOAuthBearer,
			TokenCommand: `printf '%s' "q\b"`, Extensions: map[string]string{"a": "x"}}}}
	f, err := writeRunnerConfig(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(f)
	defer os.RemoveAll(dir)
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("config dir %v %v: want mode 0700", st.Mode(), err)
	}
	fs, err := os.Stat(f)
	if err != nil || fs.Mode().Perm() != 0o600 {
		t.Fatalf("config file %v %v: want mode 0600", fs.Mode(), err)
	}
	b, _ := os.ReadFile(f)
	want := `client.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required ` +
		`extension_a="x" tokenCommand="printf '%s' \\"q\\\\b\\"";`
	if !strings.Contains(string(b), "\n"+want+"\n") {
		t.Errorf("config lacks\n%s\n----\n%s", want, b)
	}
	if !strings.Contains(string(b), "\nclient.security.protocol=SASL_PLAINTEXT\n") {
		t.Errorf("config lacks security.protocol:\n%s", b)
	}
}

func TestPropertiesEscaping(t *testing.T) {
	for in, want := range map[string]string{`a\b`: `a\\b`, "l1\nl2": `l1\nl2`, " lead": `\ lead`, "x=y:z": "x=y:z"} {
		if got := propertyValue(in); got != want {
			t.Errorf("propertyValue(%q) = %q, want %q", in, got, want)
		}
	}
	if got := propertyKey("a b=c:d"); got != `a\ b\=c\:d` {
		t.Errorf("propertyKey: %q", got)
	}
}

// A refused connection (what the Java client cannot take) fails before any
// JVM starts, naming the setting.
func TestRunnerConfigRefusesWhatJavaCannotTake(t *testing.T) {
	c := Config{Connection: connection.Settings{TLS: &connection.TLS{}, SASL: &connection.SASL{Mechanism: connection.MechAWSMSKIAM}}}
	if _, err := writeRunnerConfig(c, 1); err == nil || !strings.Contains(err.Error(), "client java: connection: sasl.mechanism AWS_MSK_IAM") {
		t.Errorf("AWS_MSK_IAM: %v", err)
	}
}

func TestOwnJVMValidation(t *testing.T) {
	c := Config{Members: 3, Workers: 1, MaxPollRecords: 1, Style: StyleBlocking, Type: ConsumerGroup, OwnJVM: []int{0}}
	if err := c.validate(); err == nil || !strings.Contains(err.Error(), "need client java or librdkafka") ||
		!strings.Contains(err.Error(), "client franz-go runs its members in the harness process") {
		t.Errorf("franz-go with OwnJVM: %v", err)
	}
	lc := c
	lc.Client = ClientLibrdkafka
	if err := lc.validate(); err != nil {
		t.Errorf("librdkafka with OwnJVM [0]: %v", err)
	}
	c.Client, c.KafkaVersion = ClientJava, "4.2.2"
	if err := c.validate(); err != nil {
		t.Errorf("java with OwnJVM [0]: %v", err)
	}
	c.OwnJVM = []int{1, 1}
	if err := c.validate(); err == nil || !strings.Contains(err.Error(), "distinct") {
		t.Errorf("OwnJVM [1 1]: %v", err)
	}
}

// The Java client's refusals name the client, the knob and why.
func TestJavaRefusalsSayWhy(t *testing.T) {
	base := Config{Brokers: []string{"b"}, Topic: "t", Group: "g", Type: ConsumerGroup, Members: 1, Workers: 1, MaxPollRecords: 1,
		Style: StyleBlocking, Client: ClientJava, KafkaVersion: "4.2.2"}
	if err := base.validate(); err != nil {
		t.Fatalf("base: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"continuous", func(c *Config) { c.Style = StyleContinuous },
			`client java runs style blocking only, got "continuous": the Java runner polls, processes the batch on its workers, then polls again`},
	} {
		c := base
		tc.edit(&c)
		if err := c.validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	// The Java runner wedges workers as franz-go does (Member.wedge);
	// librdkafka's is refused (config_test.go).
	c := base
	c.StuckRate = 0.1
	if err := c.validate(); err != nil {
		t.Errorf("java stuck_rate 0.1: %v", err)
	}
}
