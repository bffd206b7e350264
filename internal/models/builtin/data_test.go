package builtin_test

import (
	"bufio"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The NLI samples are committed under testdata/nli (see its ATTRIBUTION.md),
// each split by a content-blind rule into a tuning part and a report part.
// A built-in model's errors may be read on the tuning part only; its
// accuracy is reported on the report part only.
const (
	nliTuneDir   = "../../../testdata/nli/tune"
	nliReportDir = "../../../testdata/nli/report"
)

// nliFiles are the sample files; each is in both nliTuneDir and
// nliReportDir.
var nliFiles = []string{"snli.tsv", "mnli_matched.tsv", "mnli_mismatched.tsv"}

// nliRow is one line of an NLI TSV file: label<TAB>premise<TAB>hypothesis.
type nliRow struct{ Gold, Premise, Hypothesis string }

// goldLabel maps dataset labels to relation labels.
var goldLabel = map[string]string{
	"entailment":    "supports",
	"contradiction": "refutes",
	"neutral":       "neutral",
}

// readNLILines returns the lines of file name in dir, without newlines. A
// missing or unreadable file fails the test, naming its path: the samples
// are part of the repository.
func readNLILines(t testing.TB, dir, name string) []string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("NLI sample %s: %v", path, err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if len(lines) == 0 {
		t.Fatalf("%s: no rows", path)
	}
	return lines
}

// loadNLI reads NLI TSV file name of dir (nliTuneDir or nliReportDir). A
// missing file or a malformed row fails the test.
func loadNLI(t testing.TB, dir, name string) []nliRow {
	t.Helper()
	lines := readNLILines(t, dir, name)
	rows := make([]nliRow, 0, len(lines))
	for i, line := range lines {
		parts := strings.Split(line, "\t")
		if len(parts) != 3 {
			t.Fatalf("%s line %d: %d fields, want 3", filepath.Join(dir, name), i+1, len(parts))
		}
		g, ok := goldLabel[strings.TrimSpace(parts[0])]
		if !ok {
			t.Fatalf("%s line %d: unknown label %q", filepath.Join(dir, name), i+1, parts[0])
		}
		rows = append(rows, nliRow{Gold: g, Premise: parts[1], Hypothesis: parts[2]})
	}
	return rows
}

// inReportPart is the split rule: a row belongs to the report part when the
// first byte of the SHA-256 of its line (without the newline) is odd.
func inReportPart(line string) bool {
	sum := sha256.Sum256([]byte(line))
	return sum[0]&1 == 1
}

// TestNLISplit checks the tune/report split of the NLI samples: every row
// of each part satisfies the hash rule of that part, no row is in both
// parts, and each part has the committed number of rows.
func TestNLISplit(t *testing.T) {
	t.Parallel()
	want := map[string][2]int{ // tune, report
		"snli.tsv":            {516, 484},
		"mnli_matched.tsv":    {523, 477},
		"mnli_mismatched.tsv": {491, 509},
	}
	for _, name := range nliFiles {
		t.Run(name, func(t *testing.T) {
			tune := readNLILines(t, nliTuneDir, name)
			report := readNLILines(t, nliReportDir, name)
			inTune := make(map[string]bool, len(tune))
			for i, line := range tune {
				if inReportPart(line) {
					t.Errorf("%s line %d belongs to the report part: %q", filepath.Join(nliTuneDir, name), i+1, line)
				}
				inTune[line] = true
			}
			for i, line := range report {
				if !inReportPart(line) {
					t.Errorf("%s line %d belongs to the tuning part: %q", filepath.Join(nliReportDir, name), i+1, line)
				}
				if inTune[line] {
					t.Errorf("%s line %d is in both parts: %q", filepath.Join(nliReportDir, name), i+1, line)
				}
			}
			if w := want[name]; len(tune) != w[0] || len(report) != w[1] {
				t.Errorf("%s: %d tune rows and %d report rows, want %d and %d", name, len(tune), len(report), w[0], w[1])
			}
			// Every row is well formed (loadNLI fails otherwise).
			loadNLI(t, nliTuneDir, name)
			loadNLI(t, nliReportDir, name)
		})
	}
}
