# sharebench: the two commands are `make bench` and `make test`.
PROVIDER ?= auto
ARGS ?=
# KAFKA_VERSION: the image to build (empty: the default version, infra.DefaultKafkaVersion)
KAFKA_VERSION ?=
GO ?= go

.PHONY: bench soak test test-long test-race test-unit test-short build build-k8s test-k8s vet lint gofmt-check bench-go mutate clean image agent-image docs k8s-e2e

## bench: built-in consumer-group vs share-group comparison on a Kafka 4.2 cluster it starts itself
# Built, not `go run`: a built binary carries its VCS revision, which run records keep.
bench: build
	bin/sharebench bench --provider $(PROVIDER) $(ARGS)

## soak: the built-in soak (a steady workload, 30 min on each group type) on a Kafka 4.2 cluster it starts
# itself; run.json keeps the harness's RSS, goroutines, open files and recorder memory, and flags a growth of
# more than 10 % from minute 5 (harness_growth). Not part of `make test`. Longer: ARGS='--set duration=2h'.
soak: build
	bin/sharebench run --scenario soak --provider $(PROVIDER) $(ARGS)

## test: vet, the race pass (test-race), the k8s build's tests, then the unit and integration tests
# (build tag integration) on real Kafka 4.2 brokers and containers started by the tests.
# -p 2: two test binaries at a time. The campaign package (about 24 min, one shared broker) runs
# beside the other packages, which run one after another (about 20 min); its tests mostly wait on
# the broker and the clock, and neither side slowed the other when measured (docs/contributing/testing.md, "Time").
# The second pass runs the unit tests again without -race (a few of its minutes): go test
# cannot select only the tagged tests, and -race over the broker tests would slow the harness
# that their throughput and latency assertions measure.
test: vet test-race test-k8s
	$(GO) test -tags integration -p 2 -timeout 45m -count=1 ./...

## test-k8s: the tests of the k8s command and launcher flags, in the build that has them (build tag k8s);
# the tests of package campaign/shard/k8s itself run in every build (it is only left out of the binary)
test-k8s:
	$(GO) test -tags k8s -count=1 -run 'K8s|Hostile|NoPlantedSecretLeaves' ./cmd/sharebench

## test-long: the integration tests plus the long ones (build tags integration and long): measurements
# such as the client runners' CPU per record and the mutual-TLS runs of the client runners. On demand,
# not part of `make test` (docs/contributing/testing.md).
test-long:
	$(GO) test -tags 'integration long' -p 1 -timeout 90m -count=1 ./...

## test-race: the unit tests under -race (no build tag, no broker): the hot path is atomics and
# lock striping, and kfake runs drive it from many goroutines. About 7.5 min on 2 cores,
# compile included (docs/contributing/testing.md).
test-race:
	$(GO) test -race -count=1 -timeout 20m ./...

## test-unit: the quick loop: unit tests only (no build tag), no JVM and no container
test-unit:
	$(GO) test -count=1 ./...

## test-short: the same as test-unit (kept for habit)
test-short: test-unit

## bench-go: go test benchmarks of the per-record path, in exactly the packages that have benchmarks
BENCH_PKGS = $(sort $(dir $(shell grep -rl --include='*_test.go' '^func Benchmark' .)))
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem $(BENCH_PKGS)

## mutate: mutation testing of the measurement model (tools/mutate), one package at a time with a
# per-mutant timeout; prints every surviving mutant and the kill rate per package (docs/contributing/testing.md)
MUTATE_TIMEOUT ?= 60s
mutate:
	$(GO) run ./tools/mutate -pkg ./results -timeout $(MUTATE_TIMEOUT) -files recorder.go,snapshot.go,ledger.go,histogram.go,intervallog.go,stamp.go,timeseries.go
	$(GO) run ./tools/mutate -pkg ./results/runs -timeout $(MUTATE_TIMEOUT) -files ceiling.go,validity.go,drain.go
	$(GO) run ./tools/mutate -pkg ./collectors -timeout $(MUTATE_TIMEOUT) -files broker.go,brokersummary.go,lag.go,procfs.go

## image: the local broker image sharebench/kafka:<version> (Debian rootfs + JRE 17 + Maven-resolved jars,
# docker import) for the container provider where apache/kafka cannot be pulled; a no-op when it exists.
image:
	infra/image/build.sh $(KAFKA_VERSION)

## agent-image: the agent image $(AGENT_IMAGE) for sharded runs on Kubernetes (--distribute k8s): the static
# sharebench binary in a minimal root file system, docker import; no pulls, no registry (docs/how-to/run-on-kubernetes.md)
AGENT_IMAGE ?= sharebench/agent:dev
agent-image:
	infra/agent-image/build.sh $(AGENT_IMAGE)

## k8s-e2e: the Kubernetes launcher against a real kube-apiserver, etcd and Job controller started inside
# one test process, with a stand-in kubelet and a real Kafka broker (tools/k8se2e, a module of its own).
# On demand, not part of `make test`: it compiles Kubernetes (docs/how-to/run-on-kubernetes.md, "How this was tested").
k8s-e2e:
	cd tools/k8se2e && $(GO) test -count=1 -timeout 30m -v -run TestKubernetesEndToEnd .

## docs: regenerate the reference (docs/reference/): scenario-keys.md and docs/reference/scenario.schema.json from
## package scenarios, poc-profile.md and docs/reference/poc-profile.schema.json from package poc, figures.md and
## scenarios/figures_gen.go from the figure registry (results/runs), cli.md from the commands (cmd/sharebench)
docs:
	$(GO) generate ./results/runs
	$(GO) generate ./scenarios
	$(GO) generate ./poc
	$(GO) test ./cmd/sharebench -run TestCLIReferenceUpToDate -count=1 -args -update

## build: bin/sharebench without the Kubernetes launcher (--distribute k8s, sharebench k8s): client-go is
# about half the packages a build would compile otherwise (docs/how-to/run-on-kubernetes.md)
build:
	$(GO) build -o bin/sharebench ./cmd/sharebench

## build-k8s: bin/sharebench with the Kubernetes launcher (build tag k8s)
build-k8s:
	$(GO) build -tags k8s -o bin/sharebench ./cmd/sharebench

## vet: the four builds: without the integration tests, with them, with the long ones too, and the
# Kubernetes build (tag k8s: the launcher and its command)
vet:
	$(GO) vet ./...
	$(GO) vet -tags integration ./...
	$(GO) vet -tags 'integration long' ./...
	$(GO) vet -tags k8s ./...

## lint: gofmt check, go vet and staticcheck, each over every build (with and without the integration
# tests, and the Kubernetes build, tag k8s). staticcheck is the tool pinned in go.mod (`tool` directive, checksums in go.sum), so
# `go tool` builds it from the module cache; its checks are staticcheck's defaults (no config file).
GOFMT ?= $(shell $(GO) env GOROOT)/bin/gofmt
lint: gofmt-check vet
	$(GO) tool staticcheck ./...
	$(GO) tool staticcheck -tags integration ./...
	$(GO) tool staticcheck -tags 'integration long' ./...
	$(GO) tool staticcheck -tags k8s ./...

## gofmt-check: fails listing the files gofmt would change (the first step of lint)
gofmt-check:
	@echo "gofmt -l ."; files=$$($(GOFMT) -l .) || exit 1; \
	if [ -n "$$files" ]; then echo "lint: gofmt: these files are not formatted (run gofmt -w on them):"; echo "$$files"; exit 1; fi

clean:
	rm -rf bin
