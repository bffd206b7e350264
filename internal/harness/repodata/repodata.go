// Package repodata finds the data bundled in the repository's testdata/
// folder from tests and harnesses, wherever the repository is cloned. A
// missing file is a failure naming its path, never a skip: the data is part
// of the repository (each folder's ATTRIBUTION.md says where it comes from).
package repodata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Root is the directory holding the repository's go.mod, found by walking up
// from the working directory (a package directory under `go test`).
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("repository root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Path returns testdata/<elem...> of the repository and fails t, naming the
// path, when it does not exist.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(append([]string{root, "testdata"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("bundled test data missing: %s (%v)", p, err)
	}
	return p
}

// Well-known files and folders under testdata/.
var (
	ClimateFever = []string{"climate-fever", "climate-fever-dev.jsonl"}
	NLITune      = []string{"nli", "tune"}
	NLIReport    = []string{"nli", "report"}
	S2Fixtures   = []string{"api-fixtures", "semantic-scholar"}
	OAFixtures   = []string{"api-fixtures", "openalex"}
)
