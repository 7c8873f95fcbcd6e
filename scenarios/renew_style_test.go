package scenarios

import (
	"strings"
	"testing"
)

// renew and style: their values, and the group type and acknowledgement mode
// they need, named in the error.
func TestRenewAndStyleValidation(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // empty: valid
	}{
		{"renew auto share explicit", "name: x\nconsumer_type: share\nack_mode: explicit\nrenew: auto\n", nil},
		{"renew auto java", "name: x\nconsumer_type: share\nack_mode: explicit\nrenew: auto\nclient: java\n", nil},
		{"backlog java", "name: x\nconsumer_type: [consumer, share]\nload_mode: backlog\nbacklog_records: 800\nclient: java\n", nil},
		{"continuous java", "name: x\nconsumer_type: consumer\nstyle: continuous\nclient: java\n",
			[]string{"style:", "client java runs style blocking only", "no loop that polls while records are processed"}},
		{"renew sweep", "name: x\nconsumer_type: share\nrenew: [none, auto]\n", nil},
		{"renew none consumer", "name: x\nconsumer_type: consumer\nrenew: none\n", nil},
		{"renew auto consumer group", "name: x\nconsumer_type: consumer\nrenew: auto\n",
			[]string{"renew:", "consumer_type share", "ack_mode explicit", `consumer_type "consumer"`}},
		{"renew auto implicit", "name: x\nconsumer_type: share\nack_mode: implicit\nrenew: auto\n",
			[]string{"renew:", "ack_mode explicit", `ack_mode "implicit"`}},
		{"renew bad value", "name: x\nconsumer_type: share\nrenew: always\n", []string{"renew", "none, auto", `"always"`}},
		{"continuous consumer", "name: x\nconsumer_type: consumer\nstyle: continuous\nmax_in_flight: 50\n", nil},
		{"continuous share implicit", "name: x\nconsumer_type: share\nack_mode: implicit\nstyle: continuous\n",
			[]string{"style:", "consumer_type consumer", "ACCEPT"}},
		{"continuous share explicit", "name: x\nconsumer_type: share\nack_mode: explicit\nstyle: continuous\n",
			[]string{"style:", "consumer_type consumer", "ack_mode explicit"}},
		{"style bad value", "name: x\nstyle: async\n", []string{"style", "blocking, continuous", `"async"`}},
		{"max_in_flight negative", "name: x\nmax_in_flight: -1\n", []string{"max_in_flight", "≥ 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml, nil, nil)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("load: %v", err)
				}
				return
			}
			wantErr(t, err, tt.want...)
		})
	}
}

// Defaults: renew none, style blocking, max_in_flight 0 (workers × max_poll_records).
func TestRenewAndStyleDefaults(t *testing.T) {
	s := mustLoad(t, "name: x\nconsumer_type: share\n", nil, nil)
	r := s.Runs[0]
	if r.Renew != "none" || r.Style != "blocking" || r.MaxInFlight != 0 {
		t.Fatalf("defaults: renew %q style %q max_in_flight %d", r.Renew, r.Style, r.MaxInFlight)
	}
	s = mustLoad(t, "name: x\nconsumer_type: share\nrenew: [none, auto]\n", nil, nil)
	if len(s.Runs) != 2 || !strings.Contains(s.Runs[1].Summary()+s.Runs[1].Value("renew"), "auto") {
		t.Fatalf("renew sweep: %+v", s.Runs)
	}
}

// The built-in lock-expiry scenario loads: its broker_config (lock 2 s, floor
// 1 s) is inside Kafka's ranges.
func TestLockExpiryBuiltinLoads(t *testing.T) {
	s, err := Open("lock-expiry", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 2 || s.Runs[0].RecordLockDuration().Milliseconds() != 2000 {
		t.Fatalf("runs %d, lock %v", len(s.Runs), s.Runs[0].RecordLockDuration())
	}
}
