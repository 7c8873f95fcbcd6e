package runs

import (
	"testing"

	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// client spring: a member is a container of `workers` clients, each
// processing its records one at a time, so a consumer group's worker
// ceiling counts the clients the partitions can go to (4 partitions, 2
// members × 2 workers → 4 clients at 50/s), and after a join to 4 members
// still 4 busy clients (8 on 4 partitions), where java's 4 members × 2
// workers make 400/s. A member's destination pool is shared by its
// threads.
func TestSpringCeilingCountsClients(t *testing.T) {
	spec := func(client vocab.Client, members int) scenarios.RunSpec {
		return scenarios.RunSpec{ConsumerType: vocab.ConsumerGroup, Client: client, Fleet: scenarios.Fleet{Members: members, Workers: 2},
			Partitions: 4, Producer: scenarios.Producer{Rate: 1000}, Processing: scenarios.Processing{Model: "constant", Time: 20e6}}
	}
	for _, tt := range []struct {
		client  vocab.Client
		members int
		want    float64
	}{
		{vocab.ClientJava, 2, 200}, {vocab.ClientSpring, 2, 200},
		{vocab.ClientJava, 4, 400}, {vocab.ClientSpring, 4, 200},
	} {
		c := ComputeCeiling(PlannedCeilingInput(spec(tt.client, tt.members)))
		if c.Workers != tt.want {
			t.Errorf("%s, %d members × 2 workers on 4 partitions: worker ceiling %.0f, want %.0f", tt.client, tt.members, c.Workers, tt.want)
		}
	}
	s := spec(vocab.ClientSpring, 2)
	s.Destination = &scenarios.Destination{Pool: 1}
	if in := PlannedCeilingInput(s); in.DestinationConnections != 2 || in.Members != 4 || in.Workers != 1 {
		t.Errorf("spring with a destination pool of 1: %+v, want 2 connections (one per member), 4 clients of 1 worker", in)
	}
}
