package consumers

import (
	"context"
	"strings"
	"testing"
)

// A share group cannot run continuous with franz-go: the next poll would
// ACCEPT the records still being processed.
func TestContinuousShareRefused(t *testing.T) {
	c := Config{Type: ShareGroup, Acquire: AcquireBatchOptimized, Ack: AckExplicit, Style: StyleContinuous,
		Processing: Processing{Model: ModelNone}, Members: 1, Workers: 1, MaxPollRecords: 1}
	if err := Run(context.Background(), c, nil); err == nil || !strings.Contains(err.Error(), "ACCEPT") {
		t.Fatalf("err %v", err)
	}
}

// Every mode has one spelling: anything else, the empty string included, is
// refused; consumer groups ignore the share-only modes.
func TestConfigValidatesModes(t *testing.T) {
	group := Config{Type: ConsumerGroup, Style: StyleBlocking, Members: 1, Workers: 1, MaxPollRecords: 1}
	share := group
	share.Type, share.Acquire, share.Ack = ShareGroup, AcquireRecordLimit, AckImplicit
	for _, c := range []Config{group, share} {
		if err := c.validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	bad := map[string]Config{}
	for name, change := range map[string]func(*Config){
		"no group type":  func(c *Config) { c.Type = "" },
		"group type":     func(c *Config) { c.Type = "classic" },
		"no style":       func(c *Config) { c.Style = "" },
		"acquire mode":   func(c *Config) { c.Acquire = "record-limit" },
		"no ack mode":    func(c *Config) { c.Ack = "" },
		"zero workers":   func(c *Config) { c.Workers = 0 },
		"share continue": func(c *Config) { c.Style = StyleContinuous },
		"stuck rate 1":   func(c *Config) { c.StuckRate = 1 },
		"rdkafka stuck":  func(c *Config) { c.Client, c.StuckRate = ClientLibrdkafka, 0.1 },
	} {
		c := share
		change(&c)
		bad[name] = c
	}
	for name, c := range bad {
		if err := c.validate(); err == nil {
			t.Errorf("%s: %+v accepted", name, c)
		}
	}
}
