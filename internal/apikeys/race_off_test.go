//go:build !race

package apikeys

const raceOn = false
