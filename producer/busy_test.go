package producer

import (
	"fmt"
	"testing"
)

func TestBusyPartitions(t *testing.T) {
	n := 0
	for _, b := range BusyPartitions(KeyHashed, 1, 3) {
		if b {
			n++
		}
	}
	if n != 1 {
		t.Errorf("one key on 3 partitions: %d busy, want 1", n)
	}
	if got := fmt.Sprint(BusyPartitions("round-robin", 0, 3)); got != "[true true true]" {
		t.Errorf("round-robin: %s", got)
	}
}
