// Package consumers owns the consumer fleets that drain a run's topic: a
// consumer group (members that own partitions, commit after processing) and a
// share group (KIP-932 members that acquire records and acknowledge each
// one), each with W workers per member, a processing-time model and
// per-record outcomes (transient failure, poison).
//
// consumers may import results; it must not import producer, scenarios,
// collectors, infra or bench.
package consumers
