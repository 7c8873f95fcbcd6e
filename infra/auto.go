package infra

import (
	"context"
	"fmt"
	"sync"
)

// AutoProvider picks a provider at its first Start: the container provider
// when a Docker engine answers and a broker image is usable (present, or
// pulled), else the process provider. It says which and why in one
// progress line, and keeps the choice for later Starts.
type AutoProvider struct {
	once   sync.Once
	chosen Provider
}

// Name returns "auto"; a cluster's Provider() names the one chosen.
func (*AutoProvider) Name() string { return "auto" }

// Start starts the cluster on the chosen provider.
func (p *AutoProvider) Start(ctx context.Context, spec ClusterSpec) (Cluster, error) {
	p.once.Do(func() {
		var why string
		p.chosen, why = chooseProvider(ctx, spec)
		progress(spec.Log, "provider auto: %s (%s)", p.chosen.Name(), why)
	})
	return p.chosen.Start(ctx, spec)
}

// chooseProvider is the auto rule, with the reason for the choice.
func chooseProvider(ctx context.Context, spec ClusterSpec) (Provider, string) {
	version := spec.KafkaVersion
	if version == "" {
		version = DefaultKafkaVersion
	}
	image, err := ContainerImage(ctx, version)
	if err != nil {
		return &ProcessProvider{}, fmt.Sprintf("container provider unusable: %v", err)
	}
	return &ContainerProvider{Image: image}, fmt.Sprintf("a Docker engine answers; image %s", image)
}
