//go:build race

package nn

// raceEnabled reports a build with the race detector, under which sync.Pool
// drops items at random and so allocates.
const raceEnabled = true
