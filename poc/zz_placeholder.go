package poc

// PLACEHOLDER (h-poc-run): minimal stand-ins for the other half of issue 37
// (LoadProfile, StageOne, Decide and the renderings), only so that Plan and
// the poc command compile and test before the two branches merge. The lead
// deletes this file at merge and takes the real ones.

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// LoadProfile is a placeholder: a YAML profile read with few checks.
func LoadProfile(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	var raw struct {
		Name          string               `yaml:"name"`
		SteadyRate    float64              `yaml:"steady_rate"`
		PeakRate      float64              `yaml:"peak_rate"`
		PeakFor       string               `yaml:"peak_for"`
		Processing    map[string]string    `yaml:"processing"`
		Workers       int                  `yaml:"workers"`
		Partitions    int                  `yaml:"partitions"`
		Keys          string               `yaml:"keys"`
		Restrictions  map[string]any       `yaml:"restrictions"`
		Transient     float64              `yaml:"transient_rate"`
		Poison        float64              `yaml:"poison_rate"`
		DeliveryLimit int                  `yaml:"delivery_limit"`
		Destination   *map[string]any      `yaml:"destination"`
		Budget        string               `yaml:"budget"`
		Extra         map[string]yaml.Node `yaml:",inline"`
	}
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := n.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if raw.Name == "" || raw.SteadyRate <= 0 || raw.Partitions < 1 {
		line := 1
		if len(n.Content) > 0 {
			line = n.Content[0].Line
		}
		return nil, fmt.Errorf("%s:%d: name, steady_rate and partitions: required", path, line)
	}
	p := &Profile{Name: raw.Name, Source: path, SteadyRate: raw.SteadyRate, PeakRate: max(raw.PeakRate, raw.SteadyRate),
		Workers: max(raw.Workers, 1), Partitions: raw.Partitions, RecordBytes: 1024, Keys: raw.Keys,
		TransientRate: raw.Transient, PoisonRate: raw.Poison, DeliveryLimit: raw.DeliveryLimit, Budget: 15 * time.Minute}
	if p.DeliveryLimit == 0 {
		p.DeliveryLimit = 5
	}
	p.PeakFor, _ = time.ParseDuration(raw.PeakFor)
	p.Restrictions.OrderingPerKey, _ = raw.Restrictions["ordering_per_key"].(bool)
	p.Restrictions.ExactlyOnce, _ = raw.Restrictions["exactly_once"].(bool)
	p.Restrictions.Framework, _ = raw.Restrictions["framework"].(string)
	if b, err := time.ParseDuration(raw.Budget); err == nil {
		p.Budget = b
	}
	pr := raw.Processing
	d := func(k string) time.Duration { v, _ := time.ParseDuration(pr[k]); return v }
	p.Processing = scenarios.Processing{Model: pr["model"], Time: d("time"), Min: d("min"), Max: d("max"), Mean: d("mean"), Median: d("median"), P99: d("p99")}
	if raw.Destination != nil {
		m := *raw.Destination
		pd := &ProfileDestination{}
		pd.Embedded, _ = m["embedded"].(bool)
		if s, ok := m["write_time"].(string); ok {
			pd.WriteTime, _ = time.ParseDuration(s)
		}
		switch c := m["capacity"].(type) {
		case int:
			pd.Capacity = float64(c)
		case float64:
			pd.Capacity = c
		}
		p.Destination = pd
	}
	return p, nil
}

// StageOne is a placeholder: ordering, exactly-once and the frameworks.
func StageOne(p Profile) []Finding {
	r := p.Restrictions
	return []Finding{
		{Key: "ordering_per_key", Applies: r.OrderingPerKey},
		{Key: "exactly_once", Applies: r.ExactlyOnce},
		{Key: "framework", Applies: r.Framework == "kafka_connect" || r.Framework == "kafka_streams"},
	}
}

// Decide is a placeholder: NOT KAFKA means no verdict; else inconclusive.
func Decide(p Profile, plan Plan, recs []runs.Record, notKafka bool) Decision {
	d := Decision{SchemaVersion: 1, Profile: p.Name, Verdict: VerdictInconclusive, NotKafka: notKafka, LeftOut: plan.LeftOut,
		Restrictions: StageOne(p)}
	d.Headline = fmt.Sprintf("placeholder decision over %d run(s)", len(recs))
	if notKafka {
		d.Verdict, d.Headline = "", "NOT KAFKA: no verdict"
	}
	return d
}

// WriteJSON is a placeholder.
func (d Decision) WriteJSON(path string) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Markdown is a placeholder.
func (d Decision) Markdown() string { return "# Decision\n\n" + d.Headline + "\n" }

// HTMLSection is a placeholder.
func (d Decision) HTMLSection() string {
	return `<section id="decision"><h2>Decision</h2><p>` + html.EscapeString(d.Headline) + `</p></section>`
}
