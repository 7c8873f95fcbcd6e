// Package k8s runs the agents of a sharded campaign as a Kubernetes Indexed
// Job: Render builds the objects (ServiceAccount, ConfigMap with the
// scenario, an optional Secret with the connection file, the Job) from typed
// k8s.io/api values and writes them as YAML; Launcher creates them with
// client-go, waits for the pods, reports each shard's end and deletes the
// objects again. The agent image is described by RootFS (make agent-image).
//
// It imports campaign/shard (the launcher contract) and infra (to check a
// connection file); only this package and cmd/sharebench import client-go:
// package shard and package campaign must not import this package.
package k8s
