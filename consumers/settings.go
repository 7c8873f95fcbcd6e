package consumers

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/results"
)

// A run records the settings its consumer clients actually ran with, as the
// clients resolved them (results.ClientSettings, run.json client.settings):
// franz-go's are read back from the client with OptValue here; the Java
// runner writes its own (ClientSettings.java) into a file javaFleet reads.

// franzGoSettingsSource is ClientSettings.Source for franz-go.
const franzGoSettingsSource = "franz-go kgo.Client.OptValue"

// franzGoSettings reads a member's settings back from its client: the
// option values franz-go resolved (defaults included) in NewClient.
func (m *member) franzGoSettings(cl *kgo.Client) results.ClientSettings {
	s := results.ClientSettings{Source: franzGoSettingsSource,
		FetchMaxWaitMs:         optInt(cl, kgo.FetchMaxWait),
		FetchMinBytes:          optInt(cl, kgo.FetchMinBytes),
		FetchMaxBytes:          optInt(cl, kgo.FetchMaxBytes),
		FetchMaxPartitionBytes: optInt(cl, kgo.FetchMaxPartitionBytes),
		MaxPollRecords:         int64(m.c.MaxPollRecords), // the PollRecords limit
	}
	n := optInt(cl, kgo.MaxConcurrentFetches)
	s.MaxConcurrentFetches = &n
	if m.c.Type == ShareGroup {
		s.MaxPollRecords = optInt(cl, kgo.ShareMaxRecords)
		s.ShareAcquireMode = string(AcquireBatchOptimized)
		if v, _ := cl.OptValue(kgo.ShareMaxRecordsStrict).(bool); v {
			s.ShareAcquireMode = string(AcquireRecordLimit)
		}
		return s
	}
	if m.c.Groups.Protocol == ProtocolConsumer {
		return s // KIP-848: the broker owns the session and heartbeat
	}
	session, heartbeat, rebalance := optInt(cl, kgo.SessionTimeout), optInt(cl, kgo.HeartbeatInterval), optInt(cl, kgo.RebalanceTimeout)
	s.SessionTimeoutMs, s.HeartbeatIntervalMs, s.RebalanceTimeoutMs = &session, &heartbeat, &rebalance
	return s
}

// optInt is an integer option's value (a duration in ms); -1 when franz-go
// does not report it as a number.
func optInt(cl *kgo.Client, opt any) int64 {
	switch v := reflect.ValueOf(cl.OptValue(opt)); {
	case !v.IsValid():
		return -1
	case v.Type() == reflect.TypeFor[time.Duration]():
		return time.Duration(v.Int()).Milliseconds()
	case v.CanInt():
		return v.Int()
	case v.CanUint():
		return int64(v.Uint())
	}
	return -1
}

// javaSettingsFile is where the runner configured by cfgFile writes its
// client settings (RunnerConfig.settingsFile).
func javaSettingsFile(cfgFile string) string { return cfgFile + ".settings.json" }

// readJavaSettings reads the settings file the Java runner's first member
// wrote (ClientSettings.java); ok is false when there is none (no member
// built a client).
func readJavaSettings(path string) (s results.ClientSettings, ok bool, err error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) || err == nil && len(b) == 0 {
		return s, false, nil
	}
	if err != nil {
		return s, false, fmt.Errorf("java runner: client settings: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, false, fmt.Errorf("java runner: client settings %s: %w", path, err)
	}
	return s, true, nil
}
