package consumers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// client spring: what its containers cannot do is refused with the knob
// and the reason; what they can validates, and the run records Spring's
// version over the run's kafka-clients.
func TestSpringClientValidation(t *testing.T) {
	base := Config{Members: 1, Workers: 2, MaxPollRecords: 10, Type: ShareGroup, Style: StyleBlocking, Client: ClientSpring,
		KafkaVersion: "4.2.2", Ack: AckExplicit, Acquire: AcquireBatchOptimized}
	if err := base.validate(); err != nil {
		t.Fatalf("spring share: %v", err)
	}
	off := false
	bad := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"continuous", func(c *Config) { c.Style = StyleContinuous }, "client spring runs style blocking only"},
		{"renew", func(c *Config) { c.Renew = true }, "client spring: renew auto: Spring runs the listener on the polling thread"},
		{"prefetch", func(c *Config) { c.Fetch.Prefetch = &off }, "client spring has no prefetch setting"},
		{"rebalance timeout", func(c *Config) { c.Type, c.Groups.RebalanceTimeout = ConsumerGroup, 30*time.Second }, "client spring: rebalance_timeout"},
		{"no kafka version", func(c *Config) { c.KafkaVersion = "" }, "client spring needs the Kafka version"},
	}
	for _, tt := range bad {
		c := base
		tt.edit(&c)
		if err := c.validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
	info := base.Info()
	if info.Name != "spring" || info.Version != springKafkaVersion || info.Package != "kafka-clients 4.2.2" {
		t.Errorf("spring info %+v", info)
	}
}

// The Spring runner is the Java runner's Maven project built with its
// spring profile into a cache directory of its own; the configuration tells
// the JVM which members to run.
func TestSpringRunnerBuild(t *testing.T) {
	java := javaBuild{client: ClientJava, kafkaVersion: "4.2.2"}
	spring := javaBuild{client: ClientSpring, kafkaVersion: "4.2.2", springVersion: springKafkaVersion}
	if slices.Contains(java.mvnArgs(), "-Pspring") || !slices.Contains(spring.mvnArgs(), "-Pspring") ||
		!slices.Contains(spring.mvnArgs(), "-Dspring.kafka.version="+springKafkaVersion) {
		t.Errorf("maven arguments: java %v, spring %v", java.mvnArgs(), spring.mvnArgs())
	}
	if java.dirName("h") != "javarunner-4.2.2-h" || spring.dirName("h") != "springrunner-4.2.2-"+springKafkaVersion+"-h" {
		t.Errorf("cache directories %q, %q", java.dirName("h"), spring.dirName("h"))
	}
	if !slices.Contains(spring.jars(), "spring-kafka-"+springKafkaVersion+".jar") || len(java.jars()) != 1 {
		t.Errorf("jars: java %v, spring %v", java.jars(), spring.jars())
	}
	for client, want := range map[Client]string{ClientSpring: "client=spring\n", ClientJava: "client=java\n"} {
		c := Config{Brokers: []string{"127.0.0.1:9092"}, Topic: "t", Group: "g", Type: ShareGroup, Workers: 1, MaxPollRecords: 1, Client: client}
		path, err := writeRunnerConfig(c, 7)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		os.RemoveAll(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("client %s: configuration lacks %q:\n%s", client, want, b)
		}
	}
	// The plain build leaves the Spring members out (pom.xml's runner.exclude).
	pom, err := javaRunnerSrc.ReadFile("javarunner/pom.xml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(pom), "<runner.exclude>sharebench/runner/Spring*.java</runner.exclude>") {
		t.Error("pom.xml: the plain build does not exclude the Spring members")
	}
	if _, err := SpringRunnerDir(t.Context(), "4.2", nil); err == nil {
		t.Error("SpringRunnerDir accepted version 4.2")
	}
}
