package main

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/sharebench/sharebench/campaign"
	"github.com/sharebench/sharebench/campaign/autoscale"
	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

func newAutoscaleCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "autoscale", Short: "The scaling policy a run measured, for production"}
	cmd.AddCommand(newAutoscaleRenderCmd())
	return cmd
}

type autoscaleRenderFlags struct {
	scenario, run, consumerType               string
	name, namespace, deployment, group, topic string
	bootstrap, prometheus, query              string
	out                                       string
}

func newAutoscaleRenderCmd() *cobra.Command {
	var f autoscaleRenderFlags
	cmd := &cobra.Command{
		Use:   "render",
		Short: "Print a run's autoscale: policy as a KEDA ScaledObject (Prometheus trigger for share groups, Kafka trigger for consumer groups), with what KEDA cannot express",
		Example: "  sharebench autoscale render --run sharebench-results/autoscale-spike-*/runs/r02-share/run.json --deployment orders --group orders --topic orders\n" +
			"  sharebench autoscale render --scenario autoscale-spike --consumer-type consumer --deployment orders --group orders --topic orders",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return renderAutoscale(cmd, f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.run, "run", "", "a run's run.json: the policy as it was measured (its spec, rule 3's cap applied)")
	fs.StringVar(&f.scenario, "scenario", "", "or a scenario file or built-in name with autoscale: (its first run of --consumer-type)")
	fs.StringVar(&f.consumerType, "consumer-type", "", "with --scenario: consumer or share (default: the first run's)")
	fs.StringVar(&f.deployment, "deployment", "", "the consumers' Deployment (scaleTargetRef.name; required)")
	fs.StringVar(&f.group, "group", "", "the production group id (required)")
	fs.StringVar(&f.topic, "topic", "", "the production topic (required)")
	fs.StringVar(&f.name, "name", "", "the ScaledObject's name (default: the deployment's)")
	fs.StringVar(&f.namespace, "namespace", "", "metadata.namespace (default: none, so kubectl apply -n decides)")
	fs.StringVar(&f.bootstrap, "bootstrap", "", "consumer groups: bootstrapServers of the Kafka trigger (default kafka:9092)")
	fs.StringVar(&f.prometheus, "prometheus", "", "share groups: serverAddress of the Prometheus trigger (default http://prometheus:9090)")
	fs.StringVar(&f.query, "query", "", "share groups: the Prometheus query of the lag (default: sharebench_lag_records averaged over the window)")
	fs.StringVarP(&f.out, "out", "o", "-", "where to write the manifest: - (standard output) or a file")
	return cmd
}

// autoscaleSpec finds the run spec whose policy is rendered. A run.json's
// spec meets the scenario's own validation (RunSpec.Validate): a
// hand-edited value is refused with the file and the key that holds it.
func autoscaleSpec(f autoscaleRenderFlags) (scenarios.RunSpec, string, error) {
	switch {
	case (f.run == "") == (f.scenario == ""):
		return scenarios.RunSpec{}, "", errors.New("give --run (a run.json) or --scenario, one of them")
	case f.run != "" && f.consumerType != "":
		return scenarios.RunSpec{}, "", errors.New("--consumer-type: only with --scenario (a run.json holds one run, of one group type)")
	case f.run != "":
		r, err := runs.ReadRun(f.run)
		if err != nil {
			return scenarios.RunSpec{}, "", fmt.Errorf("--run: %w", err)
		}
		if r.Spec.Autoscale == nil {
			return scenarios.RunSpec{}, "", fmt.Errorf("--run %s: spec.autoscale: absent: the run had no autoscale: policy", f.run)
		}
		if err := r.Spec.Validate(); err != nil {
			var lines []string
			for _, p := range strings.Split(err.Error(), "\n") {
				lines = append(lines, fmt.Sprintf("--run %s: spec.%s", f.run, p))
			}
			return scenarios.RunSpec{}, "", errors.New(strings.Join(lines, "\n"))
		}
		return *r.Spec, "run " + r.RunID, nil
	}
	_, sc, err := openShown(f.scenario)
	if err != nil {
		return scenarios.RunSpec{}, "", fmt.Errorf("--scenario %s: %w", f.scenario, err)
	}
	for _, r := range sc.Runs {
		if r.Autoscale != nil && (f.consumerType == "" || string(r.ConsumerType) == f.consumerType) {
			return r, "scenario " + sc.Name + " (" + string(r.ConsumerType) + ")", nil
		}
	}
	return scenarios.RunSpec{}, "", fmt.Errorf("--scenario %s: no run with autoscale: and consumer_type %q", f.scenario, f.consumerType)
}

// kafkaTopicRE is Kafka's rule for a topic name (at most 249 of these
// characters, not . or ..).
var kafkaTopicRE = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,249}$`)

// checkRenderFlags checks every value autoscale render writes into the
// manifest against the rule of the field it fills, each error naming the
// flag and the rule: Kubernetes' for object names (DNS-1123 subdomain) and
// namespaces (DNS-1123 label), Kafka's for topics, host:port for the
// bootstrap servers, an http(s) URL for Prometheus, plain text for the
// group and the query. A flag the run's trigger would not use is refused.
func checkRenderFlags(f autoscaleRenderFlags, share bool) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	k8sName := func(flag, v, rule string, check func(string) []string) {
		if msgs := check(v); len(msgs) > 0 {
			bad("%s %q: expected a %s: %s", flag, v, rule, strings.Join(msgs, "; "))
		}
	}
	text := func(flag, v string, newlines bool) {
		if !utf8.ValidString(v) {
			bad("%s %q: not UTF-8 text", flag, v)
		} else if i := strings.IndexFunc(v, func(r rune) bool { return unicode.IsControl(r) && !(newlines && (r == '\n' || r == '\t')) }); i >= 0 {
			bad("%s %q: holds the control character %U; expected plain text", flag, v, []rune(v[i:])[0])
		}
	}
	if f.deployment == "" || f.group == "" || f.topic == "" {
		bad("give --deployment, --group and --topic (the production workload, group id and topic)")
	}
	if f.deployment != "" {
		k8sName("--deployment", f.deployment, "Deployment name (DNS-1123 subdomain, Kubernetes' rule for object names)", validation.IsDNS1123Subdomain)
	}
	if f.name != "" {
		k8sName("--name", f.name, "ScaledObject name (DNS-1123 subdomain, Kubernetes' rule for object names)", validation.IsDNS1123Subdomain)
	}
	if f.namespace != "" {
		k8sName("--namespace", f.namespace, "namespace (DNS-1123 label, Kubernetes' rule for namespaces)", validation.IsDNS1123Label)
	}
	if f.topic != "" && (!kafkaTopicRE.MatchString(f.topic) || f.topic == "." || f.topic == "..") {
		bad("--topic %q: expected a Kafka topic name: 1 to 249 of a-z, A-Z, 0-9, '.', '_' and '-', not . or ..", f.topic)
	}
	text("--group", f.group, false)
	text("--query", f.query, true)
	switch {
	case share && f.bootstrap != "":
		bad("--bootstrap: the run is a share group, whose trigger is Prometheus (KEDA's Kafka scaler reads consumer-group offsets only); give --prometheus")
	case !share && (f.prometheus != "" || f.query != ""):
		bad("--prometheus/--query: the run is a consumer group, whose trigger is KEDA's Kafka scaler; give --bootstrap")
	}
	if f.bootstrap != "" {
		for _, a := range strings.Split(f.bootstrap, ",") {
			if err := shard.CheckBootstrap(a); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if f.prometheus != "" {
		u, err := url.Parse(f.prometheus)
		switch {
		case err != nil || strings.IndexFunc(f.prometheus, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
			bad("--prometheus %q: expected an http or https URL without white space like http://prometheus:9090", f.prometheus)
		case u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "":
			bad("--prometheus %q: expected an http or https URL with a host like http://prometheus:9090", f.prometheus)
		case u.User != nil:
			bad("--prometheus: holds credentials (user:password@); a manifest is no place for them: give KEDA a TriggerAuthentication")
		}
	}
	return errors.Join(errs...)
}

func renderAutoscale(cmd *cobra.Command, f autoscaleRenderFlags) error {
	s, source, err := autoscaleSpec(f)
	if err != nil {
		return usageError(err)
	}
	share := s.ConsumerType == vocab.ShareGroup
	if err := checkRenderFlags(f, share); err != nil {
		return usageError(err)
	}
	y, unmapped, err := autoscale.KEDA(campaign.AutoscalePolicy(s), autoscale.KEDATarget{Name: cmp.Or(f.name, f.deployment), Namespace: f.namespace,
		Deployment: f.deployment, Share: share, Group: f.group, Topic: f.topic,
		BootstrapServers: f.bootstrap, PrometheusURL: f.prometheus, Query: f.query, Source: source})
	if err != nil {
		return usageError(fmt.Errorf("autoscale render: %w", err))
	}
	if f.out == "-" || f.out == "" {
		if _, err := fmt.Fprint(cmd.OutOrStdout(), y); err != nil {
			return err
		}
	} else if err := os.WriteFile(f.out, []byte(y), 0o644); err != nil {
		return usageError(fmt.Errorf("--out: %w", err))
	} else {
		fmt.Fprintln(cmd.OutOrStdout(), "wrote", f.out)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "autoscale render: %d part(s) of the policy have no KEDA equivalent (listed at the end of the YAML)\n", len(unmapped))
	return nil
}
