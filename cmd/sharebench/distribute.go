package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/sharebench/sharebench/campaign/shard"
)

// distributeFlags choose how many agents (shards) a run is split over and
// where they run.
type distributeFlags struct {
	Shards     int
	Distribute string // "local" or "k8s"
	// AgentBinary is the sharebench binary local agents run (default: this
	// executable).
	AgentBinary string
	// Kubernetes: the agent image, namespace and kubeconfig/context.
	Image, Namespace, Kubeconfig, KubeContext string
}

func (d *distributeFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&d.Shards, "shards", 0, "split every run over `N` agents (0: the scenario's shards:, default 1 = one process)")
	fs.StringVar(&d.Distribute, "distribute", "local", "where agents run: local (processes on this machine) or k8s (an Indexed Job in the current kube context)")
	fs.StringVar(&d.AgentBinary, "agent-binary", "", "local agents: the sharebench binary to start (default: this executable)")
	fs.StringVar(&d.Image, "image", "", "k8s agents: the container image holding sharebench (see make agent-image)")
	fs.StringVar(&d.Namespace, "namespace", "", "k8s agents: namespace (default: the kube context's)")
	fs.StringVar(&d.Kubeconfig, "kubeconfig", "", "k8s agents: kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&d.KubeContext, "kube-context", "", "k8s agents: kube context (default: the current one)")
}

// k8sNeedsImage is the error of --distribute k8s without --image (the dry
// run's preflight and the launcher say the same).
const k8sNeedsImage = "--image: --distribute k8s needs the agent image (build it with make agent-image and push it where the cluster's nodes pull from; see docs/how-to/run-on-kubernetes.md)"

// k8sNotBuilt is the error of --distribute k8s and of the k8s subcommands in
// a binary built without the build tag k8s (the default: client-go is most
// of what a build would otherwise compile).
const k8sNotBuilt = "this sharebench was built without the Kubernetes launcher (the build tag k8s compiles it in); " +
	"build it with make build-k8s, i.e. go build -tags k8s -o bin/sharebench ./cmd/sharebench (see docs/how-to/run-on-kubernetes.md)"

// launchers are the ways agents are started, by --distribute value; each
// file that provides one registers it in an init function.
var launchers = map[string]func(d distributeFlags) (shard.Launcher, error){}

// launcher returns the launcher --distribute names.
func (d distributeFlags) launcher() (shard.Launcher, error) {
	mk, ok := launchers[d.Distribute]
	if !ok {
		names := make([]string, 0, len(launchers))
		for n := range launchers {
			names = append(names, n)
		}
		slices.Sort(names)
		return nil, fmt.Errorf("--distribute %q: expected one of %s", d.Distribute, strings.Join(names, ", "))
	}
	return mk(d)
}
