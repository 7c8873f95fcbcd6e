package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fileInfo is what the structural check of a scenario file learns: the order
// of its keys (the expansion order of list-valued knobs) and their lines.
type fileInfo struct {
	order  []string            // top-level keys in file order
	sub    map[string][]string // processing and broker_config sub-keys in file order
	lines  map[string]int      // key path ("rate", "processing.time") → line
	expect []Expectation       // the expect: list, checked
	// maxRate and recommend are the max_rate: and recommend: blocks, checked.
	maxRate   *MaxRate
	recommend *Recommend
	// deadLetter is the dead_letter: block, checked (deadletter.go).
	deadLetter *DeadLetter
	events     []Event // the events: list, checked
	// rateSchedule is the rate_schedule: list, expanded (rateschedule.go);
	// autoscale the autoscale: block (autoscale.go).
	rateSchedule []RateStep
	autoscale    *Autoscale
	// destination is the destination: block, checked (destination.go).
	destination *Destination
}

// fileChecker walks a scenario file's YAML tree and collects structural
// errors: unknown keys, empty values, lists where single values belong.
type fileChecker struct {
	src  string
	info *fileInfo
	errs []error
	said map[string]bool // the problems in errs, item numbers left out
}

// checkFile checks the structure of a scenario file before any value is
// interpreted. All problems are reported together.
func checkFile(src string, data []byte) (fileInfo, error) {
	info := fileInfo{sub: map[string][]string{}, lines: map[string]int{}}
	doc, second, err := oneDocument(data)
	if err != nil {
		return info, fmt.Errorf("%s: %w", src, err)
	}
	if second > 0 {
		return info, fmt.Errorf("%s:%d: a second YAML document starts here (---), and only one is read: "+
			"a scenario file is one document; merge its keys into the first or give it a file of its own", src, second)
	}
	if len(doc.Content) == 0 {
		return info, nil
	}
	root := resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return info, fmt.Errorf("%s:%d: a scenario is a YAML mapping of keys to values, got %s",
			src, root.Line, nodeKind(root))
	}
	c := &fileChecker{src: src, info: &info, said: map[string]bool{}}
	for i := 0; i+1 < len(root.Content); i += 2 {
		c.top(root.Content[i], resolve(root.Content[i+1]))
	}
	c.numbers("", root)
	return info, errors.Join(c.errs...)
}

// oneDocument decodes the first YAML document of data. second is the line of
// a second document that holds anything (a trailing "---" alone is
// harmless), or 0: yaml.Unmarshal and viper read the first document only,
// so the keys after a "---" would be ignored without a word.
func oneDocument(data []byte) (doc yaml.Node, second int, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return yaml.Node{}, 0, nil
		}
		return doc, 0, err
	}
	for {
		var next yaml.Node
		err := dec.Decode(&next)
		if errors.Is(err, io.EOF) {
			return doc, 0, nil
		}
		if err != nil {
			return doc, 0, err
		}
		if len(next.Content) > 0 && !isNull(next.Content[0]) {
			return doc, max(next.Line, 1), nil
		}
	}
}

// numbers walks a value and refuses numbers written with a leading zero or
// in another base (see numberLiteral). path names the key in messages:
// "members", "broker_config.group.share.max.size", "events[2].members".
// Aliases are not followed: the anchored value is checked where it stands.
func (c *fileChecker) numbers(path string, n *yaml.Node) {
	walkNumbers(path, n, func(line int, err error) { c.errorf(line, "%v", err) })
}

func walkNumbers(path string, n *yaml.Node, bad func(line int, err error)) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, e := range n.Content {
			walkNumbers(path, e, bad)
		}
	case yaml.ScalarNode:
		if err := numberLiteral(n); err != nil {
			bad(n.Line, fmt.Errorf("%s: %w", path, err))
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			p := path
			if e.Kind == yaml.MappingNode {
				p = fmt.Sprintf("%s[%d]", path, i+1)
			}
			walkNumbers(p, e, bad)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			walkNumbers(p, n.Content[i+1], bad)
		}
	}
}

// errorf adds a problem at line. The same problem at the same line is
// added once, whichever item number names it (events[1], events[7]): an
// anchored item aliased a thousand times is one mistake, not a thousand.
func (c *fileChecker) errorf(line int, format string, args ...any) {
	msg := fmt.Sprintf("%s:%d: %s", c.src, line, fmt.Sprintf(format, args...))
	if same := itemNumberRE.ReplaceAllString(msg, "[]"); !c.said[same] {
		c.said[same] = true
		c.errs = append(c.errs, errors.New(msg))
	}
}

var itemNumberRE = regexp.MustCompile(`\[\d+\]`)

// top checks one top-level key and its value.
func (c *fileChecker) top(k, v *yaml.Node) {
	key := k.Value
	if !slices.Contains(topLevelKeys(), key) {
		c.errorf(k.Line, "unknown key %q%s", key, suggest(key, topLevelKeys()))
		return
	}
	c.info.order = append(c.info.order, key)
	c.info.lines[key] = k.Line
	if isNull(v) {
		c.errorf(k.Line, "%s: no value; remove the key to use the default", key)
		return
	}
	switch key {
	case "name", "description", "repeat", "repeat_order", "repeat_seed", "jit_warmup":
		if v.Kind != yaml.ScalarNode {
			c.errorf(v.Line, "%s: expected a single value, got %s", key, nodeKind(v))
		}
	case "sweep":
		c.sweep(v)
	case "expect":
		c.expect(v)
	case "max_rate":
		c.maxRate(v)
	case "recommend":
		c.recommend(v)
	case "dead_letter":
		c.deadLetter(v)
	case "destination":
		c.destination(v)
	case "events":
		c.events(v)
	case "rate_schedule":
		c.rateSchedule(v)
	case "autoscale":
		c.autoscale(v)
	case "processing":
		c.processing(v)
	case "broker_config":
		c.brokerConfig(v)
	case "group_config":
		c.settingsMap("group_config", "share-group settings", "share.record.lock.duration.ms", v)
	case "hot_keys":
		c.hotKeys(v)
	default:
		c.scalarOrList(key, v)
	}
}

// scalarOrList accepts a single value or a flat, non-empty list of values.
func (c *fileChecker) scalarOrList(key string, v *yaml.Node) {
	switch v.Kind {
	case yaml.ScalarNode:
		if isNull(v) {
			c.errorf(v.Line, "%s: no value", key)
		}
	case yaml.SequenceNode:
		if len(v.Content) == 0 {
			c.errorf(v.Line, "%s: empty list; give at least one value", key)
		}
		if c.longList(key, v, MaxRuns, "each value is a run, and a scenario expands to at most that many") {
			return
		}
		for _, e := range v.Content {
			if e = resolve(e); e.Kind != yaml.ScalarNode || isNull(e) {
				c.errorf(e.Line, "%s: a list of single values, got %s in the list", key, nodeKind(e))
			}
		}
	default:
		c.errorf(v.Line, "%s: expected a value or a list of values, got %s", key, nodeKind(v))
	}
}

// processing accepts one model map (whose parameters may be lists) or a list
// of model maps (whose parameters are single values).
func (c *fileChecker) processing(v *yaml.Node) {
	switch v.Kind {
	case yaml.MappingNode:
		c.processingMap(v, true)
	case yaml.SequenceNode:
		if len(v.Content) == 0 {
			c.errorf(v.Line, "processing: empty list; give at least one model")
		}
		if c.longList("processing", v, MaxRuns, "each model is a run, and a scenario expands to at most that many") {
			return
		}
		for _, e := range v.Content {
			if e = resolve(e); e.Kind != yaml.MappingNode {
				c.errorf(e.Line, "processing: a list of model maps like {model: constant, time: 10ms}, got %s in the list", nodeKind(e))
				continue
			}
			c.processingMap(e, false)
		}
	default:
		c.errorf(v.Line, "processing: expected a map like {model: constant, time: 10ms} or a list of them, got %s", nodeKind(v))
	}
}

func (c *fileChecker) processingMap(m *yaml.Node, allowLists bool) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		key := k.Value
		if !slices.Contains(processingKeys, key) {
			c.errorf(k.Line, "unknown key %q in processing%s", key, suggest(key, processingKeys))
			continue
		}
		path := "processing." + key
		if allowLists {
			c.info.sub["processing"] = append(c.info.sub["processing"], key)
			c.info.lines[path] = k.Line
			c.scalarOrList(path, v)
		} else if v.Kind != yaml.ScalarNode || isNull(v) {
			c.errorf(v.Line, "%s: entries of a processing list take single values; list each combination as its own entry", path)
		}
	}
}

// brokerConfig accepts a map of Kafka broker settings; values may be lists.
func (c *fileChecker) brokerConfig(v *yaml.Node) {
	c.settingsMap("broker_config", "Kafka broker settings", "group.share.max.size", v)
}

// settingsMap accepts a map of Kafka settings (broker_config,
// group_config); values may be lists.
func (c *fileChecker) settingsMap(top, what, example string, v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		c.errorf(v.Line, "%s: expected a map of %s, got %s", top, what, nodeKind(v))
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		key := k.Value
		if key == "" || key != strings.ToLower(key) {
			c.errorf(k.Line, "%s: setting %q must be a lower-case Kafka setting like %s", top, key, example)
			continue
		}
		path := top + "." + key
		c.info.sub[top] = append(c.info.sub[top], key)
		c.info.lines[path] = k.Line
		c.scalarOrList(path, val)
	}
}

// sweep accepts a map whose only key is together.
func (c *fileChecker) sweep(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		c.errorf(v.Line, "sweep: expected a map like {together: [[members, workers]]}, got %s", nodeKind(v))
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		if k := v.Content[i]; k.Value != "together" {
			c.errorf(k.Line, "unknown key %q in sweep%s", k.Value, suggest(k.Value, []string{"together"}))
		}
	}
}

// longList refuses a list of more than limit items before anything is
// built from it, naming the key and the limit. An alias (*anchor) counts as
// the one item it names: where a scenario takes a list, its items take no
// lists of their own, so no alias multiplies it further.
func (c *fileChecker) longList(key string, v *yaml.Node, limit int, why string) bool {
	if len(v.Content) <= limit {
		return false
	}
	c.errorf(v.Line, "%s: %d items (aliases counted as the items they name); at most %d: %s", key, len(v.Content), limit, why)
	return true
}

// resolve follows YAML aliases (*anchor) to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "an empty value"
		}
		return fmt.Sprintf("the value %q", n.Value)
	}
	return "an unsupported YAML node"
}
