package hostiletest

import (
	"runtime/debug"
	"sync"
	"testing"
)

// RaceDetector reports whether the running binary was built with -race,
// read from its build settings.
var RaceDetector = sync.OnceValue(func() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
})

// SkipUnderRaceReason is what SkipUnderRace tells.
const SkipUnderRaceReason = "one goroutine's heap or volume check: the race detector finds nothing in it and multiplies its time by ten; make test runs its package again without -race (NORACE_PKGS)"

// SkipUnderRace skips a test that measures the heap or checks a property
// on a large volume of input in code that runs on one goroutine, when the
// binary runs under the race detector: the detector has nothing to find
// there, multiplies the test's CPU time five to twelve times and changes
// the heap it measures. `make test` runs every package with such a test a
// second time without -race, so the check still runs and fails there.
func SkipUnderRace(t testing.TB) {
	t.Helper()
	if RaceDetector() {
		t.Skip(SkipUnderRaceReason)
	}
}
