package hostiletest

import "testing"

// TestRaceDetectorKnowsTheBuild: RaceDetector agrees with the race build
// tag the compiler set (builtWithRace, in race_on_test.go and
// race_off_test.go), with and without -race.
func TestRaceDetectorKnowsTheBuild(t *testing.T) {
	t.Parallel()
	if got := RaceDetector(); got != builtWithRace {
		t.Errorf("RaceDetector() = %v in a binary built with race %v", got, builtWithRace)
	}
}
