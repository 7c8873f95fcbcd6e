package scenarios

import "testing"

// client librdkafka: what librdkafka lacks is refused naming the file, the
// key, the client and the missing feature; what it has loads.
func TestLibrdkafkaValidation(t *testing.T) {
	bad := []struct{ name, yaml, want string }{
		{"renew", "name: x\nclient: librdkafka\nconsumer_type: share\nack_mode: explicit\nrenew: auto\n",
			"renew: client librdkafka has no RENEW acknowledgement"},
		{"record_limit", "name: x\nclient: librdkafka\nconsumer_type: share\nacquire_mode: record_limit\n",
			"acquire_mode: client librdkafka has no share.acquire.mode"},
		{"continuous", "name: x\nclient: librdkafka\nstyle: continuous\n", "style: client librdkafka runs style blocking only"},
		{"sticky", "name: x\nclient: librdkafka\nconsumer_type: consumer\nassignor: sticky\n",
			"assignor: client librdkafka has no eager sticky assignor"},
		{"rebalance timeout", "name: x\nclient: librdkafka\nconsumer_type: consumer\nrebalance_timeout: 30s\n",
			"rebalance_timeout: client librdkafka has no rebalance timeout"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml, nil, nil)
			wantErr(t, err, "scenario.yaml:", tt.want)
		})
	}
	for _, y := range []string{
		"name: x\nclient: librdkafka\n",
		"name: x\nclient: librdkafka\nconsumer_type: share\nack_mode: explicit\n",
		"name: x\nclient: librdkafka\nconsumer_type: consumer\ngroup_protocol: consumer\nremote_assignor: range\n",
		"name: x\nclient: librdkafka\nconsumer_type: consumer\nassignor: roundrobin\nstatic_membership: true\ncommit: auto\n",
		// backlog: the members form the group on the empty topic, then the fill starts the clock (campaign.formThenFill)
		"name: x\nclient: librdkafka\nconsumer_type: [consumer, share]\nload_mode: backlog\nbacklog_records: 1000\n",
		// shards: each local agent runs its own librdkafka runner, as for java (campaign.sharded)
		"name: x\nclient: librdkafka\nshards: 2\n",
	} {
		s := mustLoad(t, y, nil, nil)
		if s.Runs[0].Client != "librdkafka" {
			t.Errorf("%q: client %q", y, s.Runs[0].Client)
		}
	}
}
