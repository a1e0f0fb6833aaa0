//go:build race

package apikeys

// raceOn: the race detector slows map and lock work unevenly (timing bounds widen).
const raceOn = true
