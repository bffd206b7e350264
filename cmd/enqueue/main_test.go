package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
)

// TestMain lets more of the package's parallel tests run at once than go
// test's default: each spends most of its time waiting on Postgres (a
// database cloned for it, then a few statements), little computing.
func TestMain(m *testing.M) {
	if err := pgtest.SetDefaultParallel(8); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
