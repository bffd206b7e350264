package repodata

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/retrieval"
	"github.com/evidencefleet/evidencefleet/internal/verification"
)

// maxREADMELines bounds README.md: what the project is, its two commands,
// what `make run` shows and where to read on. The rest is in docs/.
const maxREADMELines = 300

func TestREADMEIsShort(t *testing.T) {
	t.Parallel()
	readme := readDoc(t, "README.md")
	if n := strings.Count(strings.TrimSuffix(readme.text, "\n"), "\n") + 1; n > maxREADMELines {
		t.Errorf("README.md has %d lines, more than %d: move what is for one kind of reader to docs/ and link it", n, maxREADMELines)
	}
}

// TestREADMEOpensWithItsTwoCommands: after the title, the first thing a
// reader sees is the block of `make run` and `make test`, in that order.
func TestREADMEOpensWithItsTwoCommands(t *testing.T) {
	t.Parallel()
	ls := mdLines(readDoc(t, "README.md").text)
	var first []string
	for i, l := range ls {
		if i == 0 {
			if !strings.HasPrefix(l.text, "# ") {
				t.Fatalf("README.md does not open with its title: %q", l.text)
			}
			continue
		}
		if strings.TrimSpace(l.text) == "" && first == nil {
			continue
		}
		if !l.fence {
			break
		}
		first = append(first, l.text)
		if len(first) > 1 && strings.HasPrefix(strings.TrimSpace(l.text), "```") {
			break
		}
	}
	if len(first) != 4 || first[0] != "```sh" || !strings.HasPrefix(first[1], "make run ") || !strings.HasPrefix(first[2], "make test ") || first[3] != "```" {
		t.Errorf("README.md must open, after its title, with the ```sh block of `make run` then `make test`; it opens with %q", first)
	}
}

// TestLinksResolve checks every link of README.md and docs/*.md that is not
// to another site: the file it names exists in the repository, and an
// anchor (#…) names a heading of the Markdown file it points into, as
// GitHub makes the anchor.
func TestLinksResolve(t *testing.T) {
	t.Parallel()
	r := repoRoot(t)
	link := regexp.MustCompile(`\]\(([^()\s]*)(?:\s+"[^"]*")?\)`)
	cache := map[string]map[string]bool{}
	anchorsOf := func(rel string) (map[string]bool, error) {
		if a, ok := cache[rel]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(r, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		cache[rel] = Anchors(string(b))
		return cache[rel], nil
	}
	checked := 0
	for _, d := range readerDocs(t) {
		text := mdWithoutCode(d.text)
		for _, m := range link.FindAllStringSubmatchIndex(text, -1) {
			target := text[m[2]:m[3]]
			lineNo := strings.Count(text[:m[0]], "\n") + 1
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			if target == "" || target == "#" {
				t.Errorf("%s:%d: an empty link", d.rel, lineNo)
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			rel := d.rel
			if file != "" {
				rel = path.Join(path.Dir(d.rel), file)
				if strings.HasPrefix(rel, "../") {
					t.Errorf("%s:%d: link to %s leaves the repository", d.rel, lineNo, target)
					continue
				}
				if _, err := os.Stat(filepath.Join(r, filepath.FromSlash(rel))); err != nil {
					t.Errorf("%s:%d: link to %s: the repository has no %s", d.rel, lineNo, target, rel)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(rel, ".md") {
				t.Errorf("%s:%d: link to %s: an anchor into a file that is not Markdown", d.rel, lineNo, target)
				continue
			}
			set, err := anchorsOf(rel)
			if err != nil {
				t.Fatal(err)
			}
			if !set[anchor] {
				t.Errorf("%s:%d: link to %s: %s has no heading #%s (it has %s)", d.rel, lineNo, target, rel, anchor, strings.Join(sortedKeys(set), ", "))
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d links checked: the scan missed the documents", checked)
	}
}

// TestREADMELinksEveryDoc: every document under docs/ is reachable from
// the README.
func TestREADMELinksEveryDoc(t *testing.T) {
	t.Parallel()
	readme := mdWithoutCode(readDoc(t, "README.md").text)
	for _, d := range readerDocs(t)[1:] {
		if !strings.Contains(readme, "]("+d.rel+")") && !strings.Contains(readme, "]("+d.rel+"#") {
			t.Errorf("README.md does not link %s", d.rel)
		}
	}
}

// TestGlossaryExplainsTheDemosWords: docs/glossary.md names every word of
// the fleet's vocabulary that `make run` prints (verdicts, trust levels,
// verification and adoption statuses, the self-directed planner's events
// and stop reasons), each from the code that defines it, so that a new
// one fails here until the glossary explains it.
func TestGlossaryExplainsTheDemosWords(t *testing.T) {
	t.Parallel()
	g := strings.Join(strings.Fields(strings.ReplaceAll(readDoc(t, "docs/glossary.md").text, "*", "")), " ")
	words := []string{
		evidence.VerdictContested, evidence.VerdictWellSupported, evidence.VerdictSupported,
		evidence.VerdictLikelyFalse, evidence.VerdictUnverified,
		verification.Verified, verification.Pending, verification.Rejected,
		"adopted", "not_adopted", "adoption pending",
		retrieval.StopCost, retrieval.StopMinMarginal, retrieval.StopCeiling, retrieval.StopExhausted,
		// internal/planner's event types, and the one target_queue records
		"target_selection", "urls_registered", "fetches_released", "escalation",
		"budget_exhausted", "retrieval_done", "hypothesis_split", "query_searched",
		"E-number", "posterior", "confidence", "uncertainty", "controversy", "belief",
		"log-odds", "after claim links", "independent sites", "confident sites", "needed",
		"level of record", "NLI", "origin", "span", "fragment", "page version",
		"BASELINE MODELS", "EVOI", "deferred", "lexical", "cosine", "rerank",
	}
	words = append(words, domainpolicy.Levels...)
	for _, w := range words {
		if !strings.Contains(g, w) {
			t.Errorf("docs/glossary.md does not explain %q", w)
		}
	}
}
