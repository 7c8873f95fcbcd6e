package scenarios

import "testing"

func TestGroupKnobErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"protocol", "group_protocol: eager", []string{`scenario.yaml:2: group_protocol: expected one of classic, consumer, got "eager"`}},
		{"assignor", "assignor: sticki", []string{`scenario.yaml:2: assignor: expected one of cooperative-sticky, sticky, range, roundrobin, got "sticki"`}},
		{"assignor with KIP-848", "consumer_type: consumer\ngroup_protocol: consumer\nassignor: range",
			[]string{`scenario.yaml:4: assignor: "range" is a classic-protocol (client-side) assignor`, "use remote_assignor"}},
		{"remote assignor", "remote_assignor: sticky", []string{`remote_assignor: expected one of uniform, range, got "sticky"`}},
		{"session timeout with KIP-848", "group_protocol: consumer\nsession_timeout: 10s",
			[]string{"scenario.yaml:3: session_timeout: group_protocol consumer takes the session timeout from the broker", "group.consumer.session.timeout.ms"}},
		{"commit", "commit: sometimes", []string{`commit: expected one of after_processing, auto, got "sometimes"`}},
		{"auto commit interval", "commit: auto\nauto_commit_interval: 0", []string{"scenario.yaml:3: auto_commit_interval: must be > 0, got 0s"}},
		{"static", "static_membership: maybe", []string{`scenario.yaml:2: static_membership: expected true or false, got "maybe"`}},
		{"java refuses rebalance timeout", "client: java\nrebalance_timeout: 30s",
			[]string{"scenario.yaml:3: rebalance_timeout: client java has no rebalance timeout of its own", "leave rebalance_timeout out"}},
		{"hashed needs keys", "key_mode: hashed", []string{"scenario.yaml:2: key_mode: hashed needs keys: the key cardinality, an integer ≥ 1, got keys 0"}},
		{"hot keys without hashed", "hot_keys: {share: 0.2, keys: 3}",
			[]string{"scenario.yaml:2: hot_keys: skews key_mode hashed only"}},
		{"hot keys share", "key_mode: hashed\nkeys: 10\nhot_keys: {share: 1.5, keys: 3}",
			[]string{"scenario.yaml:4: hot_keys.share: must be in [0, 1]"}},
		{"hot keys above keys", "key_mode: hashed\nkeys: 2\nhot_keys: {share: 0.5, keys: 3}",
			[]string{"hot_keys.keys: 3 hot keys exceed keys (2)"}},
		{"hot keys unknown key", "hot_keys: {share: 0.5, key: 3}", []string{`unknown key "key" in hot_keys`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, "name: x\n"+tt.yaml+"\n", nil, nil)
			wantErr(t, err, tt.want...)
		})
	}
}

func TestGroupKnobSweeps(t *testing.T) {
	s := mustLoad(t, `name: x
consumer_type: consumer
key_mode: hashed
keys: 50
hot_keys: {share: [0.1, 0.5], keys: 2}
group_protocol: [classic, consumer]
static_membership: [false, true]
`, nil, nil)
	if len(s.Runs) != 8 {
		t.Fatalf("%d runs, want 8", len(s.Runs))
	}
	r := s.Runs[len(s.Runs)-1]
	if r.HotKeys != (HotKeys{Share: 0.5, Keys: 2}) || r.GroupProtocol != "consumer" || !r.StaticMembership || r.Keys != 50 {
		t.Fatalf("last run %+v", r)
	}
	if got := s.RunName(len(s.Runs) - 1); got != "r08-consumer-hot0.5-proto-consumer-static-true" {
		t.Errorf("run name %q", got)
	}
	if r.GroupProtocolLabel() != "consumer (KIP-848, uniform)" || s.Runs[0].GroupProtocolLabel() != "classic cooperative" {
		t.Errorf("labels %q %q", r.GroupProtocolLabel(), s.Runs[0].GroupProtocolLabel())
	}
	s = mustLoad(t, "name: x\nconsumer_type: consumer\nassignor: [range, cooperative-sticky]\nsession_timeout: 6s\n", nil, []string{"hot_keys={share: 0.2, keys: 1}", "key_mode=hashed", "keys=5"})
	if !s.Runs[0].IsEager() || s.Runs[1].IsEager() || s.Runs[0].SessionTimeout.Seconds() != 6 || s.Runs[0].HotKeys.Keys != 1 {
		t.Errorf("runs %+v", s.Runs)
	}
}
