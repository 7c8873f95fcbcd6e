#!/usr/bin/env bash
# Builds the agent image (default sharebench/agent:dev) that
# `sharebench run --distribute k8s` starts as an Indexed Job, offline: no
# base image is pulled and no registry is contacted.
#   - sharebench built statically (CGO_ENABLED=0);
#   - `sharebench k8s rootfs` writes the root file system as a tar: the
#     binary at /sharebench, this host's CA bundle, /etc/passwd with the
#     non-root user 65532, /tmp (campaign/shard/k8s/rootfs.go, unit-tested);
#   - `docker import` turns the tar into the image, entry point /sharebench,
#     user 65532.
# Push it where the cluster's nodes pull from (docs/how-to/run-on-kubernetes.md).
#
# Usage: infra/agent-image/build.sh [IMAGE]   (needs a running Docker engine)
set -euo pipefail
cd "$(dirname "$0")/../.."

image=${1:-sharebench/agent:dev}
log() { echo "agent-image: $*" >&2; }

command -v docker >/dev/null || { log "the docker command is missing: apt-get install docker.io"; exit 1; }
if ! docker info >/dev/null 2>&1; then
  log "no Docker engine answers (docker info failed). Start one, e.g. as root:"
  log "  dockerd --storage-driver=vfs >/tmp/dockerd.log 2>&1 &    (what .ci/run does)"
  log "then run make agent-image again."
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
began=$SECONDS
# -tags k8s: `k8s rootfs` below is in the Kubernetes build only (docs/how-to/run-on-kubernetes.md).
CGO_ENABLED=0 go build -tags k8s -o "$work/sharebench" ./cmd/sharebench
"$work/sharebench" k8s rootfs --binary "$work/sharebench" --out "$work/rootfs.tar"
revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
docker import \
  --change 'ENTRYPOINT ["/sharebench"]' \
  --change 'USER 65532' \
  --change 'WORKDIR /tmp' \
  --change 'ENV HOME=/tmp' \
  --change "LABEL org.opencontainers.image.title=sharebench-agent org.opencontainers.image.revision=$revision" \
  "$work/rootfs.tar" "$image" >/dev/null
log "$image built in $((SECONDS - began)) s ($(du -h "$work/rootfs.tar" | cut -f1) root file system); push it where the cluster pulls from, e.g.:"
log "  docker tag $image REGISTRY/sharebench-agent:$revision && docker push REGISTRY/sharebench-agent:$revision"
