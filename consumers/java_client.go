package consumers

import (
	"fmt"
	"runtime/debug"

	"github.com/sharebench/sharebench/vocab"
)

// Client is the client library a fleet's members run on (vocab's type).
type Client = vocab.Client

const (
	ClientFranzGo = vocab.ClientFranzGo
	ClientJava    = vocab.ClientJava
)

// franzGoModule is the module whose version ClientInfo reports for franz-go.
const franzGoModule = "github.com/twmb/franz-go"

// ClientInfo names a fleet's client library and its version, as recorded
// in run.json.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Package is the binding that ships the library, with its version
	// (librdkafka: "confluent-kafka 2.16.1"; spring: the kafka-clients under
	// it, "kafka-clients 4.2.2"); empty for franz-go and java.
	Package string `json:"package,omitempty"`
	// Preview says the client's share-group support is a preview by its
	// authors' word (librdkafka 2.16).
	Preview bool `json:"preview,omitempty"`
}

// Info is the client of c: franz-go with its module version from the
// build, java with the kafka-clients version (the run's Kafka version),
// spring with the Spring for Apache Kafka version over that kafka-clients,
// or librdkafka with the versions of the runner installed in the cache.
func (c Config) Info() ClientInfo {
	switch c.Client {
	case ClientJava:
		return ClientInfo{Name: string(ClientJava), Version: c.KafkaVersion}
	case ClientSpring:
		return ClientInfo{Name: string(ClientSpring), Version: springKafkaVersion, Package: "kafka-clients " + c.KafkaVersion}
	case ClientLibrdkafka:
		info := ClientInfo{Name: string(ClientLibrdkafka), Version: "unknown", Package: "confluent-kafka " + confluentKafkaVersion, Preview: true}
		if v, ok := InstalledLibrdkafkaVersions(); ok {
			info.Version, info.Package = v.Librdkafka, v.Package
		}
		return info
	}
	return ClientInfo{Name: string(ClientFranzGo), Version: franzGoVersion()}
}

func franzGoVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, d := range bi.Deps {
		if d.Path == franzGoModule {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return "unknown"
}

// validateClient checks the client and what it supports.
func (c Config) validateClient() error {
	switch c.Client {
	case "", ClientFranzGo:
		return nil
	case ClientJava:
	case ClientLibrdkafka:
		return c.validateLibrdkafka()
	case ClientSpring:
		return c.validateSpring()
	default:
		return fmt.Errorf("consumers: client: expected %s, %s, %s or %s, got %q", ClientFranzGo, ClientJava, ClientLibrdkafka, ClientSpring, c.Client)
	}
	if c.Style != StyleBlocking {
		return fmt.Errorf("consumers: client java runs style %s only, got %q: the Java runner polls, processes the batch on its "+
			"workers, then polls again (it has no loop that polls while records are processed); use style %s or client franz-go",
			StyleBlocking, c.Style, StyleBlocking)
	}
	if c.Fetch.Prefetch != nil {
		return fmt.Errorf("consumers: client java has no prefetch setting (KafkaShareConsumer and KafkaConsumer fetch ahead " +
			"or not by their own design): use prefetch auto or client franz-go")
	}
	if c.KafkaVersion == "" {
		return fmt.Errorf("consumers: client java needs the Kafka version (kafka-clients to build against)")
	}
	return nil
}
