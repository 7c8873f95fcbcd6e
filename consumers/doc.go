// Package consumers owns the consumer fleets that drain a run's topic, each
// member with W workers, a processing-time model (ProcessingModel) and
// per-record outcomes (transient failure, poison). One concept per file:
//
//   - config.go: Config and its typed modes, one spelling each: GroupType
//     (ConsumerGroup, ShareGroup), AcquireMode, AckMode and Style, aliases
//     of package vocab's types, which the scenario and the run record use
//     too.
//   - fleet.go: Fleet, the running members. Start picks the group type's
//     member once; scale events change the fleet while it runs: members
//     join, leave gracefully, or crash, and processing slows down for a
//     while.
//   - member.go: what both group types share (the client, the blocking poll
//     loop, the worker pool, outcome draws and delivery recording) and the
//     groupMember interface for what they do their own way.
//   - group_member.go: a consumer-group member owns partitions, retries
//     transient failures in place, dead-letters poison records, and commits
//     each partition's contiguous completed prefix after processing
//     (offsets.go); blocking style holds rebalances at a poll boundary.
//     continuous.go is its continuous style, polling while workers are busy.
//   - share_member.go: a share-group (KIP-932) member acquires records,
//     acknowledges each one (ACCEPT, RELEASE, REJECT; explicitly, or
//     implicitly by the next poll) and can renew acquisition locks.
//   - rebalance.go: consumer-group rebalance pauses (revoked or lost until
//     assigned again).
//   - crash.go: a crashed member's connections freeze, so the broker notices
//     only by timeouts (acquisition locks, session timeouts).
//   - processing.go: processing-time models.
//   - java_*.go: Config.Client java runs the members in one JVM on Kafka's
//     Java client instead (javarunner/, a Maven project embedded and built
//     on first use): java_fleet.go starts it, sends scale events as
//     commands, aligns its clock and turns its event frames
//     (java_frames.go) into the same recorder calls; java_crash.go runs
//     the members a crash will take (Config.OwnJVM) in JVMs of their own
//     and SIGKILLs them at the crash (the librdkafka runner's crashed
//     members likewise get a Python process each); the clients connect with
//     connection.Settings.JavaProperties; see docs/how-to/compare-clients.md.
//
// Each member's join, first-record and leave times are recorded.
//
// consumers may import results and vocab; it must not import producer, scenarios,
// collectors, infra or campaign.
package consumers
