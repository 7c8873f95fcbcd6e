// Package infra owns the Kafka clusters a benchmark runs against: the cluster
// providers (process: local broker JVMs from Maven-resolved jars; container:
// broker containers through testcontainers-go, with the local image build in
// infra/image; auto: container where Docker answers, else process; external;
// kfake: franz-go's in-process fake, never a benchmark target), the broker
// configuration map every provider applies the same way, fault injection,
// and the clean-up guarantee that no JVM or container outlives the harness.
//
// infra must not import producer, consumers, scenarios, collectors or results.
package infra
