package ml_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nliDataDir is the shared NLI sample directory relative to this package
// (the repository sits at /work/main, shared data at /work/shared).
const nliDataDir = "../../../shared/data/nli"

// nliFiles are the evaluation files under nliDataDir.
var nliFiles = []string{"snli.tsv", "mnli_matched.tsv", "mnli_mismatched.tsv"}

// nliRow is one line of an NLI TSV file: label<TAB>premise<TAB>hypothesis.
type nliRow struct{ Gold, Premise, Hypothesis string }

// goldLabel maps dataset labels to relation labels.
var goldLabel = map[string]string{
	"entailment":    "supports",
	"contradiction": "refutes",
	"neutral":       "neutral",
}

// loadNLI reads one NLI TSV file, skipping the test when the shared data
// directory is absent.
func loadNLI(t testing.TB, name string) []nliRow {
	t.Helper()
	if _, err := os.Stat(nliDataDir); err != nil {
		t.Skipf("NLI data directory %s not available: %v", nliDataDir, err)
	}
	f, err := os.Open(filepath.Join(nliDataDir, name))
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer f.Close()
	var rows []nliRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 3 {
			continue
		}
		g, ok := goldLabel[strings.TrimSpace(parts[0])]
		if !ok {
			continue
		}
		rows = append(rows, nliRow{Gold: g, Premise: parts[1], Hypothesis: parts[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", name)
	}
	return rows
}
