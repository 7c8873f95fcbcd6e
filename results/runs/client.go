package runs

import "github.com/sharebench/sharebench/results"

// Client is the consumer client library a run used (run.json "client"):
// franz-go with its module version, java with the kafka-clients version, or
// librdkafka with its version and the binding that ships it.
// The producers are franz-go in every run. Records written before the key
// existed have none (franz-go).
type Client struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Package is the binding that ships the library and its version
	// (librdkafka: "confluent-kafka 2.16.1"); absent for franz-go and java.
	Package string `json:"package,omitempty"`
	// Preview marks a client whose share-group support its authors call a
	// preview (librdkafka 2.16).
	Preview bool `json:"preview,omitempty"`
	// Clock is a client runner's (java, librdkafka) clock alignment: offset added to its
	// readings and the alignment's error bound (half the smallest ping round
	// trip); absent for franz-go, whose members read the harness's clock.
	Clock *results.ClientClock `json:"clock,omitempty"`
	// Settings are the consumer client's settings as the client resolved
	// them (franz-go's option values, the Java client's ConsumerConfig
	// values): what the run ran, beside what spec asked for. Absent from
	// records written before they were recorded, and from sharded runs.
	Settings *results.ClientSettings `json:"settings,omitempty"`
}
