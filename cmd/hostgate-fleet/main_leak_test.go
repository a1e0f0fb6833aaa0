package main

import (
	"testing"

	"hostgate/internal/battery/leak"
)

// TestMain fails the package when its tests leave goroutines behind: the
// hubs they start and the fleets they run must stop every one (battery
// T65).
func TestMain(m *testing.M) { leak.VerifyTestMain(m) }
