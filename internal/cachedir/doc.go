// Package cachedir is where sharebench keeps what it downloads and builds
// once (the broker jars, the Java client runner), and the rules both
// caches share: the directory's location, the Kafka release versions
// that may name a cached directory, and how one is built (Build: in a
// temporary directory renamed into place only when complete). It imports
// nothing of sharebench, so infra and consumers (which must not import
// infra) use the same rules.
package cachedir
