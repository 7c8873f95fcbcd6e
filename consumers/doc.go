// Package consumers owns the consumer fleets that drain a run's topic: a
// consumer group (members that own partitions, commit after processing) and a
// share group (KIP-932 members that acquire records and acknowledge each
// one), each with W workers per member, a processing-time model and
// per-record outcomes (transient failure, poison). A running fleet (Start)
// changes on scale events: members join, leave gracefully, or crash (their
// connections frozen so the broker notices only by timeouts), and
// processing slows down for a while; consumer-group rebalance pauses and
// each member's join, first-record and leave times are recorded.
//
// consumers may import results; it must not import producer, scenarios,
// collectors, infra or bench.
package consumers
