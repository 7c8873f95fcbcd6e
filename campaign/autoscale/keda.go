package autoscale

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sharebench/sharebench/blocks"
)

// KEDATarget is where a rendered ScaledObject points: the consumers'
// workload and what its trigger reads.
type KEDATarget struct {
	Name       string // the ScaledObject's name
	Namespace  string // "" leaves metadata.namespace out
	Deployment string // spec.scaleTargetRef.name
	// Share selects the trigger: a share group reads the lag from
	// Prometheus (sharebench_lag_records, or a Kafka exporter's share-group
	// lag), a consumer group through KEDA's Kafka scaler.
	Share            bool
	Group, Topic     string
	BootstrapServers string // Kafka trigger
	PrometheusURL    string // Prometheus trigger
	// Query overrides the Prometheus query (the default averages
	// sharebench_lag_records over the policy's window).
	Query string
	// Source says which measurement the policy comes from (a comment).
	Source string
}

// The ScaledObject's fields sharebench writes (keda.sh/v1alpha1), in
// KEDA's order. Every value is data: the YAML encoder quotes what needs it,
// so no name or address can add a key or change a value's type.
type (
	scaledObject struct {
		APIVersion string           `yaml:"apiVersion"`
		Kind       string           `yaml:"kind"`
		Metadata   objectMeta       `yaml:"metadata"`
		Spec       scaledObjectSpec `yaml:"spec"`
	}
	objectMeta struct {
		Name      string `yaml:"name"`
		Namespace string `yaml:"namespace,omitempty"`
	}
	scaledObjectSpec struct {
		ScaleTargetRef  scaleTargetRef `yaml:"scaleTargetRef"`
		PollingInterval int            `yaml:"pollingInterval"`
		MinReplicaCount int            `yaml:"minReplicaCount"`
		MaxReplicaCount int            `yaml:"maxReplicaCount"`
		Advanced        advanced       `yaml:"advanced"`
		Triggers        []trigger      `yaml:"triggers"`
	}
	scaleTargetRef struct {
		Name string `yaml:"name"`
	}
	advanced struct {
		HPA struct {
			Behavior struct {
				ScaleUp   hpaRules `yaml:"scaleUp"`
				ScaleDown hpaRules `yaml:"scaleDown"`
			} `yaml:"behavior"`
		} `yaml:"horizontalPodAutoscalerConfig"`
	}
	hpaRules struct {
		StabilizationWindowSeconds int         `yaml:"stabilizationWindowSeconds"`
		Policies                   []hpaPolicy `yaml:"policies"`
	}
	hpaPolicy struct {
		Type          string `yaml:"type"`
		Value         int    `yaml:"value"`
		PeriodSeconds int    `yaml:"periodSeconds"`
	}
	trigger struct {
		Type       string          `yaml:"type"`
		MetricType string          `yaml:"metricType,omitempty"`
		Metadata   triggerMetadata `yaml:"metadata"`
	}
	// triggerMetadata: KEDA reads every metadata value as a string.
	triggerMetadata struct {
		ServerAddress      string `yaml:"serverAddress,omitempty"`
		Query              string `yaml:"query,omitempty"`
		Threshold          string `yaml:"threshold,omitempty"`
		BootstrapServers   string `yaml:"bootstrapServers,omitempty"`
		ConsumerGroup      string `yaml:"consumerGroup,omitempty"`
		Topic              string `yaml:"topic,omitempty"`
		LagThreshold       string `yaml:"lagThreshold,omitempty"`
		AllowIdleConsumers string `yaml:"allowIdleConsumers,omitempty"`
	}
)

// KEDA writes p as a KEDA ScaledObject (keda.sh/v1alpha1) and returns it
// with the parts of the policy KEDA has no equivalent for. The mapping:
// min/max → minReplicaCount/maxReplicaCount; poll → pollingInterval;
// N and M → the HPA's scale-up and scale-down stabilization windows;
// step per cooldown → an HPA Pods policy (step pods per cooldown period);
// threshold → the trigger's per-replica target (lagThreshold, or
// threshold with metricType AverageValue).
//
// The manifest is built as data and encoded, so any string in t is a
// string in the YAML; checking that the names suit Kubernetes is the
// caller's (it knows which flag gave them).
func KEDA(p Policy, t KEDATarget) (string, []string, error) {
	if p.Signal != blocks.SignalLag {
		return "", nil, fmt.Errorf("signal %q: KEDA scales on a metric's value per replica; the estimated time to drain needs the produce and consume rates in one query: use signal lag, or write the query yourself with --query", p.Signal)
	}
	if p.Max <= p.Min || p.Min < 0 || p.Step < 1 {
		return "", nil, fmt.Errorf("replicas: need min < max and step ≥ 1, got min %d max %d step %d", p.Min, p.Max, p.Step)
	}
	if t.Deployment == "" || t.Group == "" || t.Topic == "" {
		return "", nil, fmt.Errorf("the target needs a deployment, a group and a topic")
	}
	secs := func(d time.Duration) int { return int(math.Ceil(d.Seconds())) }
	rules := func(window time.Duration) hpaRules {
		return hpaRules{StabilizationWindowSeconds: secs(window),
			Policies: []hpaPolicy{{Type: "Pods", Value: p.Step, PeriodSeconds: max(1, secs(p.Cooldown))}}}
	}
	o := scaledObject{APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject", Metadata: objectMeta{Name: t.Name, Namespace: t.Namespace},
		Spec: scaledObjectSpec{ScaleTargetRef: scaleTargetRef{Name: t.Deployment}, PollingInterval: max(1, secs(pollingInterval(p))),
			MinReplicaCount: p.Min, MaxReplicaCount: p.Max}}
	o.Spec.Advanced.HPA.Behavior.ScaleUp = rules(p.OutAfter)
	o.Spec.Advanced.HPA.Behavior.ScaleDown = rules(p.InAfter)
	if t.Share {
		q := t.Query
		if q == "" {
			q = fmt.Sprintf(`sum(avg_over_time(sharebench_lag_records{consumer_type="share"}[%ds]))`, max(1, secs(p.Window)))
		}
		o.Spec.Triggers = []trigger{{Type: "prometheus", MetricType: "AverageValue", Metadata: triggerMetadata{
			ServerAddress: cmp.Or(t.PrometheusURL, "http://prometheus:9090"), Query: q, Threshold: num(p.Threshold)}}}
	} else {
		o.Spec.Triggers = []trigger{{Type: "kafka", Metadata: triggerMetadata{
			BootstrapServers: cmp.Or(t.BootstrapServers, "kafka:9092"), ConsumerGroup: t.Group, Topic: t.Topic,
			LagThreshold: num(p.Threshold), AllowIdleConsumers: "false"}}}
	}
	var doc yaml.Node
	if err := doc.Encode(o); err != nil {
		return "", nil, fmt.Errorf("encode the ScaledObject: %w", err)
	}
	if !t.Share {
		lineComment(&doc, "allowIdleConsumers", "rule 3: no replica beyond the partitions")
	}
	un := unmapped(p, t)
	doc.HeadComment = fmt.Sprintf("Rendered by sharebench autoscale render from %s.\n"+
		"The policy as measured: signal lag per replica > %s for %v (window %v), in after %v at ≤ %s per replica, cooldown %v, step %d, replicas %d..%d.",
		commentText(t.Source), num(p.Threshold), p.OutAfter, p.Window, p.InAfter, num(p.InBelow), p.Cooldown, p.Step, p.Min, p.Max)
	foot := []string{"Not expressible in a ScaledObject (KEDA has no equivalent):"}
	for _, u := range un {
		foot = append(foot, "  - "+u)
	}
	doc.FootComment = strings.Join(foot, "\n")
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return "", nil, fmt.Errorf("encode the ScaledObject: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", nil, fmt.Errorf("encode the ScaledObject: %w", err)
	}
	return b.String(), un, nil
}

// lineComment sets the comment beside the value of the first key named key
// in n's mappings (depth first).
func lineComment(n *yaml.Node, key, text string) bool {
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 && c.Value == key {
			n.Content[i+1].LineComment = text
			return true
		}
		if lineComment(c, key, text) {
			return true
		}
	}
	return false
}

// commentText escapes what would end a YAML comment line (a newline, any
// control character) so text from a run.json stays inside its comment.
func commentText(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// unmapped lists the parts of the policy a ScaledObject cannot state.
func unmapped(p Policy, t KEDATarget) []string {
	var out []string
	if !t.Share {
		out = append(out, fmt.Sprintf("window %v: KEDA's Kafka scaler reads the lag as it is at each poll; the HPA's stabilization window picks the highest (up) or lowest (down) recommendation over N or M, it does not average the lag", p.Window))
	}
	out = append(out, fmt.Sprintf("in_below %s: the HPA scales in in proportion to lag ÷ threshold, not when the lag is near zero; the scale-down stabilization window (M) is the closest it gets", num(p.InBelow)))
	out = append(out, fmt.Sprintf("cooldown %v between any two actions: KEDA's cooldownPeriod only delays scaling to zero; the rendered Pods policies limit each direction to step pods per cooldown, separately", p.Cooldown))
	if p.MaxLatency > 0 {
		out = append(out, fmt.Sprintf("rule 4 (no scale-out while latency > %v): KEDA takes the highest replica count any trigger asks for; no trigger can veto a scale-out", p.MaxLatency))
	}
	if t.Share {
		out = append(out, "KEDA's Kafka scaler reads consumer-group offsets only: a share group's lag comes through the Prometheus trigger (sharebench_lag_records here; in production a Kafka exporter that reads DescribeShareGroupOffsets)")
	}
	return out
}

// pollingInterval is how often the policy was evaluated; 0 reads as
// KEDA's 30 s default.
func pollingInterval(p Policy) time.Duration {
	if p.Poll > 0 {
		return p.Poll
	}
	return 30 * time.Second
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
