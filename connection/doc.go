// Package connection owns how sharebench's clients reach a Kafka cluster:
// the TLS and SASL settings, the connection file that holds them (YAML,
// ${ENV} in values, ExpandEnv), their franz-go client options, the
// secret-free Ref the `cluster up` state keeps, and the plain-words
// explanation of a failure to connect. It imports no other sharebench
// package but internal/redact, and never infra: the Kubernetes launcher
// and the agents read connection files without linking the cluster
// providers (Docker, testcontainers).
package connection
