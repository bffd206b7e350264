package workers_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
)

// TestMain lets more of the package's parallel tests run at once than go
// test's default (the number of CPUs): each works a few jobs in its own
// rolled-back transaction or database and spends much of its time waiting
// on Postgres.
func TestMain(m *testing.M) {
	if err := pgtest.SetDefaultParallel(4); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
