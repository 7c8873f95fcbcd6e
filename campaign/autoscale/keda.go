package autoscale

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
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

// KEDA writes p as a KEDA ScaledObject (keda.sh/v1alpha1) and returns it
// with the parts of the policy KEDA has no equivalent for. The mapping:
// min/max → minReplicaCount/maxReplicaCount; poll → pollingInterval;
// N and M → the HPA's scale-up and scale-down stabilization windows;
// step per cooldown → an HPA Pods policy (step pods per cooldown period);
// threshold → the trigger's per-replica target (lagThreshold, or
// threshold with metricType AverageValue).
func KEDA(p Policy, t KEDATarget) (string, []string, error) {
	if p.Signal != Lag {
		return "", nil, fmt.Errorf("signal %q: KEDA scales on a metric's value per replica; the estimated time to drain needs the produce and consume rates in one query: use signal lag, or write the query yourself with --query", p.Signal)
	}
	if p.Max <= p.Min || p.Min < 0 || p.Step < 1 {
		return "", nil, fmt.Errorf("replicas: need min < max and step ≥ 1, got min %d max %d step %d", p.Min, p.Max, p.Step)
	}
	if t.Deployment == "" || t.Group == "" || t.Topic == "" {
		return "", nil, fmt.Errorf("the target needs a deployment, a group and a topic")
	}
	secs := func(d time.Duration) int { return int(math.Ceil(d.Seconds())) }
	var b strings.Builder
	w := func(indent int, format string, args ...any) {
		fmt.Fprintf(&b, "%s%s\n", strings.Repeat("  ", indent), fmt.Sprintf(format, args...))
	}
	w(0, "# Rendered by sharebench autoscale render from %s.", t.Source)
	w(0, "# The policy as measured: signal lag per replica > %s for %v (window %v), in after %v at ≤ %s per replica, cooldown %v, step %d, replicas %d..%d.",
		num(p.Threshold), p.OutAfter, p.Window, p.InAfter, num(p.InBelow), p.Cooldown, p.Step, p.Min, p.Max)
	w(0, "apiVersion: keda.sh/v1alpha1")
	w(0, "kind: ScaledObject")
	w(0, "metadata:")
	w(1, "name: %s", t.Name)
	if t.Namespace != "" {
		w(1, "namespace: %s", t.Namespace)
	}
	w(0, "spec:")
	w(1, "scaleTargetRef:")
	w(2, "name: %s", t.Deployment)
	w(1, "pollingInterval: %d", max(1, secs(p.Poll())))
	w(1, "minReplicaCount: %d", p.Min)
	w(1, "maxReplicaCount: %d", p.Max)
	w(1, "advanced:")
	w(2, "horizontalPodAutoscalerConfig:")
	w(3, "behavior:")
	w(4, "scaleUp:")
	w(5, "stabilizationWindowSeconds: %d", secs(p.OutAfter))
	w(5, "policies:")
	w(5, "- type: Pods")
	w(6, "value: %d", p.Step)
	w(6, "periodSeconds: %d", max(1, secs(p.Cooldown)))
	w(4, "scaleDown:")
	w(5, "stabilizationWindowSeconds: %d", secs(p.InAfter))
	w(5, "policies:")
	w(5, "- type: Pods")
	w(6, "value: %d", p.Step)
	w(6, "periodSeconds: %d", max(1, secs(p.Cooldown)))
	w(1, "triggers:")
	if t.Share {
		q := t.Query
		if q == "" {
			q = fmt.Sprintf(`sum(avg_over_time(sharebench_lag_records{consumer_type="share"}[%ds]))`, max(1, secs(p.Window)))
		}
		w(1, "- type: prometheus")
		w(2, "metricType: AverageValue")
		w(2, "metadata:")
		w(3, "serverAddress: %s", cmpOr(t.PrometheusURL, "http://prometheus:9090"))
		w(3, "query: %s", strconv.Quote(q))
		w(3, "threshold: %s", strconv.Quote(num(p.Threshold)))
	} else {
		w(1, "- type: kafka")
		w(2, "metadata:")
		w(3, "bootstrapServers: %s", cmpOr(t.BootstrapServers, "kafka:9092"))
		w(3, "consumerGroup: %s", t.Group)
		w(3, "topic: %s", t.Topic)
		w(3, "lagThreshold: %s", strconv.Quote(num(p.Threshold)))
		w(3, "allowIdleConsumers: \"false\"  # rule 3: no replica beyond the partitions")
	}
	un := unmapped(p, t)
	w(0, "# Not expressible in a ScaledObject (KEDA has no equivalent):")
	for _, u := range un {
		w(0, "#   - %s", u)
	}
	return b.String(), un, nil
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

// Poll is how often the policy was evaluated (a Policy carries no poll of
// its own: the harness sets it); 0 reads as KEDA's 30 s default.
func (p Policy) Poll() time.Duration {
	if p.PollEvery > 0 {
		return p.PollEvery
	}
	return 30 * time.Second
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
