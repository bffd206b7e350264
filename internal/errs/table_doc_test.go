package errs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArchitectureErrorTable checks the error table of ARCHITECTURE.md
// (§8.3) against ErrorTable: every row of the code is a row of the
// document and no other, and each row's outcome, target and task-status
// columns say what the code does.
func TestArchitectureErrorTable(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	start := strings.Index(section, "### 8.3 The error table")
	if start < 0 {
		t.Fatal("ARCHITECTURE.md has no section 8.3 The error table")
	}
	section = section[start:]
	if end := strings.Index(section[1:], "\n### "); end > 0 {
		section = section[:end+1]
	}
	name := regexp.MustCompile("`([a-z_]+)`")
	seen := map[Failure]bool{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| `") || len(cells) != 4 {
			continue
		}
		head, _, _ := strings.Cut(cells[0], "(")
		for _, m := range name.FindAllStringSubmatch(head, -1) {
			f := Failure(m[1])
			rule, ok := ErrorTable[f]
			if !ok {
				t.Errorf("ARCHITECTURE.md names %q, which is no row of ErrorTable", f)
				continue
			}
			seen[f] = true
			checkRow(t, f, rule, cells[1], cells[2], cells[3])
		}
	}
	for f := range ErrorTable {
		if !seen[f] {
			t.Errorf("ErrorTable's row %q is not in ARCHITECTURE.md §8.3", f)
		}
	}
}

func checkRow(t *testing.T, f Failure, rule Rule, outcome, target, status string) {
	t.Helper()
	words := map[Outcome]string{Cancel: "cancel", Snooze: "snooze", Retry: "an attempt"}
	want := words[rule.Outcome]
	if rule.Retries > 0 {
		want = fmt.Sprintf("an attempt for the first %d attempts, then %s", rule.Retries, want)
	}
	if !strings.HasPrefix(outcome, want) {
		t.Errorf("%s: outcome %q, want it to begin %q", f, outcome, want)
	}
	if fails := strings.HasPrefix(target, "failed"); fails != rule.FailsTarget {
		t.Errorf("%s: target column %q, want FailsTarget %v", f, target, rule.FailsTarget)
	}
	if reported := strings.HasPrefix(status, "yes"); reported != rule.TaskFailure {
		t.Errorf("%s: status column %q, want TaskFailure %v", f, status, rule.TaskFailure)
	}
}
