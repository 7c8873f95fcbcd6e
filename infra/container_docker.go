package infra

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/sharebench/sharebench/internal/envvars"
)

// Labels on every container and network the container provider creates.
// They are the provider's own clean-up handle: it does not depend on the
// Ryuk reaper (whose image cannot be pulled everywhere).
const (
	labelOwner   = "sharebench"         // "1"
	labelPID     = "sharebench.pid"     // the harness process that created it
	labelHost    = "sharebench.host"    // that process's host name
	labelCluster = "sharebench.cluster" // the cluster id, one per Start
)

// engineCheckTimeout bounds the question "does a Docker engine answer?".
const engineCheckTimeout = 5 * time.Second

var dockerEnvOnce sync.Once

// dockerEnv turns off what testcontainers-go would start besides our
// containers: the Ryuk reaper (its image cannot be pulled where no registry
// answers; the provider cleans up by label instead). A value the user set
// wins. testcontainers reads its configuration once, so this runs before
// the first testcontainers call.
func dockerEnv() {
	dockerEnvOnce.Do(func() {
		if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !set {
			_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
		}
		// testcontainers would otherwise print every step on stderr; the
		// provider reports its own progress.
		tclog.SetDefault(tclog.NewNoopLogger())
	})
}

// dockerClient connects to the Docker engine testcontainers-go finds
// (DOCKER_HOST, the default socket, ...) and checks that it answers.
func dockerClient(ctx context.Context) (*testcontainers.DockerClient, error) {
	dockerEnv()
	ctx, cancel := context.WithTimeout(ctx, engineCheckTimeout)
	defer cancel()
	dc, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("docker engine: %w", err)
	}
	if _, err := dc.Ping(ctx, client.PingOptions{}); err != nil {
		dc.Close()
		return nil, fmt.Errorf("docker engine: %w", err)
	}
	return dc, nil
}

// ImageEnv names the environment variable that forces the container
// provider's image.
const ImageEnv = envvars.KafkaImage

// ContainerImage reports whether the container provider can run brokers of
// version here: a Docker engine answers and a broker image is usable
// (chooseImage, honouring $SHAREBENCH_KAFKA_IMAGE; an absent public image is
// pulled once). It returns the image, or an error that says what is missing.
func ContainerImage(ctx context.Context, version string) (string, error) {
	dc, err := dockerClient(ctx)
	if err != nil {
		return "", err
	}
	defer dc.Close()
	return chooseImage(ctx, dc, os.Getenv(ImageEnv), version, io.Discard)
}

// ownLabels are the labels of everything a cluster creates.
func ownLabels(clusterID string) map[string]string {
	host, _ := os.Hostname()
	return map[string]string{
		labelOwner:   "1",
		labelPID:     strconv.Itoa(os.Getpid()),
		labelHost:    host,
		labelCluster: clusterID,
	}
}

// orphaned reports whether something with these labels was left by a
// harness on this host that no longer runs. A harness killed with SIGKILL
// cannot clean up; the next Start on the host does it. Containers of
// another host sharing the engine, or of a live harness, are left alone.
func orphaned(labels map[string]string) bool {
	host, _ := os.Hostname()
	if labels[labelOwner] != "1" || labels[labelHost] != host {
		return false
	}
	pid, err := strconv.Atoi(labels[labelPID])
	if err != nil || pid <= 0 {
		return false
	}
	return pid != os.Getpid() && !processAlive(pid)
}

// removeOrphans removes the containers and networks that harnesses killed
// before their clean-up left behind (see orphaned), and says what it did.
func removeOrphans(ctx context.Context, dc *testcontainers.DockerClient, log io.Writer) error {
	filter := client.Filters{}.Add("label", labelOwner+"=1")
	cs, err := dc.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: filter})
	if err != nil {
		return fmt.Errorf("docker: list containers: %w", err)
	}
	var errs []error
	for _, c := range cs.Items {
		if !orphaned(c.Labels) {
			continue
		}
		progress(log, "removing container %s left by harness pid %s (cluster %s), which is gone",
			strings.TrimPrefix(firstOr(c.Names, c.ID), "/"), c.Labels[labelPID], c.Labels[labelCluster])
		if _, err := dc.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			errs = append(errs, fmt.Errorf("docker: remove orphan container %s: %w", c.ID, err))
		}
	}
	ns, err := dc.NetworkList(ctx, client.NetworkListOptions{Filters: filter})
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("docker: list networks: %w", err))...)
	}
	for _, n := range ns.Items {
		if !orphaned(n.Labels) {
			continue
		}
		progress(log, "removing network %s left by harness pid %s, which is gone", n.Name, n.Labels[labelPID])
		if _, err := dc.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("docker: remove orphan network %s: %w", n.Name, err))
		}
	}
	return errors.Join(errs...)
}

func firstOr(s []string, def string) string {
	if len(s) > 0 {
		return s[0]
	}
	return def
}

// PublicImage is the default broker image: the Apache Kafka project's own.
func PublicImage(version string) string { return "apache/kafka:" + version }

// LocalImage is the image `make image` builds from local parts (a Debian
// rootfs with a JRE 17 and the Maven-resolved jars), for machines where the
// public image cannot be pulled.
func LocalImage(version string) string { return "sharebench/kafka:" + version }

// pullTimeout bounds the one pull attempt of an absent image.
const pullTimeout = 30 * time.Second

// pullFailures remembers images whose pull failed in this process, so that
// a campaign of many clusters tries once.
var pullFailures sync.Map // image -> error

// chooseImage returns the image the brokers run: want if set, else the
// public image, else the local one. An absent image is pulled once (bounded
// by pullTimeout); when the public image is neither present nor pullable,
// the local image is used if it has been built.
func chooseImage(ctx context.Context, dc *testcontainers.DockerClient, want, version string, log io.Writer) (string, error) {
	if want != "" {
		if err := ensureImage(ctx, dc, want, log); err != nil {
			return "", fmt.Errorf("container provider: image %s: %w", want, err)
		}
		return want, nil
	}
	public, local := PublicImage(version), LocalImage(version)
	pubErr := ensureImage(ctx, dc, public, log)
	if pubErr == nil {
		return public, nil
	}
	if _, err := dc.ImageInspect(ctx, local); err == nil {
		progress(log, "image %s unavailable (%v); using the local image %s", public, pubErr, local)
		return local, nil
	}
	return "", fmt.Errorf("container provider: image %s is not present and could not be pulled (%v), and the local image %s has not been built: run `make image`", public, pubErr, local)
}

// ensureImage returns nil if image is present, else tries one pull.
func ensureImage(ctx context.Context, dc *testcontainers.DockerClient, image string, log io.Writer) error {
	if _, err := dc.ImageInspect(ctx, image); err == nil {
		return nil
	}
	if err, failed := pullFailures.Load(image); failed {
		return err.(error)
	}
	progress(log, "pulling %s (at most %v)", image, pullTimeout)
	err := pull(ctx, dc, image)
	if err != nil {
		err = fmt.Errorf("pull: %w", err)
		pullFailures.Store(image, err)
	}
	return err
}

func pull(ctx context.Context, dc *testcontainers.DockerClient, image string) error {
	ctx, cancel := context.WithTimeout(ctx, pullTimeout)
	defer cancel()
	resp, err := dc.ImagePull(ctx, image, client.ImagePullOptions{})
	if err != nil {
		return err
	}
	defer resp.Close()
	return resp.Wait(ctx)
}
