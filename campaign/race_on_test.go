//go:build race

package campaign

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = true
