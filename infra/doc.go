// Package infra owns the Kafka clusters a benchmark runs against: the cluster
// providers (process: local broker JVMs from Maven-resolved jars; kfake:
// franz-go's in-process fake, never a benchmark target), the broker
// configuration map every provider applies the same way, and the clean-up
// guarantee that no JVM outlives the harness.
//
// infra must not import producer, consumers, scenarios, collectors or results.
package infra
