#!/usr/bin/env bash
# first-result.sh: time a fresh machine's first `make bench` (issue 27,
# docs/explanation/measurement.md#harness-footprint "Time to the first result"): a clone of this
# repository's HEAD in a temporary folder with empty Go module and build
# caches, an empty Maven repository and an empty sharebench cache, then
# `go mod download`, `make build` and `make bench PROVIDER=process`, each
# timed. The registries must be reachable. Everything it made is removed at
# the end, also on error or Ctrl-C.
set -euo pipefail
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
T=$(mktemp -d "${TMPDIR:-/tmp}/sharebench-first-result.XXXXXX")
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
git clone -q "$repo" "$T/repo"
export HOME=$T/home GOMODCACHE=$T/gomod GOCACHE=$T/gocache XDG_CACHE_HOME=$T/xdg
mkdir -p "$HOME"
cd "$T/repo"
now() { date +%s.%N; }
s0=$(now); go mod download
s1=$(now); make build >/dev/null
s2=$(now); make bench PROVIDER=process >"$T/bench.log" 2>&1 || { tail -20 "$T/bench.log"; exit 1; }
s3=$(now)
tail -6 "$T/bench.log"
echo "packages built: $(go list -deps ./cmd/sharebench | wc -l); binary: $(stat -c %s bin/sharebench) bytes"
awk -v a="$s0" -v b="$s1" -v c="$s2" -v d="$s3" 'BEGIN {
	printf "go mod download %.1f s; make build %.1f s; make bench %.1f s; first result %.1f s (target 240)\n", b-a, c-b, d-c, d-a }'
