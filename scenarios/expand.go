package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"

	"github.com/sharebench/sharebench/internal/redact"
)

// MaxRuns caps the number of runs (matrix × repeat) one scenario may expand to.
const MaxRuns = 10000

// maxReportedRuns is how many failing runs a validation error spells out.
const maxReportedRuns = 5

// dim is one list-valued key: a dimension of the matrix.
type dim struct {
	key    string // "max_poll_records", "processing", "processing.time", "broker_config.<setting>"
	values []any
}

// axis is a set of dimensions that advance together (one dimension unless
// grouped by sweep.together); the matrix is the cross product of its axes.
type axis struct{ dims []dim }

func (a axis) len() int { return len(a.dims[0].values) }

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// build resolves the layered values into a validated, expanded Scenario.
func (l *loader) build() (*Scenario, error) {
	s := &Scenario{Source: l.src}
	if err := l.meta(s); err != nil {
		return nil, err
	}
	vals, err := l.knobValues()
	if err != nil {
		return nil, err
	}
	dims := collectDims(l.keyOrder(), vals, l.file.sub)
	if err := l.secretSweeps(dims); err != nil {
		return nil, err
	}
	axes, err := groupAxes(dims, s.Together)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.where("sweep"), err)
	}
	for _, a := range axes {
		for _, d := range a.dims {
			if len(d.values) > 1 {
				s.Dimensions = append(s.Dimensions, d.key)
			}
		}
	}
	n, err := matrixSize(axes, s.Repeat)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.src, err)
	}
	if err := l.rateBesideSchedule(); err != nil {
		return nil, err
	}
	combos := expand(axes, vals, n)
	runs, err := l.decodeAll(s, combos)
	if err != nil {
		return nil, err
	}
	s.Runs = replicate(runs, s.Repeat, s.RepeatOrder, s.RepeatSeed)
	s.Expectations = l.file.expect
	s.Recommend = l.file.recommend
	// The blocks no run uses are refused whatever made them unused: the
	// file, or an override of the key that decides their use (the merged
	// scenario obeys the file's rules).
	if err := s.checkTuning(l.file.maxRate); err != nil {
		by := "load_mode"
		if s.Recommend != nil && strings.HasPrefix(err.Error(), "recommend.") {
			by = s.Recommend.Knob
		}
		return nil, l.blockUnused(err, by)
	}
	if err := s.checkRateModeUse(l.file.rateSchedule != nil, l.file.autoscale != nil); err != nil {
		return nil, l.blockUnused(err, "load_mode")
	}
	if err := s.checkDeadLetterUse(l.file.deadLetter); err != nil {
		return nil, l.blockUnused(err, "consumer_type")
	}
	if bad := s.unmatched(); len(bad) > 0 && len(l.origin) == 0 {
		return nil, fmt.Errorf("%s: %s", l.where("expect"), strings.Join(bad, "; "))
	}
	s.explainClientSkips()
	return s, nil
}

// blockUnused places the refusal of a block no run uses ("key: given, but
// ..."): at the override of by, the key that decides its use (--set
// load_mode=backlog, SHAREBENCH_LOAD_MODE=backlog), when an override set
// it; else at the block's line in the file.
func (l *loader) blockUnused(err error, by string) error {
	top, _, _ := strings.Cut(by, ".")
	if o := cmp.Or(l.origin[by], l.origin[top], l.nested[top]); o != "" {
		return fmt.Errorf("%s (%s): %w", l.src, o, err)
	}
	key, _, _ := strings.Cut(err.Error(), ": ")
	return fmt.Errorf("%s: %w", l.where(key), err)
}

// meta reads name, description, repeat and sweep.
func (l *loader) meta(s *Scenario) error {
	if v := l.v.Get("name"); v != nil {
		s.Name = formatScalar(v)
	}
	switch {
	case s.Name == "":
		return fmt.Errorf("%s: name: required; give the scenario a name like partition-cap", l.where("name"))
	case len(s.Name) > MaxNameLen:
		return fmt.Errorf("%s: name: %d characters: at most %d (it names the results directory and its files)",
			l.where("name"), len(s.Name), MaxNameLen)
	case !nameRE.MatchString(s.Name):
		return fmt.Errorf("%s: name: use letters, digits, '.', '_' and '-' only (it names the results directory), got %q",
			l.where("name"), s.Name)
	}
	if v := l.v.Get("description"); v != nil {
		s.Description = formatScalar(v)
	}
	if len(s.Description) > MaxDescriptionBytes {
		return fmt.Errorf("%s: description: %d bytes: at most %d KiB (it is written into campaign.json and every report)",
			l.where("description"), len(s.Description), MaxDescriptionBytes>>10)
	}
	repeat, err := toInt(l.v.Get("repeat"))
	if err == nil && repeat < 1 {
		err = fmt.Errorf("must be ≥ 1, got %d", repeat)
	}
	if err != nil {
		return fmt.Errorf("%s: repeat: %w", l.where("repeat"), err)
	}
	s.Repeat = repeat
	if err := l.repeatOrder(s); err != nil {
		return err
	}
	if s.JITWarmup, err = l.jitWarmup(); err != nil {
		return err
	}
	if s.Together, err = parseTogether(l.v.Get("sweep")); err != nil {
		return fmt.Errorf("%s: %w", l.where("sweep"), err)
	}
	return nil
}

// parseTogether reads sweep.together: a list of groups of keys.
func parseTogether(v any) ([][]string, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("sweep: expected a map like {together: [[members, workers]]}, got %s", show(v))
	}
	for k := range m {
		if k != "together" {
			return nil, fmt.Errorf("unknown key %q in sweep (valid keys: together)", k)
		}
	}
	const shape = "sweep.together: expected a list of key groups like [[members, workers]]"
	groups, ok := m["together"].([]any)
	if !ok {
		return nil, fmt.Errorf("%s, got %s", shape, show(m["together"]))
	}
	var out [][]string
	for _, g := range groups {
		keys, ok := g.([]any)
		if !ok || len(keys) < 2 {
			return nil, fmt.Errorf("%s; each group names at least two keys, got %s", shape, show(g))
		}
		var group []string
		for _, k := range keys {
			group = append(group, formatScalar(k))
		}
		out = append(out, group)
	}
	return out, nil
}

// knobValues reads and normalizes every knob's merged value.
func (l *loader) knobValues() (map[string]any, error) {
	vals := map[string]any{}
	var errs []error
	for _, k := range knobs {
		v, err := normalize(k, l.v.Get(k.key))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", l.where(k.key), err))
			continue
		}
		vals[k.key] = v
	}
	return vals, errors.Join(errs...)
}

// keyOrder is the expansion order: the file's knobs in file order, then the
// knobs it left out in schema order.
func (l *loader) keyOrder() []string {
	var order []string
	for _, k := range l.file.order {
		if _, ok := knobByKey(k); ok && !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	for _, k := range knobs {
		if !slices.Contains(order, k.key) {
			order = append(order, k.key)
		}
	}
	return order
}

// secretSweeps refuses a list of values for a setting whose name marks it
// secret (redact.IsSecretKey: password, token, jaas, ...), such as
// broker_config ssl.keystore.password: [a, b]. Each value of a swept key
// becomes part of the run ids (r01-share-ssl_keystore_password-a), so of
// the folder names, run.json, reports, the console and the metrics'
// run_id label, where no masking can find it. The error names where the
// key was given and why, never the values.
func (l *loader) secretSweeps(dims []dim) error {
	var errs []string
	for _, d := range dims {
		if len(d.values) < 2 {
			continue
		}
		top, sub, _ := strings.Cut(d.key, ".")
		if redact.IsSecretKey(sub) || redact.IsSecretKey(top) {
			errs = append(errs, fmt.Sprintf("%s: %s: a list of %d values for a secret setting (its name marks it as one): "+
				"each value of a list goes into the run ids, hence folder names, reports and metric labels, where it cannot be masked; give one value",
				l.whereWithoutValue(d.key), d.key, len(d.values)))
			continue
		}
		for i, v := range d.values {
			if s := fmt.Sprint(v); redact.Text(s) != s {
				errs = append(errs, fmt.Sprintf("%s: %s: value %d of the list holds what the redaction masks as a secret (URL userinfo, a password= or token= setting): "+
					"a swept value goes into the run ids, where it cannot be masked; sweep values without secrets",
					l.whereWithoutValue(d.key), d.key, i+1))
				break
			}
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// whereWithoutValue is where, with the value of an override (--set
// key=value, SHAREBENCH_X=value) left out: for keys whose value is secret.
func (l *loader) whereWithoutValue(path string) string {
	w := l.where(path)
	top, _, _ := strings.Cut(path, ".")
	for _, o := range []string{l.origin[path], l.origin[top], l.nested[top]} {
		if name, _, ok := strings.Cut(o, "="); ok {
			w = strings.ReplaceAll(w, o, name) // "key=" would read as a setting to mask
		}
	}
	return w
}

// collectDims lists every list-valued key in expansion order.
func collectDims(order []string, vals map[string]any, sub map[string][]string) []dim {
	var dims []dim
	for _, key := range order {
		switch v := vals[key].(type) {
		case []any:
			dims = append(dims, dim{key, v})
		case map[string]any:
			for _, s := range subOrder(key, v, sub[key]) {
				if list, ok := v[s].([]any); ok {
					dims = append(dims, dim{key + "." + s, list})
				}
			}
		}
	}
	return dims
}

// subOrder orders the keys of processing or broker_config: file order first,
// then the rest (processing in schema order, broker settings sorted).
func subOrder(key string, m map[string]any, fileOrder []string) []string {
	var out []string
	for _, k := range fileOrder {
		if _, ok := m[k]; ok && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	rest := slices.Sorted(maps.Keys(m))
	if key == "processing" {
		rest = processingKeys
	}
	for _, k := range rest {
		if _, ok := m[k]; ok && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// groupAxes turns dimensions into axes, merging sweep.together groups into
// one axis placed where the group's first key is.
func groupAxes(dims []dim, together [][]string) ([]axis, error) {
	groupOf, err := groupIndex(dims, together)
	if err != nil {
		return nil, err
	}
	var axes []axis
	placed := map[int]bool{}
	for _, d := range dims {
		g, grouped := groupOf[d.key]
		if !grouped {
			axes = append(axes, axis{[]dim{d}})
			continue
		}
		if placed[g] {
			continue
		}
		placed[g] = true
		var members []dim
		for _, e := range dims {
			if h, ok := groupOf[e.key]; ok && h == g {
				members = append(members, e)
			}
		}
		axes = append(axes, axis{members})
	}
	return axes, nil
}

// groupIndex maps each key of sweep.together to its group, checking that
// every key is a list-valued dimension, in one group only, and that a
// group's lists have equal lengths.
func groupIndex(dims []dim, together [][]string) (map[string]int, error) {
	groupOf := map[string]int{}
	for g, keys := range together {
		var lengths []string
		first, equal := -1, true
		for _, k := range keys {
			if _, dup := groupOf[k]; dup {
				return nil, fmt.Errorf("sweep.together: %q appears in more than one group", k)
			}
			i := slices.IndexFunc(dims, func(d dim) bool { return d.key == k })
			if i < 0 {
				return nil, notAList(k, dims)
			}
			groupOf[k] = g
			n := len(dims[i].values)
			if first < 0 {
				first = n
			}
			equal = equal && n == first
			lengths = append(lengths, fmt.Sprintf("%s has %d", k, n))
		}
		if !equal {
			return nil, fmt.Errorf("sweep.together: [%s] advance together, so their lists need equal lengths; %s",
				strings.Join(keys, ", "), strings.Join(lengths, ", "))
		}
	}
	return groupOf, nil
}

// notAList explains why a sweep.together key is not a dimension.
func notAList(key string, dims []dim) error {
	top, sub, nested := strings.Cut(key, ".")
	_, known := knobByKey(top)
	if known && (!nested || isSettingsMap(top) || slices.Contains(processingKeys, sub)) {
		return fmt.Errorf("sweep.together: %q has a single value here; only keys whose values are lists can advance together", key)
	}
	var valid []string
	for _, d := range dims {
		valid = append(valid, d.key)
	}
	return fmt.Errorf("sweep.together: unknown key %q%s", key, suggest(key, valid))
}

// matrixSize is the number of runs, checked against MaxRuns.
func matrixSize(axes []axis, repeat int) (int, error) {
	total := float64(repeat)
	var parts []string
	for _, a := range axes {
		total *= float64(a.len())
		if a.len() > 1 {
			var keys []string
			for _, d := range a.dims {
				keys = append(keys, d.key)
			}
			parts = append(parts, fmt.Sprintf("%s %d", strings.Join(keys, "+"), a.len()))
		}
	}
	if total > MaxRuns {
		parts = append(parts, fmt.Sprintf("repeat %d", repeat))
		return 0, fmt.Errorf("the scenario expands to %.0f runs (%s); the limit is %d: shorten a list, advance lists together with sweep.together, or lower repeat",
			total, strings.Join(parts, " × "), MaxRuns)
	}
	return int(total) / repeat, nil
}

// expand builds the n value maps of the cross product, first axis slowest.
func expand(axes []axis, vals map[string]any, n int) []map[string]any {
	combos := make([]map[string]any, n)
	for i := range n {
		m := deepCopy(vals).(map[string]any)
		rem := i
		for a := len(axes) - 1; a >= 0; a-- {
			idx := rem % axes[a].len()
			rem /= axes[a].len()
			for _, d := range axes[a].dims {
				setAt(m, d.key, d.values[idx])
			}
		}
		combos[i] = m
	}
	return combos
}

// setAt sets a top-level key, or one entry of processing or broker_config.
func setAt(m map[string]any, key string, v any) {
	top, sub, nested := strings.Cut(key, ".")
	if !nested {
		m[top] = v
		return
	}
	m[top].(map[string]any)[sub] = v
}

// decodeAll decodes and validates each combination.
func (l *loader) decodeAll(s *Scenario, combos []map[string]any) ([]RunSpec, error) {
	s.Runs = make([]RunSpec, len(combos))
	probs := make([][]string, len(combos))
	for i, m := range combos {
		r, err := decodeRun(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %s%w", l.src, s.runPrefix(i), err)
		}
		if r.LoadMode == LoadMaxRate {
			r.MaxRate = l.file.maxRate
		}
		// One events list and one schedule for every run, shared (nothing
		// writes them): up to 10,000 runs times 10,000 steps would not be
		// held in memory as copies.
		r.Events = l.file.events
		if len(l.file.rateSchedule) > 0 {
			r.RateSchedule = l.file.rateSchedule
			r.Rate = PeakRate(r.RateSchedule) // what the recorder is sized for; the schedule is the load
		}
		if l.file.autoscale != nil {
			a := *l.file.autoscale
			r.Autoscale = &a
		}
		r.DeadLetter = l.file.deadLetter
		r.Destination = l.file.destination
		s.Runs[i] = r
		probs[i] = dedupe(append(processingKeyProblems(m["processing"]), r.problems()...))
	}
	return s.Runs, l.report(s, probs)
}

// report turns per-run problems into one error. A problem every run shares
// is reported once; the others name the run by number and by its dimension
// values, for the first few failing runs. Each names where its key's value
// came from: the file's line, or the --set or SHAREBENCH_* override.
func (l *loader) report(s *Scenario, probs [][]string) error {
	count := map[string]int{}
	for _, ps := range probs {
		for _, p := range ps {
			count[p]++
		}
	}
	var errs []error
	for _, p := range probs[0] {
		if count[p] == len(probs) {
			errs = append(errs, errors.New(l.locate(p)))
		}
	}
	failed := 0
	for i, ps := range probs {
		var own []string
		for _, p := range ps {
			if count[p] < len(probs) {
				own = append(own, p)
			}
		}
		if len(own) == 0 {
			continue
		}
		if failed++; failed > maxReportedRuns {
			continue
		}
		for _, p := range own {
			key, _, _ := strings.Cut(p, ": ")
			errs = append(errs, fmt.Errorf("%s: %s%s%s", l.where(key), s.runPrefix(i), p, l.alsoFrom(p)))
		}
	}
	if failed > maxReportedRuns {
		errs = append(errs, fmt.Errorf("%s: %d more runs fail validation", l.src, failed-maxReportedRuns))
	}
	return errors.Join(errs...)
}

// runPrefix names run i in errors of a multi-run scenario.
func (s *Scenario) runPrefix(i int) string {
	if len(s.Runs) <= 1 {
		return ""
	}
	var kv []string
	for _, c := range s.RunCoordinates(i) {
		kv = append(kv, c.Key+"="+c.Value)
	}
	return fmt.Sprintf("run %d (%s): ", i+1, strings.Join(kv, ", "))
}

// decodeRun decodes one combination into a RunSpec with mapstructure.
func decodeRun(m map[string]any) (RunSpec, error) {
	var r RunSpec
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		Result:      &r,
		ErrorUnused: true,
		DecodeHook: mapstructure.ComposeDecodeHookFunc(
			mapstructure.StringToTimeDurationHookFunc(),
			sizeHook,
		),
	})
	if err != nil {
		return r, err
	}
	return r, dec.Decode(m)
}

// sizeHook decodes sizes such as "16KiB" into int fields. Only the size keys
// (message_size, batch_size) can hold strings by the time runs are decoded:
// normalize rejects strings for every other integer key.
func sizeHook(from, to reflect.Type, data any) (any, error) {
	if from.Kind() != reflect.String || to.Kind() != reflect.Int {
		return data, nil
	}
	return parseSize(data.(string))
}

// replicate repeats the matrix repeat times (trial slowest), so trials of the
// same configuration are spread over the campaign rather than back to back;
// order says how each trial orders the matrix (trialOrder).
func replicate(runs []RunSpec, repeat int, order RepeatOrder, seed uint64) []RunSpec {
	out := make([]RunSpec, 0, len(runs)*repeat)
	rng := rand.New(rand.NewPCG(seed, 0))
	for t := range repeat {
		for _, i := range trialOrder(len(runs), t, order, rng) {
			r := runs[i]
			r.Trial = t
			r.BrokerConfig = maps.Clone(r.BrokerConfig)
			r.GroupConfig = maps.Clone(r.GroupConfig)
			out = append(out, r)
		}
	}
	return out
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// RepeatOrder is repeat_order: how the runs are ordered within each trial.
type RepeatOrder string

// The repeat orders.
const (
	RepeatSame      RepeatOrder = "same"
	RepeatAlternate RepeatOrder = "alternate"
	RepeatShuffle   RepeatOrder = "shuffle"
)

var repeatOrders = []RepeatOrder{RepeatSame, RepeatAlternate, RepeatShuffle}

// trialOrder is the order of the n matrix runs in trial t: matrix order
// (same; alternate's even trials), reversed (alternate's odd trials), or a
// permutation drawn from rng (shuffle; trial 0 too).
func trialOrder(n, t int, order RepeatOrder, rng *rand.Rand) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	switch order {
	case RepeatAlternate:
		if t%2 == 1 {
			slices.Reverse(idx)
		}
	case RepeatShuffle:
		rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	}
	return idx
}

// DefaultJITWarmup is jit_warmup's default, and MinJITWarmup and
// MaxJITWarmup its bounds (0 is also accepted: no warm-up). The warm-up
// runs at least MinJITWarmup before its settle decision, so a shorter bound
// would end it before the compile rate was read.
const (
	DefaultJITWarmup = 20 * time.Second
	MinJITWarmup     = 10 * time.Second
	MaxJITWarmup     = 10 * time.Minute
)

// jitWarmup reads jit_warmup: 0, or a duration from MinJITWarmup to
// MaxJITWarmup.
func (l *loader) jitWarmup() (time.Duration, error) {
	v, err := toDuration(l.v.Get("jit_warmup"))
	var d time.Duration
	if err == nil {
		d, _ = time.ParseDuration(v.(string))
		if d != 0 && (d < MinJITWarmup || d > MaxJITWarmup) {
			err = fmt.Errorf("expected 0 (no warm-up) or a duration from %v to %v, got %v", MinJITWarmup, MaxJITWarmup, d)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("%s: jit_warmup: %w", l.where("jit_warmup"), err)
	}
	return d, nil
}

// repeatOrder reads repeat_order and repeat_seed; shuffle without a seed
// draws one, recorded in the scenario.
func (l *loader) repeatOrder(s *Scenario) error {
	order := RepeatOrder(formatScalar(l.v.Get("repeat_order")))
	if !slices.Contains(repeatOrders, order) {
		return fmt.Errorf("%s: repeat_order: expected same, alternate or shuffle, got %q", l.where("repeat_order"), order)
	}
	s.RepeatOrder = order
	v := l.v.Get("repeat_seed")
	if v == nil {
		if order == RepeatShuffle {
			s.RepeatSeed = rand.Uint64N(1<<53) + 1 // 1 to 2⁵³: a YAML integer the loader reads back
		}
		return nil
	}
	seed, err := toInt(v)
	if err == nil && seed < 1 {
		err = fmt.Errorf("must be ≥ 1, got %d", seed)
	}
	if err == nil && order != RepeatShuffle {
		err = fmt.Errorf("only repeat_order: shuffle takes a seed (repeat_order is %s)", order)
	}
	if err != nil {
		return fmt.Errorf("%s: repeat_seed: %w", l.where("repeat_seed"), err)
	}
	s.RepeatSeed = uint64(seed)
	return nil
}
