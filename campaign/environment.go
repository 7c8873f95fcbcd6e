package campaign

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/procfs"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/version"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
)

// brokerInfoTimeout bounds asking the brokers for their API versions.
const brokerInfoTimeout = 10 * time.Second

// environment describes where a cluster's runs run, enough to reproduce
// them: the cluster as the provider started it, the brokers' Kafka
// version and finalized features as they report them, the host, the
// sharebench build and (sc non-nil) the scenario's digests.
func environment(ctx context.Context, cl infra.Cluster, sc *scenarios.Scenario) runs.Environment {
	h := harness()
	env := runs.Environment{
		Provider: cl.Provider(), Image: infra.ImageOf(cl), KafkaVersion: cl.KafkaVersion(), IsKafka: cl.IsKafka(),
		SharePreview: runs.SharePreviewOf(cl.KafkaVersion()),
		Nodes:        cl.Nodes(), BrokerConfig: cl.BrokerConfig(), Host: hostInfo(), Harness: &h,
		Broker: brokerInfo(ctx, cl.Bootstrap(), clusterConnOpts(cl)...),
	}
	if sc != nil {
		env.Scenario = scenarioDigest(sc)
	}
	return env
}

// harness is the sharebench build and the java on PATH, read once.
var harness = sync.OnceValue(func() runs.Harness {
	b := version.Get()
	return runs.Harness{Version: b.Version, Revision: b.Revision, Dirty: b.Dirty, Go: b.Go, FranzGo: b.FranzGo,
		Java: version.Java()}
})

// hostInfo describes the machine: Go's view, and the CPU model, physical
// cores and memory from /proc (left empty where /proc cannot be read).
func hostInfo() runs.Host {
	name, _ := os.Hostname()
	h := runs.Host{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
		GoVersion: strings.TrimPrefix(runtime.Version(), "go"), Hostname: name}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return h
	}
	if cpus, err := fs.CPUInfo(); err == nil && len(cpus) > 0 {
		h.CPUModel = cpus[0].ModelName
		cores := map[string]bool{}
		for _, c := range cpus {
			if c.CoreID != "" {
				cores[c.PhysicalID+"/"+c.CoreID] = true
			}
		}
		h.Cores = len(cores)
	}
	if mi, err := fs.Meminfo(); err == nil && mi.MemTotalBytes != nil {
		h.MemoryBytes = *mi.MemTotalBytes
	}
	return h
}

// brokerInfo asks the brokers for their API versions: the release they
// match (franz-go's guess) and the finalized feature levels, from the
// lowest node id that answers.
func brokerInfo(ctx context.Context, bootstrap []string, conn ...kgo.Opt) *runs.BrokerInfo {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap...)}, conn...)...)
	if err != nil {
		return &runs.BrokerInfo{Error: err.Error()}
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, brokerInfoTimeout)
	defer cancel()
	vs, err := kadm.NewClient(cl).ApiVersions(ctx)
	if err != nil {
		return &runs.BrokerInfo{Error: err.Error()}
	}
	info := &runs.BrokerInfo{Error: "no broker answered ApiVersions"}
	for _, v := range vs.Sorted() {
		if v.Err != nil || v.Raw() == nil {
			continue
		}
		info = &runs.BrokerInfo{VersionGuess: v.VersionGuess(), Features: map[string]int16{}}
		for _, f := range v.Raw().FinalizedFeatures {
			info.Features[f.Name] = f.MaxVersionLevel
		}
		break
	}
	return info
}

// scenarioDigest hashes the scenario's source text (the file, or the
// built-in's YAML) and the resolved scenario, which includes the
// SHAREBENCH_* and --set overrides.
func scenarioDigest(sc *scenarios.Scenario) *runs.ScenarioDigest {
	d := &runs.ScenarioDigest{Source: sc.Source}
	if b, err := json.Marshal(sc); err == nil {
		d.ResolvedSHA256 = sha256Hex(b)
	}
	var src []byte
	var err error
	if name, ok := strings.CutPrefix(sc.Source, scenarios.BuiltinPrefix); ok {
		src, err = scenarios.BuiltinSource(name)
	} else if sc.Source != "" {
		src, err = os.ReadFile(sc.Source)
	}
	if err == nil && src != nil {
		d.SourceSHA256 = sha256Hex(src)
	}
	return d
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
