package repodata

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBundledDataPresent(t *testing.T) {
	t.Parallel()
	for _, elem := range [][]string{ClimateFever, NLITune, NLIReport, S2Fixtures, OAFixtures, {"reference", "lyra-domains.yaml"}, {"replay", "demo", "archive.warc.gz"}} {
		p := Path(t, elem...)
		if !filepath.IsAbs(p) {
			t.Errorf("Path(%v) = %s, want an absolute path", elem, p)
		}
	}
}

// TestEveryDataFolderHasAttribution checks that each top-level folder of
// testdata/ says where its data comes from.
func TestEveryDataFolderHasAttribution(t *testing.T) {
	t.Parallel()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(root, "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, "testdata", e.Name(), "ATTRIBUTION.md")); err != nil {
			t.Errorf("testdata/%s has no ATTRIBUTION.md", e.Name())
		}
	}
}
