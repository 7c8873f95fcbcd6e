//go:build k8s

// The Kubernetes launcher and the k8s subcommands link client-go (about 285 packages):
// only a build with the tag k8s compiles them in (make build-k8s); k8s_off.go is
// what the default build has instead.

package main

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/sharebench/sharebench/campaign/shard"
	"github.com/sharebench/sharebench/campaign/shard/k8s"
	"github.com/sharebench/sharebench/connection"
)

// k8sBuilt: this binary has the Kubernetes launcher.
const k8sBuilt = true

func init() {
	launchers["k8s"] = newK8sLauncher
}

// newK8sLauncher is --distribute k8s: an Indexed Job in the kube context
// that --kubeconfig and --kube-context (or $KUBECONFIG and the current
// context) name.
func newK8sLauncher(d distributeFlags) (shard.Launcher, error) {
	if strings.TrimSpace(d.Image) == "" {
		return nil, usageError(errors.New(k8sNeedsImage))
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = d.Kubeconfig
	cfg := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: d.KubeContext})
	where := "kubeconfig"
	if d.Kubeconfig != "" {
		where = "--kubeconfig " + d.Kubeconfig
	}
	if d.KubeContext != "" {
		where += ", --kube-context " + d.KubeContext
	}
	rest, err := cfg.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("--distribute k8s: %s: %w", where, err)
	}
	ns := d.Namespace
	if ns == "" {
		if ns, _, err = cfg.Namespace(); err != nil {
			return nil, fmt.Errorf("--distribute k8s: namespace of the kube context (%s): %w", where, err)
		}
	}
	client, err := kubernetes.NewForConfig(rest)
	if err != nil {
		return nil, fmt.Errorf("--distribute k8s: %s: %w", where, err)
	}
	return k8s.NewLauncher(client, ns, k8s.Params{Image: d.Image}, k8s.WithLogger(slog.Default())), nil
}

func newK8sCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "k8s", Short: "Kubernetes: render the agents' manifests; write the agent image's root file system"}
	cmd.AddCommand(newK8sRenderCmd(), newK8sRootFSCmd())
	return cmd
}

type k8sRenderFlags struct {
	scenario, image, namespace, name, connection, out string
	controlTopic, resultsTopic                        string
	bootstrap, labels                                 []string
	shards                                            int
	res                                               k8s.Resources
	activeDeadline, ttl                               time.Duration
}

func newK8sRenderCmd() *cobra.Command {
	var f k8sRenderFlags
	cmd := &cobra.Command{
		Use:   "render",
		Short: "Print the Kubernetes objects that run a scenario's agents (ServiceAccount, ConfigMap, Secret, Indexed Job) as YAML; creates nothing",
		Example: "  sharebench k8s render --scenario partition-cap --shards 3 --image registry.example/sharebench-agent:v1 \\\n" +
			"      --bootstrap kafka-0.kafka.bench.svc:9092 --namespace bench",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return renderK8s(cmd, f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.scenario, "scenario", "", "scenario YAML file, or the name of a built-in scenario")
	fs.IntVar(&f.shards, "shards", 0, "number of agents (`N` >= 1): completions and parallelism of the Indexed Job")
	fs.StringVar(&f.image, "image", "", "the agent image (make agent-image), as the cluster's nodes pull it")
	fs.StringVar(&f.namespace, "namespace", "", "namespace of every object (default: none, so kubectl apply -n decides)")
	fs.StringSliceVar(&f.bootstrap, "bootstrap", nil, "Kafka bootstrap addresses as the pods reach them (host:port,...)")
	fs.StringVar(&f.connection, "connection", "", "connection `FILE` (TLS, SASL; inline values only) for a Secret the agents read")
	fs.StringVar(&f.name, "name", "", "name of the objects (default: sharebench-<scenario name>)")
	fs.StringVar(&f.controlTopic, "control-topic", "", "control topic the agents follow (default: <name>-control)")
	fs.StringVar(&f.resultsTopic, "results-topic", "", "topic the agents write their results to (default: <name>-results)")
	fs.StringVar(&f.res.CPURequest, "cpu-request", "", "agent container CPU request (e.g. 500m)")
	fs.StringVar(&f.res.CPULimit, "cpu-limit", "", "agent container CPU limit")
	fs.StringVar(&f.res.MemoryRequest, "memory-request", "", "agent container memory request (e.g. 512Mi)")
	fs.StringVar(&f.res.MemoryLimit, "memory-limit", "", "agent container memory limit")
	fs.StringArrayVar(&f.labels, "label", nil, "extra label `LABEL` (KEY=VALUE) on every object and pod (repeatable)")
	fs.DurationVar(&f.activeDeadline, "active-deadline", 0, "bound on the Job's run time (default 6h)")
	fs.DurationVar(&f.ttl, "ttl-after-finished", 0, "how long a finished Job stays before Kubernetes deletes it (default 1h)")
	fs.StringVarP(&f.out, "out", "o", "-", "where to write: - (standard output), a .yaml file, or a directory (then <name>.yaml in it)")
	return cmd
}

func renderK8s(cmd *cobra.Command, f k8sRenderFlags) error {
	if f.scenario == "" {
		return usageError(fmt.Errorf("--scenario: give a scenario file or a built-in name"))
	}
	src, sc, err := openShown(f.scenario)
	if err != nil {
		return usageError(fmt.Errorf("--scenario %s: %w", f.scenario, err))
	}
	p := k8s.Params{
		Name: f.name, Namespace: f.namespace, Image: f.image, Shards: f.shards,
		ScenarioYAML: src, Resources: f.res, ActiveDeadline: f.activeDeadline, TTLAfterFinish: f.ttl,
		AgentArgs: shard.AgentArgs{Bootstrap: f.bootstrap, ControlTopic: f.controlTopic, ResultsTopic: f.resultsTopic,
			Shards: f.shards, Campaign: sc.Name},
	}
	if p.Name == "" {
		p.Name = k8s.NameFor(sc.Name, "")
	}
	if p.AgentArgs.ControlTopic == "" {
		p.AgentArgs.ControlTopic = p.Name + "-control"
	}
	if p.AgentArgs.ResultsTopic == "" {
		p.AgentArgs.ResultsTopic = p.Name + "-results"
	}
	if f.connection != "" {
		b, err := connection.ReadFile(f.connection)
		if err != nil {
			return usageError(fmt.Errorf("--connection: %w", err))
		}
		if err := k8s.CheckConnection(f.connection, b); err != nil {
			return usageError(fmt.Errorf("--connection: %w", err))
		}
		p.ConnectionYAML = b
	}
	if len(f.labels) > 0 {
		p.Labels = map[string]string{}
		for _, kv := range f.labels {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return usageError(fmt.Errorf("--label %q: expected KEY=VALUE", kv))
			}
			p.Labels[k] = v
		}
	}
	objs, err := k8s.Render(p)
	if err != nil {
		return usageError(err)
	}
	y, err := objs.YAML()
	if err != nil {
		return err
	}
	header := fmt.Sprintf("# sharebench k8s render: scenario %s, %d agent(s), image %s.\n"+
		"# The agents wait on topic %s for a coordinator; sharebench run --distribute k8s creates these objects itself.\n",
		sc.Name, f.shards, f.image, p.AgentArgs.ControlTopic)
	y = append([]byte(header), y...)
	if f.out == "-" || f.out == "" {
		_, err := cmd.OutOrStdout().Write(y)
		return err
	}
	path := f.out
	if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		path = filepath.Join(path, p.Name+".yaml")
	}
	if err := os.WriteFile(path, y, 0o600); err != nil { // may hold a Secret
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (%d objects)\n", path, len(objs.List()))
	return nil
}

func newK8sRootFSCmd() *cobra.Command {
	var binary, ca, out string
	cmd := &cobra.Command{
		Use:   "rootfs",
		Short: "Write the agent image's root file system as a tar (used by make agent-image: docker import turns it into the image)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if binary == "" {
				return usageError(fmt.Errorf("--binary: give the statically linked sharebench binary (CGO_ENABLED=0 go build)"))
			}
			if out == "" {
				return usageError(fmt.Errorf("--out: give the tar file to write"))
			}
			var b bytes.Buffer
			if err := k8s.WriteRootFS(&b, binary, ca, time.Unix(0, 0)); err != nil {
				return err
			}
			if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&binary, "binary", "", "the statically linked sharebench binary to put at /sharebench")
	cmd.Flags().StringVar(&ca, "ca-bundle", k8s.DefaultCABundle, "PEM bundle of trusted CAs to put at /etc/ssl/certs/ca-certificates.crt")
	cmd.Flags().StringVar(&out, "out", "", "tar `FILE` to write")
	return cmd
}
