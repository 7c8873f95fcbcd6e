package shard

import (
	"strings"
	"testing"
)

// A bootstrap address that reaches a manifest is host:port and nothing
// else: white space, control characters, YAML punctuation and bad ports
// are refused with the value; case in a DNS name is kept.
func TestCheckBootstrap(t *testing.T) {
	for _, ok := range []string{"kafka:9092", "kafka-0.kafka.svc:9093", "Kafka.Example.COM:9092", "10.0.0.7:9092", "[fd00::1]:9092"} {
		if err := CheckBootstrap(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for a, want := range map[string]string{
		"kafka":                 "expected host:port",
		"kafka:":                `port "": expected a number from 1 to 65535`,
		"kafka:0":               "expected a number from 1 to 65535",
		"kafka:70000":           "expected a number from 1 to 65535",
		"kafka:9092\nfoo: bar":  "expected host:port",
		"kafka:90\n92":          "expected a number from 1 to 65535",
		"kafka\nlabels: x:9092": "expected host:port",
		"kafka\nx:9092":         "expected an IP address or a DNS name",
		"ka fka:9092":           "expected an IP address or a DNS name",
		"#kafka:9092":           "expected an IP address or a DNS name",
		"*:9092":                "expected an IP address or a DNS name",
		"kafka_1:9092":          "expected an IP address or a DNS name",
		"kafkä:9092":            "expected an IP address or a DNS name",
		"127.0.0.1:9092":        "a loopback address",
		"localhost:9092":        "a loopback address",
		"0.0.0.0:9092":          "a loopback address",
	} {
		if err := CheckBootstrap(a); err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "--bootstrap ") || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%q: %v, want --bootstrap … %q", a, err, want)
		}
	}
}
