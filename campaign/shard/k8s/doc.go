// Package k8s runs the agents of a sharded campaign as a Kubernetes Indexed
// Job: Render builds the objects (ServiceAccount, ConfigMap with the
// scenario, an optional Secret with the connection file, the Job) from typed
// k8s.io/api values and writes them as YAML; Launcher creates them with
// client-go, waits for the pods, reports each shard's end and deletes the
// objects again. The agent image is described by RootFS (make agent-image).
//
// Only this package and cmd/sharebench import client-go: package shard and
// package campaign stay free of it.
package k8s
