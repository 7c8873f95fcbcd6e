package infra

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// loopback is the only address the process provider binds and advertises:
// traffic stays on this host.
const loopback = "127.0.0.1"

// nodeAddr is one KRaft node's identity and ports.
type nodeAddr struct {
	ID             int
	BrokerPort     int // PLAINTEXT listener, the client bootstrap port
	ControllerPort int // CONTROLLER listener, the KRaft quorum port
}

func (n nodeAddr) bootstrap() string {
	return loopback + ":" + strconv.Itoa(n.BrokerPort)
}

// quorumVoters renders controller.quorum.voters for the nodes: every node is
// a voter (combined broker+controller), listed as id@host:port.
func quorumVoters(nodes []nodeAddr) string {
	voters := make([]string, len(nodes))
	for i, n := range nodes {
		voters[i] = fmt.Sprintf("%d@%s:%d", n.ID, loopback, n.ControllerPort)
	}
	return strings.Join(voters, ",")
}

// serverProperties returns the complete server.properties of node self in a
// cluster of nodes: the layout settings the provider owns (roles, identity,
// listeners, quorum, storage) plus cfg, the effective broker configuration
// (EffectiveBrokerConfig, which never carries layout keys).
func serverProperties(self nodeAddr, nodes []nodeAddr, dataDir string, cfg map[string]string) map[string]string {
	props := map[string]string{
		"process.roles":                  "broker,controller",
		"node.id":                        strconv.Itoa(self.ID),
		"controller.quorum.voters":       quorumVoters(nodes),
		"listeners":                      fmt.Sprintf("PLAINTEXT://%s:%d,CONTROLLER://%s:%d", loopback, self.BrokerPort, loopback, self.ControllerPort),
		"advertised.listeners":           fmt.Sprintf("PLAINTEXT://%s:%d,CONTROLLER://%s:%d", loopback, self.BrokerPort, loopback, self.ControllerPort),
		"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"controller.listener.names":      "CONTROLLER",
		"inter.broker.listener.name":     "PLAINTEXT",
		"log.dirs":                       dataDir,
	}
	maps.Copy(props, cfg)
	return props
}

// renderProperties writes props in java.util.Properties syntax, sorted by key
// so that two runs with the same settings produce identical files.
func renderProperties(props map[string]string) []byte {
	var b strings.Builder
	b.WriteString("# Written by sharebench (infra, process provider).\n")
	for _, k := range slices.Sorted(maps.Keys(props)) {
		b.WriteString(escapeProperty(k, true))
		b.WriteByte('=')
		b.WriteString(escapeProperty(props[k], false))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// escapeProperty escapes s for a .properties file: backslashes and line
// breaks always, and the separators ('=', ':', whitespace) in keys.
func escapeProperty(s string, key bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case key && (r == '=' || r == ':' || r == ' ' || r == '#' || r == '!'):
			b.WriteByte('\\')
			b.WriteRune(r)
		case !key && i == 0 && r == ' ':
			// Leading whitespace of a value is otherwise dropped.
			b.WriteString(`\ `)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
