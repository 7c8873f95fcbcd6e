package scenarios

import "testing"

// client spring: what Spring for Apache Kafka's containers cannot do is
// refused naming the file, the key, the client and the reason; what they
// can loads.
func TestSpringValidation(t *testing.T) {
	bad := []struct{ name, yaml, want string }{
		{"renew", "name: x\nclient: spring\nconsumer_type: share\nack_mode: explicit\nrenew: auto\n",
			"renew: client spring cannot renew a lock while its record is processed"},
		{"continuous", "name: x\nclient: spring\nstyle: continuous\n", "style: client spring runs style blocking only"},
		{"prefetch", "name: x\nclient: spring\nconsumer_type: share\nprefetch: off\n", "prefetch: client spring has no prefetch setting"},
		{"rebalance timeout", "name: x\nclient: spring\nconsumer_type: consumer\nrebalance_timeout: 30s\n",
			"rebalance_timeout: client spring has no rebalance timeout"},
		{"share group size", "name: x\nclient: spring\nconsumer_type: share\nmembers: 100\nworkers: 3\n",
			"workers: client spring runs a share consumer per worker (the container's concurrency), so 100 members × 3 workers make 300 share-group members"},
		{"kafka 4.1", "name: x\nclient: spring\nconsumer_type: consumer\nkafka_version: 4.1.1\n",
			`kafka_version: client spring runs Spring for Apache Kafka 4.1.2, which needs kafka-clients 4.2.0 or newer, got "4.1.1"`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.yaml, nil, nil)
			wantErr(t, err, "scenario.yaml:", tt.want)
		})
	}
	for _, y := range []string{
		"name: x\nclient: spring\n",
		"name: x\nclient: spring\nconsumer_type: share\nack_mode: explicit\ntransient_rate: 0.2\npoison_rate: 0.02\n",
		"name: x\nclient: spring\nconsumer_type: share\nack_mode: implicit\nacquire_mode: record_limit\n",
		"name: x\nclient: spring\nconsumer_type: consumer\ngroup_protocol: consumer\nremote_assignor: range\n",
		"name: x\nclient: spring\nconsumer_type: consumer\nassignor: sticky\nstatic_membership: true\ncommit: auto\n",
		"name: x\nclient: spring\nconsumer_type: [consumer, share]\nload_mode: backlog\nbacklog_records: 1000\n",
		"name: x\nclient: spring\nshards: 2\n",
		"name: x\nclient: spring\nstuck_rate: 0.01\n",
	} {
		s := mustLoad(t, y, nil, nil)
		if s.Runs[0].Client != "spring" {
			t.Errorf("%q: client %q", y, s.Runs[0].Client)
		}
	}
}
