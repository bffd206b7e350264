package eval

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evidencefleet/evidencefleet/internal/models"
)

// NLIExample is one labelled premise/hypothesis pair; Gold is a relation
// label (models.Supports, models.Refutes or models.Neutral).
type NLIExample struct {
	Gold       string
	Premise    string
	Hypothesis string
}

// NLIDataFiles lists the *.tsv files of dir, sorted by name.
func NLIDataFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.tsv"))
	if err != nil {
		return nil, fmt.Errorf("list NLI data in %s: %w", dir, err)
	}
	if len(files) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("NLI data directory: %w", err)
		}
		return nil, fmt.Errorf("NLI data directory %s has no *.tsv files", dir)
	}
	sort.Strings(files)
	return files, nil
}

// ReadNLIFile reads label<TAB>premise<TAB>hypothesis rows (labels
// entailment/neutral/contradiction, see NLIGoldLabel). Blank lines are
// skipped; a row with another shape or label is an error naming its line.
func ReadNLIFile(path string) ([]NLIExample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("NLI data: %w", err)
	}
	defer f.Close()
	var out []NLIExample
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		parts := strings.Split(text, "\t")
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s line %d: %d tab-separated fields, want 3 (label, premise, hypothesis)", path, line, len(parts))
		}
		gold, ok := NLIGoldLabel(parts[0])
		if !ok {
			return nil, fmt.Errorf("%s line %d: label %q is not entailment, neutral or contradiction", path, line, parts[0])
		}
		out = append(out, NLIExample{Gold: gold, Premise: parts[1], Hypothesis: parts[2]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	return out, nil
}

// Pairs returns the examples as NLI inputs, in order.
func Pairs(examples []NLIExample) []models.Pair {
	out := make([]models.Pair, len(examples))
	for i, e := range examples {
		out[i] = models.Pair{Premise: e.Premise, Hypothesis: e.Hypothesis}
	}
	return out
}
