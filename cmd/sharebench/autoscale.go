package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sharebench/sharebench/campaign"
	"github.com/sharebench/sharebench/campaign/autoscale"
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
	return cmd
}

// autoscaleSpec finds the run spec whose policy is rendered.
func autoscaleSpec(f autoscaleRenderFlags) (scenarios.RunSpec, string, error) {
	switch {
	case (f.run == "") == (f.scenario == ""):
		return scenarios.RunSpec{}, "", errors.New("give --run (a run.json) or --scenario, one of them")
	case f.run != "":
		r, err := runs.ReadRun(f.run)
		if err != nil {
			return scenarios.RunSpec{}, "", fmt.Errorf("--run: %w", err)
		}
		if r.Spec == nil || r.Spec.Autoscale == nil {
			return scenarios.RunSpec{}, "", fmt.Errorf("--run %s: the run had no autoscale: policy", f.run)
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

func renderAutoscale(cmd *cobra.Command, f autoscaleRenderFlags) error {
	s, source, err := autoscaleSpec(f)
	if err != nil {
		return usageError(err)
	}
	name := f.name
	if name == "" {
		name = f.deployment
	}
	y, unmapped, err := autoscale.KEDA(campaign.AutoscalePolicy(s), autoscale.KEDATarget{Name: name, Namespace: f.namespace,
		Deployment: f.deployment, Share: s.ConsumerType == vocab.ShareGroup, Group: f.group, Topic: f.topic,
		BootstrapServers: f.bootstrap, PrometheusURL: f.prometheus, Query: f.query, Source: source})
	if err != nil {
		return usageError(fmt.Errorf("autoscale render: %w (give --deployment, --group and --topic)", err))
	}
	if _, err := fmt.Fprint(cmd.OutOrStdout(), y); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "autoscale render: %d part(s) of the policy have no KEDA equivalent (listed at the end of the YAML)\n", len(unmapped))
	return nil
}
