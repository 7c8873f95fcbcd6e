package main

import (
	"path/filepath"
	"testing"
)

// The runners' write stage (issue 38): a java or librdkafka run takes a
// destination: block, and what their write stage does not do (batching) is
// refused naming the file, line, key and the value that runs.
func init() {
	hostileGroups = append(hostileGroups, func(t *testing.T, k hostileKit) []hostileCase {
		const group = "runner destination"
		var cs []hostileCase
		scenario := func(name, client, dest string) string {
			return k.file("runnerdest/"+name+".yaml", "name: d\nclient: "+client+"\nconsumer_type: share\npartitions: 1\nmembers: 1\n"+
				"rate: 10\nwarmup: 0s\nduration: 1s\ndestination:\n"+dest)
		}
		dry := func(p string) []string { return []string{"run", "--provider", "kfake", "--dry-run", "--scenario", p} }
		for _, client := range []string{"java", "librdkafka"} {
			ok := scenario(client+"-ok", client, "  pool: 1\n  connections: 2\n  dsn: host=db.invalid user=app password="+hostileSecret+"\n")
			cs = append(cs, hostileCase{group: group, name: "dry run: client " + client + " with a destination", args: dry(ok), want: ExitOK,
				says: "1 run(s), 0 expectation(s); dry run: nothing started"})
			batch := scenario(client+"-batch", client, "  pool: 1\n  batch_size: 20\n")
			cs = append(cs, hostileCase{group: group, name: "dry run: client " + client + " with batch_size 20", args: dry(batch), want: ExitUsage,
				says: filepath.Base(batch) + ":11: destination.batch_size: client " + client + " writes one record per statement (batch_size 20); use batch_size 1 or client franz-go"})
		}
		return cs
	})
}
