// Package k8se2e holds the end-to-end test of sharebench's Kubernetes
// launcher (campaign/shard/k8s) against a real API server: etcd,
// kube-apiserver and the Job controller run inside the test process, a
// stand-in kubelet runs the pods as local processes, and a real Kafka
// broker carries the run. It is a module of its own so that the main
// module does not depend on k8s.io/kubernetes; run it with make k8s-e2e
// (docs/how-to/run-on-kubernetes.md says what runs for real and what is stood in).
package k8se2e
