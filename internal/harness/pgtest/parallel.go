package pgtest

import (
	"flag"
	"fmt"
	"runtime"
	"strconv"
)

// SetDefaultParallel raises go test's -parallel (the parallel tests of a
// package that run at once; by default GOMAXPROCS, 2 on a 2-CPU machine)
// to n, unless the command line gives -parallel: for a package whose
// tests spend most of their time waiting on Postgres or on processes they
// started, not computing. A TestMain calls it before m.Run.
func SetDefaultParallel(n int) error {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if set || flag.Lookup("test.parallel") == nil {
		return nil
	}
	if err := flag.Set("test.parallel", strconv.Itoa(max(n, runtime.GOMAXPROCS(0)))); err != nil {
		return fmt.Errorf("pgtest: -parallel: %w", err)
	}
	return nil
}
