// Package shard runs one run's load split over N agents (shards): the
// control-topic protocol between the coordinator and its agents (ready,
// clock-offset pings, the start barrier, phases, stop, results), the frame
// an agent's measurement (results.ShardExport) travels in, and the
// ways agents are started: as local processes (local.go) or, in
// campaign/shard/k8s, as a Kubernetes Indexed Job.
//
// shard imports results (the export it carries), internal/wire and
// internal/tail and no other sharebench package (and, of
// Kubernetes, only apimachinery's name validation): campaign
// imports it, never the reverse, and client-go stays in campaign/shard/k8s.
package shard
