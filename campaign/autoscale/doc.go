// Package autoscale is the scaler's decision rule, and nothing else: a
// pure function of a policy and the lag readings seen so far, so a
// recorded lag series replays to the same decisions without a broker.
// It knows no Kafka, no clock and no fleet; campaign feeds it readings and
// carries its decisions out through the join and leave path. Its policy
// and decision are package blocks' (the scenario's autoscale: block and
// the record run.json keeps); it imports no other sharebench package.
package autoscale
