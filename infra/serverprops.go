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
	ClientPort     int // secured CLIENT listener (ClusterSecurity); 0: clients use BrokerPort
}

func (n nodeAddr) bootstrap() string {
	if n.ClientPort != 0 {
		return loopback + ":" + strconv.Itoa(n.ClientPort)
	}
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

// listener is one named Kafka listener (all PLAINTEXT: traffic stays on
// this host or on a cluster's own Docker network): the address it binds and
// the address it is advertised as.
type listener struct {
	Name      string // PLAINTEXT, INTERNAL, CONTROLLER
	Bind      string // host:port
	Advertise string // host:port
	Protocol  string // security protocol; "" is PLAINTEXT
}

// controllerListener names the KRaft quorum listener of every provider.
const controllerListener = "CONTROLLER"

// nodeLayout is what a provider decides about one node: its identity,
// listeners, quorum and storage. The broker settings proper are the same
// for every provider (EffectiveBrokerConfig).
type nodeLayout struct {
	ID          int
	Listeners   []listener // one of them named controllerListener
	InterBroker string     // the listener brokers replicate over
	Voters      string     // controller.quorum.voters
	DataDir     string
}

// processLayout is the process provider's layout of node self: a PLAINTEXT
// listener for clients and brokers and the CONTROLLER listener, both on
// loopback, advertised as bound.
func processLayout(self nodeAddr, nodes []nodeAddr, dataDir string) nodeLayout {
	plain := loopback + ":" + strconv.Itoa(self.BrokerPort)
	ctrl := loopback + ":" + strconv.Itoa(self.ControllerPort)
	return nodeLayout{
		ID: self.ID,
		Listeners: []listener{
			{Name: "PLAINTEXT", Bind: plain, Advertise: plain},
			{Name: controllerListener, Bind: ctrl, Advertise: ctrl},
		},
		InterBroker: "PLAINTEXT",
		Voters:      quorumVoters(nodes),
		DataDir:     dataDir,
	}
}

// serverProperties returns the complete server.properties of a node: the
// layout settings the provider owns (roles, identity, listeners, quorum,
// storage) plus cfg, the effective broker configuration
// (EffectiveBrokerConfig, which never carries layout keys).
func serverProperties(l nodeLayout, cfg map[string]string) map[string]string {
	var bind, adv, protos []string
	for _, li := range l.Listeners {
		bind = append(bind, li.Name+"://"+li.Bind)
		adv = append(adv, li.Name+"://"+li.Advertise)
		proto := li.Protocol
		if proto == "" {
			proto = "PLAINTEXT"
		}
		protos = append(protos, li.Name+":"+proto)
	}
	props := map[string]string{
		"process.roles":                  "broker,controller",
		"node.id":                        strconv.Itoa(l.ID),
		"controller.quorum.voters":       l.Voters,
		"listeners":                      strings.Join(bind, ","),
		"advertised.listeners":           strings.Join(adv, ","),
		"listener.security.protocol.map": strings.Join(protos, ","),
		"controller.listener.names":      controllerListener,
		"inter.broker.listener.name":     l.InterBroker,
		"log.dirs":                       l.DataDir,
	}
	maps.Copy(props, cfg)
	return props
}

// renderProperties writes props in java.util.Properties syntax, sorted by key
// so that two runs with the same settings produce identical files.
func renderProperties(props map[string]string) []byte {
	var b strings.Builder
	b.WriteString("# Written by sharebench (infra).\n")
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
