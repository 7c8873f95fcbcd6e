#!/usr/bin/env bash
# Builds the local broker image sharebench/kafka:<version> from local parts,
# for machines where the public apache/kafka image cannot be pulled:
#   - a Debian rootfs (debootstrap --variant=minbase) with a headless JRE 17,
#     from the Debian mirror this host's apt already uses;
#   - the Maven-resolved Kafka jars in /opt/kafka/libs and the JMX exporter
#     agent in /opt/kafka/agent (`sharebench jars`, the process provider's
#     jar cache);
# imported with `docker import`. The container provider starts brokers with
# its own start script, so this image needs no entry point of its own.
#
# Caches: the rootfs tarball in $SHAREBENCH_CACHE/image (default
# ~/.cache/sharebench/image), so a rebuild skips debootstrap. An image that
# already carries this script's layout label is left alone.
#
# Usage: infra/image/build.sh [KAFKA_VERSION]   (needs root for debootstrap)
set -euo pipefail
cd "$(dirname "$0")/../.."

# Bump when the image's content changes: an image with another layout label
# is rebuilt.
layout=1
log() { echo "image: $*" >&2; }

jars=$(go run ./cmd/sharebench jars ${1:+--kafka-version "$1"})
version=${jars##*/kafka-}
image="sharebench/kafka:$version"

if [[ "$(docker image inspect -f '{{index .Config.Labels "sharebench.image.layout"}}' "$image" 2>/dev/null || true)" == "$layout" ]]; then
  log "$image exists (layout $layout); nothing to do"
  exit 0
fi

# The suite and mirror this host's apt uses (deb822 sources or the classic
# one-line list); the repository names no mirror host.
# shellcheck disable=SC1091
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
mirror=""
if [[ -r /etc/apt/sources.list.d/debian.sources ]]; then
  mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [[ -z "$mirror" && -r /etc/apt/sources.list ]]; then
  mirror=$(awk '/^deb / && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' /etc/apt/sources.list)
fi
[[ -n "$suite" && -n "$mirror" ]] || { log "cannot read the Debian suite and mirror from /etc/os-release and apt sources"; exit 1; }

cache=${SHAREBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sharebench}/image
mkdir -p "$cache"
rootfs_tar="$cache/rootfs-$suite-jre17.tar"
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT

began=$SECONDS
if [[ ! -s "$rootfs_tar" ]]; then
  command -v debootstrap >/dev/null || { log "debootstrap not found: apt-get install debootstrap"; exit 1; }
  log "debootstrap $suite (minbase, openjdk-17-jre-headless) from the host's mirror into $work/rootfs"
  debootstrap --variant=minbase --include=openjdk-17-jre-headless "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # Package caches and lists are not needed at run time.
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -cf "$rootfs_tar.tmp" . && mv "$rootfs_tar.tmp" "$rootfs_tar"
  rm -rf "$work/rootfs"
  log "rootfs cached as $rootfs_tar after $((SECONDS - began)) s"
else
  log "using cached rootfs $rootfs_tar"
fi

# The Kafka layer: jars on the classpath, the agent beside it.
mkdir -p "$work/opt/kafka/libs" "$work/opt/kafka/agent"
cp "$jars"/*.jar "$work/opt/kafka/libs/"
cp "$jars"/agent/*.jar "$work/opt/kafka/agent/"
cp "$rootfs_tar" "$work/image.tar"
tar -C "$work" -rf "$work/image.tar" ./opt/kafka

log "importing $image"
docker import \
  -c "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  -c 'CMD ["/bin/sh", "-c", "echo sharebench/kafka: started by the container provider, which supplies its own start script; exit 1"]' \
  -c "LABEL sharebench.image.layout=$layout sharebench.kafka.version=$version" \
  "$work/image.tar" "$image" >/dev/null
log "$image built in $((SECONDS - began)) s"
