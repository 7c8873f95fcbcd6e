package main

import (
	"fmt"
	"testing"
)

// The autoscale: and destination: blocks are declared once (package
// blocks): the file checker's messages take their bounds and values from
// that declaration, and still name the file, the line, the key and what
// was expected.
func init() {
	hostileGroups = append(hostileGroups, func(t *testing.T, k hostileKit) []hostileCase {
		const group = "blocks declared once"
		var cs []hostileCase
		n := 0
		// add writes a scenario whose block, on line 8, is block.
		add := func(name, block string, want int, says string) {
			n++
			p := k.file(fmt.Sprintf("blocks/b%02d.yaml", n), "name: b\nconsumer_type: share\npartitions: 2\nmembers: 2\nrate: 10\nwarmup: 0s\nduration: 30s\n"+block+"\n")
			if says != "" && want == ExitUsage {
				says = fmt.Sprintf("b%02d.yaml:8: %s", n, says)
			}
			cs = append(cs, hostileCase{group: group, name: name, want: want, says: says,
				args: []string{"run", "--provider", "kfake", "--dry-run", "--scenario", p}})
		}
		add("destination.pool past its bound", "destination: {pool: 65}", ExitUsage,
			`destination.pool: expected a whole number of connections per member from 1 to 64, got "65"`)
		add("destination.batch_wait past its bound", "destination: {batch_wait: 11s}", ExitUsage,
			`destination.batch_wait: expected a duration from 0 to 10s (like 5ms), got "11s"`)
		add("destination.key not a row key", "destination: {key: uuid}", ExitUsage,
			`destination.key: expected one of [offset key_sequence], got "uuid"`)
		add("autoscale.remove not a removal", "autoscale: {threshold: 100, max: 4, remove: vanish}", ExitUsage,
			`autoscale.remove: expected leave or crash, got "vanish"`)
		add("autoscale.poll below its bound", "autoscale: {threshold: 100, max: 4, window: 2s, poll: 50ms}", ExitUsage,
			"autoscale.poll: must be ≥ 100ms and ≤ window (2s), got 50ms")
		add("autoscale.goal 0 with signal etd", "autoscale: {signal: etd, goal: 0s, max: 4}", ExitUsage,
			"autoscale.goal: must be > 0 with signal etd, got 0s")
		add("both blocks at their defaults plan", "destination: {kind: postgres}\nautoscale: {threshold: 100, max: 4}", ExitOK, "1 run(s)")
		return cs
	})
}
