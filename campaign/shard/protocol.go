package shard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/results"
)

// ProtocolVersion is the control protocol's version; an agent whose hello
// carries another one is refused. Version 2: the coordinator drives the
// run's phases by commands (members, release, produce, act), where version
// 1 had one start. Version 3: progress carries a consumer group's
// delivered words and the coordinator relays them to the other shards
// (delivered).
const ProtocolVersion = 3

// Message types. Agents send hello, ping, ready, progress, reply, done and
// failed; the coordinator sends run, pong, the commands (members, release,
// produce, act), drain_check and stop.
const (
	TypeHello      = "hello"       // agent: I am shard N (version, scenario hash)
	TypeRun        = "run"         // coordinator → shard: what to run (Setup)
	TypePing       = "ping"        // agent: clock ping (Seq, SendNs)
	TypePong       = "pong"        // coordinator → shard: reply (Seq, SendNs echoed, RemoteNs)
	TypeReady      = "ready"       // agent: offset measured, ready for commands
	TypeMembers    = "members"     // coordinator → shard: start your members (Cmd.Hold)
	TypeRelease    = "release"     // coordinator → shard: let your held members consume
	TypeProduce    = "produce"     // coordinator → shard: run your producers (Cmd: start instant, window)
	TypeAct        = "act"         // coordinator → shard: join, leave, crash or slow members (Cmd)
	TypeReply      = "reply"       // agent: a command carried out (Reply)
	TypeProgress   = "progress"    // agent: every 500 ms once ready (Progress)
	TypeDrainCheck = "drain_check" // coordinator → all: write your ledger marks (Seq) to the results topic
	TypeDelivered  = "delivered"   // coordinator → all: shard From's delivered words (Delivered), relayed from its progress
	TypeStop       = "stop"        // coordinator → all: stop, export, write results
	TypeDone       = "done"        // agent: results written (Progress: final figures)
	TypeFailed     = "failed"      // agent: it failed (Error)
)

// agentTypes and coordinatorTypes are who may send what.
var (
	agentTypes       = []string{TypeHello, TypePing, TypeReady, TypeReply, TypeProgress, TypeDone, TypeFailed}
	coordinatorTypes = []string{TypeRun, TypePong, TypeMembers, TypeRelease, TypeProduce, TypeAct, TypeDrainCheck, TypeDelivered, TypeStop}
	// commandTypes are the coordinator's messages an agent replies to.
	commandTypes = []string{TypeMembers, TypeRelease, TypeProduce, TypeAct}
)

// Actions of an act command.
const (
	ActJoin  = "join"
	ActLeave = "leave"
	ActCrash = "crash"
	ActSlow  = "slow"
)

// Command is what a command message asks of one shard. Seq numbers the
// coordinator's commands; the agent's reply carries it back.
type Command struct {
	Seq  int  `json:"seq"`
	Hold bool `json:"hold,omitempty"` // members: join held, consuming only on release
	// StartNs is the schedule's start, WindowStartNs and WindowEndNs the
	// measurement window (produce; coordinator clock); FlushNs bounds the
	// producers' wait for their last acknowledgements (0: theirs).
	StartNs       int64 `json:"start_ns,omitempty"`
	WindowStartNs int64 `json:"window_start_ns,omitempty"`
	WindowEndNs   int64 `json:"window_end_ns,omitempty"`
	FlushNs       int64 `json:"flush_ns,omitempty"`
	// UntilNs, when set, is when the producers must have ended (a
	// backlog fill's bound; coordinator clock).
	UntilNs int64 `json:"until_ns,omitempty"`
	// Action is an act's (ActJoin: IDs are the joining members' ids;
	// ActLeave, ActCrash: N of the shard's oldest members; ActSlow: every
	// processing time × Factor for DurationNs).
	Action     string  `json:"action,omitempty"`
	IDs        []int   `json:"ids,omitempty"`
	N          int     `json:"n,omitempty"`
	Factor     float64 `json:"factor,omitempty"`
	DurationNs int64   `json:"duration_ns,omitempty"`
}

// Reply is an agent's answer to a command: the members it concerned, when
// it was carried out (coordinator clock) or why it could not be.
type Reply struct {
	Seq   int    `json:"seq"`
	IDs   []int  `json:"ids,omitempty"`
	AtNs  int64  `json:"at_ns,omitempty"`
	Error string `json:"error,omitempty"`
}

// All addresses a coordinator message to every shard.
const All = -1

// Msg is one control-topic message. Run is the control topic's name, so a
// message left from another run is never taken for this one's. Shard is the
// sender's index on agent messages and the addressee (or All) on the
// coordinator's.
type Msg struct {
	Type  string `json:"type"`
	Run   string `json:"run"`
	Shard int    `json:"shard"`

	Version      int    `json:"version,omitempty"`       // hello
	ScenarioHash string `json:"scenario_hash,omitempty"` // hello: sha256 of --scenario, "" without
	PID          int    `json:"pid,omitempty"`           // hello
	Host         string `json:"host,omitempty"`          // hello
	// Instance is a random id an agent draws at its start (hello): two
	// agents claiming one shard differ in it even in one process.
	Instance string `json:"instance,omitempty"`

	Setup *Setup `json:"setup,omitempty"` // run

	Seq      int   `json:"seq,omitempty"`       // ping, pong, drain_check
	SendNs   int64 `json:"send_ns,omitempty"`   // ping, pong: the agent's clock at the ping
	RemoteNs int64 `json:"remote_ns,omitempty"` // pong: the coordinator's clock at the reply

	OffsetNs      int64 `json:"offset_ns,omitempty"`      // ready: added to the agent's clock
	UncertaintyNs int64 `json:"uncertainty_ns,omitempty"` // ready: ± of the offset
	Pings         int   `json:"pings,omitempty"`          // ready: samples taken

	Cmd   *Command `json:"cmd,omitempty"`   // members, release, produce, act
	Reply *Reply   `json:"reply,omitempty"` // reply

	Progress *Progress `json:"progress,omitempty"` // progress, done
	Error    string    `json:"error,omitempty"`    // failed

	// From and Delivered (delivered): the shard whose progress carried the
	// words, and the words (results.EncodeDeliveredWords).
	From      int    `json:"from,omitempty"`
	Delivered []byte `json:"delivered,omitempty"`

	// Mac binds an agent's message to its shard: the HMAC-SHA256, keyed
	// with the token the launcher gave that shard alone, of the message's
	// JSON without Mac (Signed, SignedBy). Other agents read the control
	// topic too, but cannot sign as another shard.
	Mac string `json:"mac,omitempty"`
}

// NewToken draws a shard's token: 32 random bytes, hex.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("shard: token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// mac is m's HMAC under token, m.Mac left out.
func (m Msg) mac(token string) string {
	m.Mac = ""
	b, _ := json.Marshal(m) // a Msg always marshals
	h := hmac.New(sha256.New, []byte(token))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// Signed is m with its Mac under token.
func (m Msg) Signed(token string) Msg {
	m.Mac = m.mac(token)
	return m
}

// SignedBy reports whether m carries a valid Mac under token.
func (m Msg) SignedBy(token string) bool {
	return m.Mac != "" && hmac.Equal([]byte(m.Mac), []byte(m.mac(token)))
}

// Setup is what a shard runs: the run spec as JSON (scenarios.RunSpec,
// kept raw so this package does not depend on scenarios), its topic and
// group, and what its recorder must share with the coordinator's: the run
// tag, the time series' start and length, the ledger's dimensions.
type Setup struct {
	Spec          json.RawMessage `json:"spec"`
	RunID         string          `json:"run_id"`
	Topic         string          `json:"topic"`
	Group         string          `json:"group"`
	RunTag        uint64          `json:"run_tag"`
	SeriesStartNs int64           `json:"series_start_ns"`
	SeriesSeconds int             `json:"series_seconds"`
	Producers     int             `json:"producers"`
	PerProducer   uint64          `json:"per_producer"`
	// DestinationTable is the table the run's members write to (with a
	// destination: block; the dsn reaches the agent in its environment),
	// DestinationConnections this shard's part of destination.connections.
	DestinationTable       string `json:"destination_table,omitempty"`
	DestinationConnections int    `json:"destination_connections,omitempty"`
}

// Progress are a shard's counters.
type Progress struct {
	// Counts are its recorder's counters (results.Recorder.Counts).
	Counts        results.Counts `json:"counts"`
	ProducersDone bool           `json:"producers_done"`
	Producers     []int          `json:"producers"` // indices it runs
	Members       []int          `json:"members"`   // its members' ids at the start
	// Live is the number of its members running now.
	Live int `json:"live"`
	// Generation is the highest consumer-group generation its members saw.
	Generation int32 `json:"generation,omitempty"`
	// Delivered are the words of its ledger's delivered bitset that changed
	// since its last progress, at most MaxDeliveredWords
	// (results.EncodeDeliveredWords): a consumer group's in a sharded run
	// only, for the delivery exchange (results/ledgerelsewhere.go).
	Delivered []byte `json:"delivered,omitempty"`
	// Errors are the agent's non-fatal errors (done only), as a run's.
	Errors []string `json:"errors,omitempty"`
	// CPUSec and MaxRSSBytes are the agent process's CPU time and peak
	// resident memory (done only).
	CPUSec      float64 `json:"cpu_sec,omitempty"`
	MaxRSSBytes int64   `json:"max_rss_bytes,omitempty"`
}

// Encode writes m as JSON after checking it.
func (m Msg) Encode() ([]byte, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// Decode reads one message and checks it.
func Decode(b []byte) (Msg, error) {
	var m Msg
	if err := json.Unmarshal(b, &m); err != nil {
		return Msg{}, fmt.Errorf("shard: control message: %w", err)
	}
	return m, m.check()
}

// FromAgent reports whether an agent sends messages of m's type.
func (m Msg) FromAgent() bool { return slices.Contains(agentTypes, m.Type) }

// check refuses a message that is not one of the protocol's, or lacks what
// its type needs.
func (m Msg) check() error {
	switch {
	case m.Run == "":
		return fmt.Errorf("shard: %s message without a run", m.Type)
	case slices.Contains(agentTypes, m.Type):
		if m.Shard < 0 {
			return fmt.Errorf("shard: %s message from shard %d; want ≥ 0", m.Type, m.Shard)
		}
	case slices.Contains(coordinatorTypes, m.Type):
		if m.Shard < All {
			return fmt.Errorf("shard: %s message to shard %d; want ≥ 0 or %d (all)", m.Type, m.Shard, All)
		}
	default:
		return fmt.Errorf("shard: message type %q: expected one of %v or %v", m.Type, agentTypes, coordinatorTypes)
	}
	switch m.Type {
	case TypeRun:
		if m.Setup == nil || len(m.Setup.Spec) == 0 || m.Setup.Topic == "" || m.Setup.Producers < 1 {
			return errors.New("shard: run message without a complete setup (spec, topic, producers)")
		}
	case TypeFailed:
		if m.Error == "" {
			return errors.New("shard: failed message without an error")
		}
	case TypeReply:
		if m.Reply == nil || m.Reply.Seq < 1 {
			return errors.New("shard: reply message without the command's sequence number")
		}
	case TypeDelivered:
		if m.From < 0 || len(m.Delivered) == 0 {
			return fmt.Errorf("shard: delivered message from shard %d with %d bytes; want a shard ≥ 0 and words", m.From, len(m.Delivered))
		}
	}
	for _, d := range m.deliveredWords() {
		if len(d)%16 != 0 || len(d) > 16*MaxDeliveredWords {
			return fmt.Errorf("shard: %s message with %d bytes of delivered words; want a multiple of 16, at most %d", m.Type, len(d), 16*MaxDeliveredWords)
		}
	}
	if slices.Contains(commandTypes, m.Type) {
		return m.Cmd.check(m.Type)
	}
	return nil
}

// check refuses a command that lacks what its message type needs.
func (c *Command) check(typ string) error {
	if c == nil || c.Seq < 1 {
		return fmt.Errorf("shard: %s message without a numbered command", typ)
	}
	switch {
	case typ == TypeProduce && (c.StartNs == 0 || c.WindowEndNs <= c.WindowStartNs):
		return errors.New("shard: produce message without a start instant and a window")
	case typ != TypeAct:
		return nil
	}
	switch c.Action {
	case ActJoin:
		if len(c.IDs) == 0 || slices.ContainsFunc(c.IDs, func(id int) bool { return id < 0 }) {
			return fmt.Errorf("shard: act join without member ids ≥ 0 (%v)", c.IDs)
		}
	case ActLeave, ActCrash:
		if c.N < 1 {
			return fmt.Errorf("shard: act %s of %d members; want ≥ 1", c.Action, c.N)
		}
	case ActSlow:
		if !(c.Factor > 0) || c.DurationNs < 0 {
			return fmt.Errorf("shard: act slow by %v for %d ns; want a factor > 0 and a duration ≥ 0", c.Factor, c.DurationNs)
		}
	default:
		return fmt.Errorf("shard: act %q: expected %s, %s, %s or %s", c.Action, ActJoin, ActLeave, ActCrash, ActSlow)
	}
	return nil
}

// MaxDeliveredWords bounds the delivered words of one progress message:
// 8192 words (128 KiB, about 171 KiB as JSON) hand on 524,288 records'
// deliveries, a million a second at two progress messages a second; words
// beyond it go with the next.
const MaxDeliveredWords = 8192

// deliveredWords are the encoded delivered words m carries (relayed, or in
// its progress).
func (m Msg) deliveredWords() [][]byte {
	if m.Progress != nil {
		return [][]byte{m.Delivered, m.Progress.Delivered}
	}
	return [][]byte{m.Delivered}
}

// For reports whether a coordinator message is addressed to shard.
func (m Msg) For(shard int) bool { return m.Shard == All || m.Shard == shard }

// Results-topic chunks. A shard's blob (its encoded export at the end, its
// ledger marks at a drain check) is cut into chunks of at most ChunkBytes,
// each a record whose headers say run, shard, kind, sequence and chunk i
// of n, and, when the agent has a token, the blob's HMAC (BlobMac) on
// every chunk: the coordinator takes a blob only from the shard whose
// token signed it, as it takes control messages.
const (
	ChunkBytes  = 512 << 10
	KindExport  = "export"
	KindMarks   = "marks"
	KindClient  = "client" // the members' client statistics (consumers.ClientStats)
	headerRun   = "sharebench-run"
	headerShard = "sharebench-shard"
	headerKind  = "sharebench-kind"
	headerSeq   = "sharebench-seq"
	headerChunk = "sharebench-chunk"
	headerOf    = "sharebench-chunks"
	headerMac   = "sharebench-mac"
)

// BlobMac is the HMAC-SHA256, keyed by a shard's token, of a blob and what
// names it (run, shard, kind, sequence): a blob replayed under another
// shard, kind or sequence does not verify.
func BlobMac(token, run string, shard int, kind string, seq int, data []byte) string {
	h := hmac.New(sha256.New, []byte(token))
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00%d\x00", run, shard, kind, seq)
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// Chunks cuts data into records for the results topic, signed with token
// (BlobMac) unless it is empty.
func Chunks(run string, shard int, kind string, seq int, data []byte, token string) []*kgo.Record {
	n := max(1, (len(data)+ChunkBytes-1)/ChunkBytes)
	var mac string
	if token != "" {
		mac = BlobMac(token, run, shard, kind, seq, data)
	}
	out := make([]*kgo.Record, 0, n)
	for i := range n {
		part := data[min(i*ChunkBytes, len(data)):min((i+1)*ChunkBytes, len(data))]
		hs := []kgo.RecordHeader{
			{Key: headerRun, Value: []byte(run)}, {Key: headerShard, Value: []byte(strconv.Itoa(shard))},
			{Key: headerKind, Value: []byte(kind)}, {Key: headerSeq, Value: []byte(strconv.Itoa(seq))},
			{Key: headerChunk, Value: []byte(strconv.Itoa(i))}, {Key: headerOf, Value: []byte(strconv.Itoa(n))},
		}
		if mac != "" {
			hs = append(hs, kgo.RecordHeader{Key: headerMac, Value: []byte(mac)})
		}
		out = append(out, &kgo.Record{Key: []byte(run + "/" + strconv.Itoa(shard)), Value: part, Headers: hs})
	}
	return out
}

// Blob is a shard's reassembled blob, with the MAC its chunks carried
// ("" when unsigned).
type Blob struct {
	Shard int
	Kind  string
	Seq   int
	Data  []byte
	Mac   string
}

// SignedBy reports whether b carries a valid MAC of run under token.
func (b Blob) SignedBy(run, token string) bool {
	return b.Mac != "" && hmac.Equal([]byte(b.Mac), []byte(BlobMac(token, run, b.Shard, b.Kind, b.Seq, b.Data)))
}

type blobKey struct {
	shard int
	kind  string
	seq   int
	mac   string // chunks signed differently are different blobs
}

// Assembler puts chunks back together, for one run.
type Assembler struct {
	Run   string
	parts map[blobKey][][]byte
}

// Add takes one results-topic record; it returns the blob once its last
// chunk arrived. Records of another run are skipped (nil, nil).
func (a *Assembler) Add(r *kgo.Record) (*Blob, error) {
	h := map[string]string{}
	for _, x := range r.Headers {
		h[x.Key] = string(x.Value)
	}
	if h[headerRun] != a.Run {
		return nil, nil
	}
	num := func(k string) (int, error) {
		v, err := strconv.Atoi(h[k])
		if err != nil || v < 0 {
			return 0, fmt.Errorf("shard: results chunk: header %s %q: expected an integer ≥ 0", k, h[k])
		}
		return v, nil
	}
	var vals [4]int
	for i, k := range []string{headerShard, headerSeq, headerChunk, headerOf} {
		v, err := num(k)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	shard, seq, i, n := vals[0], vals[1], vals[2], vals[3]
	if n < 1 || i >= n {
		return nil, fmt.Errorf("shard: results chunk %d of %d from shard %d", i, n, shard)
	}
	if a.parts == nil {
		a.parts = map[blobKey][][]byte{}
	}
	k := blobKey{shard, h[headerKind], seq, h[headerMac]}
	ps := a.parts[k]
	if ps == nil {
		ps = make([][]byte, n)
		a.parts[k] = ps
	}
	if len(ps) != n {
		return nil, fmt.Errorf("shard: results chunks of shard %d %s %d disagree on their count (%d, %d)", shard, k.kind, seq, len(ps), n)
	}
	ps[i] = append([]byte{}, r.Value...)
	var size int
	for _, p := range ps {
		if p == nil {
			return nil, nil
		}
		size += len(p)
	}
	delete(a.parts, k)
	data := make([]byte, 0, size)
	for _, p := range ps {
		data = append(data, p...)
	}
	return &Blob{Shard: shard, Kind: k.kind, Seq: seq, Data: data, Mac: k.mac}, nil
}
