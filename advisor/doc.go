// Package advisor turns a target rate and a processing time into a share
// group plan before anything is run: how many members, which
// max.poll.records, how many record locks per share-partition, which lock
// duration, the throughput ceiling of that plan, and whether a consumer group
// on the existing partitions could do the same job (docs/how-to/size-a-share-group.md for the
// settings and their ranges, docs/explanation/measurement.md for the capacity formulas).
//
// Everything here is a pure function of an Input: Advise computes an Advice,
// which carries every number, the formula behind it with the numbers
// substituted (Advice.Formulas), the reasons for its verdict and notes.
// ParseProcessing reads the CLI's processing syntax. The command
// `sharebench advise` is a thin wrapper around them.
//
// # The rules
//
// With R the target rate, h the headroom, R' = R·(1+h) the design rate, P the
// mean processing time in ms (the model's mean, scenarios.Processing.Average),
// w the workers per member, N the partitions, L the record locks and D the
// lock duration in ms currently configured, and o the poll/ack overhead in ms:
//
//	members                 m   = ceil(R'·P / (1000·w))               ≤ group.share.max.size
//	consumer group ceiling  Cc  = min(m, N)·w·1000/P                  share worth it ⇔ m > N
//	consumers per partition cpp = ceil(m / N)
//	max.poll.records        mpr = max(1, min(floor(0.8·L/cpp), floor(0.5·D·w/P)))
//	batch time              B   = mpr·P/w
//	time Acquired           W   = B + o
//	record locks            ceil((R'/N)·W/1000), clamped to 100–10000, never below L
//	lock duration           max(D, ceil(2·B)), clamped to 15000–60000
//	ceiling                 min(m·w·1000/P, N·locks·1000/W)
//
// With a destination, P includes its write time, and a destination capacity
// C below R' sizes the members for C instead (m = ceil(C·P/(1000·w))) and
// caps both ceilings at C (bound "destination").
//
// When m exceeds Kafka's hard limit of 1000 members, the workers per member
// are raised to ceil(R'·P/(1000·1000)) and m recomputed. When 10000 locks per
// share-partition are not enough, the partitions needed at the same W are
// ceil(R'·W / (1000·10000)).
//
// # Verification
//
// VerifyScenario writes the narrow sweep of `sharebench advise --verify`:
// share and consumer groups at the recommendation and at its neighbours
// (VerifyPoints: members ± max(1, round(m/4)), max.poll.records ÷ 2 and × 2),
// offered R', with a recommend: block; Verify reads the finished runs: the
// measured best max.poll.records and members per consumer type
// (runs.Recommend) and whether the share group reached the formula's
// ceiling at the recommended point (completed ≥ 0.95 · min(R', ceiling)).
//
// advisor reads only scenarios (the processing model and its mean, the
// names of the broker settings, scenario loading for the verify sweep) and
// results (the ceiling formulas, run records, recommendations); it does not
// touch Kafka: the CLI runs the verify sweep.
package advisor
