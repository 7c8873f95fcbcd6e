// Package infra owns the Kafka clusters a benchmark runs against: the cluster
// providers (process: local broker JVMs from Maven-resolved jars; container:
// broker containers through testcontainers-go, with the local image build in
// infra/image; auto: container where Docker answers, else process; external;
// kfake: franz-go's in-process fake, never a benchmark target), the broker
// configuration map every provider applies the same way, fault injection,
// and the clean-up guarantee that no JVM or container outlives the harness.
//
// It also owns the long-lived named clusters of `sharebench cluster
// up|status|down` (NamedCluster, supervisor.go: the detached supervisor
// process, its state file, its start and stop), the one readiness and
// metadata probe every caller uses (ready.go: waitServing, ProbeBrokers),
// and the one liveness check of a pid (ProcessAlive, alive.go): it answers
// "gone" only when it knows, and counts doubt (an unreadable /proc) as
// alive, with the reason, because every caller acts on "gone" by doing what
// would be wrong for a live process. /proc is read through
// github.com/prometheus/procfs; retries go through internal/retry.
//
// infra must not import producer, consumers, scenarios, collectors or results.
package infra
