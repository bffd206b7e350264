package pgtest

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

// TestSetDefaultParallel: the default -parallel is raised to n (never
// below GOMAXPROCS), and a -parallel the command line gave is kept.
func TestSetDefaultParallel(t *testing.T) {
	f := flag.Lookup("test.parallel")
	if f == nil {
		t.Fatal("no test.parallel flag")
	}
	before := f.Value.String()
	t.Cleanup(func() { _ = flag.Set("test.parallel", before) })
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })

	if err := SetDefaultParallel(runtime.GOMAXPROCS(0) + 3); err != nil {
		t.Fatal(err)
	}
	want := strconv.Itoa(runtime.GOMAXPROCS(0) + 3)
	if explicit {
		want = before
	}
	if got := f.Value.String(); got != want {
		t.Errorf("-parallel %s after SetDefaultParallel (given on the command line: %v, was %s), want %s", got, explicit, before, want)
	}
}
