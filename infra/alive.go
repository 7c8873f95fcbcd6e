package infra

// Liveness has one meaning across the harness. ProcessAlive answers false
// only when it knows the process is gone: no such pid, or a zombie (dead,
// waiting to be reaped: an orphan waits as one until init reaps it, and a
// harness killed hard leaves its dead children as zombies). When it cannot
// tell (/proc unreadable, the signal check refused for an unexpected
// reason), it answers true together with an error saying what it could not
// read. Every caller acts on "gone" by doing something that would be wrong
// for a live process (start a second supervisor under the same name, delete
// a harness's containers, declare a broker or supervisor stopped), so doubt
// counts as alive, and callers that refuse on doubt say why.

// processAlive is ProcessAlive without the reason for doubt.
func processAlive(pid int) bool {
	alive, _ := ProcessAlive(pid)
	return alive
}
