// Package retry is the one retry loop of the harness: call something until
// it succeeds, with a pause between attempts (constant or doubling up to a
// bound), until the attempts, a time budget or the context run out. Waiting
// for a condition is the same loop with an attempt that fails while the
// condition does not hold yet. Its pause, Sleep, is also the one
// cancellable sleep of the harness (campaign's waits, consumers' workers).
//
// retry imports nothing of sharebench, so every package may use it.
package retry
