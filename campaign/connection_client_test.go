package campaign

import (
	"strings"
	"testing"

	"github.com/sharebench/sharebench/connection"
	"github.com/sharebench/sharebench/consumers"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// connFrom takes secured settings for every client that can use them and
// refuses, before the run, what a runner's client cannot take, naming the
// client and the setting.
func TestConnectionRunnerClients(t *testing.T) {
	scram := connection.Settings{TLS: &connection.TLS{}, SASL: &connection.SASL{Mechanism: connection.MechScram512,
		Username: "u", Password: "p"}}
	for _, cl := range []vocab.Client{consumers.ClientFranzGo, consumers.ClientJava, consumers.ClientLibrdkafka, consumers.ClientSpring} {
		if _, err := connFrom(scram, scenarios.RunSpec{Client: cl}); err != nil {
			t.Errorf("client %s over SASL_SSL SCRAM: %v", cl, err)
		}
	}
	for _, c := range []struct {
		client vocab.Client
		conn   connection.Settings
		want   string
	}{
		{consumers.ClientLibrdkafka, connection.Settings{TLS: &connection.TLS{ServerName: "k"}}, "client librdkafka: connection: tls.server_name"},
		{consumers.ClientLibrdkafka, connection.Settings{TLS: &connection.TLS{}, SASL: &connection.SASL{Mechanism: connection.MechOAuthBearer, Token: "t"}},
			"client librdkafka: connection: sasl.mechanism OAUTHBEARER"},
		{consumers.ClientJava, connection.Settings{TLS: &connection.TLS{InsecureSkipVerify: true}}, "client java: connection: tls.insecure_skip_verify"},
		{consumers.ClientSpring, connection.Settings{TLS: &connection.TLS{InsecureSkipVerify: true}}, "client spring: connection: tls.insecure_skip_verify"},
	} {
		if _, err := connFrom(c.conn, scenarios.RunSpec{Client: c.client}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("client %s, %s: %v, want %q", c.client, c.conn.Describe(), err, c.want)
		}
	}
}
