// Package kafkatest starts real Kafka brokers (the process provider) for
// tests, with clean-up registered and the no-orphan check done: after Stop
// no broker JVM of the cluster may be left. Only files with the build tag
// integration should use it. (The infra package's own tests cannot import
// it, an import cycle; they use testkit and infra's internals.)
//
// kafkatest imports infra and testkit only; no library package imports it.
package kafkatest
