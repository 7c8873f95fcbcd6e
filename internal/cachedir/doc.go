// Package cachedir is where sharebench keeps what it downloads and builds
// once (the broker jars, the Java client runner), and the two rules both
// caches share: the directory's location and the Kafka release versions
// that may name a cached directory. It imports nothing of sharebench, so
// infra and consumers (which must not import infra) use the same rule.
package cachedir
