package repodata

// Reading README.md and docs/*.md as Markdown, for the checks of the
// documents for readers (readers_test.go, readers_commands_test.go).

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mdDoc is one Markdown document of the repository.
type mdDoc struct {
	rel  string // slash-separated, relative to the root
	text string
}

// repoRoot is the repository's root directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	r, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// readDoc reads one document, rel relative to the root.
func readDoc(t *testing.T, rel string) mdDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return mdDoc{rel: rel, text: string(b)}
}

// readerDocs are README.md and docs/*.md: the documents for readers.
func readerDocs(t *testing.T) []mdDoc {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(repoRoot(t), "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := []mdDoc{readDoc(t, "README.md")}
	for _, n := range names {
		docs = append(docs, readDoc(t, "docs/"+filepath.Base(n)))
	}
	if len(docs) < 5 {
		t.Fatalf("only %d documents found under %s", len(docs), repoRoot(t))
	}
	return docs
}

// mdSpan is an inline code span outside fenced blocks, its inner whitespace
// (a span may run over a line break) made single spaces.
type mdSpan struct {
	n        int // the line it starts on
	text     string
	from, to int // its bytes in Prose(text), backticks included
}

// mdCodeSpans returns the inline code spans of a document outside its
// fenced code blocks (CommonMark: a run of n backticks up to the next run
// of exactly n).
func mdCodeSpans(text string) []mdSpan {
	s := Prose(text)
	var out []mdSpan
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(s); {
			k := strings.Index(s[j:], s[i:i+n])
			if k < 0 {
				break
			}
			k += j
			m := 0
			for k+m < len(s) && s[k+m] == '`' {
				m++
			}
			if m == n {
				end = k
				break
			}
			j = k + m
		}
		if end < 0 {
			i += n
			continue
		}
		out = append(out, mdSpan{n: strings.Count(s[:i], "\n") + 1, text: strings.Join(strings.Fields(s[i+n:end]), " "), from: i, to: end + n})
		i = end + n
	}
	return out
}

// mdWithoutCode returns the prose of a document (fenced blocks and code
// spans blanked), where links are read.
func mdWithoutCode(text string) string {
	s := []byte(Prose(text))
	for _, span := range mdCodeSpans(text) {
		for j := span.from; j < span.to; j++ {
			if s[j] != '\n' {
				s[j] = ' '
			}
		}
	}
	return string(s)
}

func TestGitHubSlug(t *testing.T) {
	for in, want := range map[string]string{
		"What `make run` shows":                      "what-make-run-shows",
		"Past one Postgres: what changes at 100×":    "past-one-postgres-what-changes-at-100",
		"Glossary: the words of `make run`'s output": "glossary-the-words-of-make-runs-output",
		"Many pods, one Postgres: PgBouncer":         "many-pods-one-postgres-pgbouncer",
		"snake_case and -hyphens-":                   "snake_case-and--hyphens-",
		"See [the API](api.md) now":                  "see-the-api-now",
		"Résumé, naïve":                              "résumé-naïve",
		"EvidenceFleetBacklogGrowing":                "evidencefleetbackloggrowing",
		"Before you start":                           "before-you-start",
		"What `enqueue status` shows, now!":          "what-enqueue-status-shows-now",
	} {
		if got := Slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownHelpers(t *testing.T) {
	text := "# Title\n\nSome `code span` and ``a ` tick``.\n\n```sh\n# not a heading\nmake run\n```\n\n## Title\n\n[x](#title-1) `a\nb`\n"
	if got := Anchors(text); !got["title"] || !got["title-1"] || len(got) != 2 {
		t.Errorf("anchors = %v, want title and title-1", sortedKeys(got))
	}
	var spans []string
	for _, s := range mdCodeSpans(text) {
		spans = append(spans, s.text)
	}
	if want := []string{"code span", "a ` tick", "a b"}; !slices.Equal(spans, want) {
		t.Errorf("codeSpans = %q, want %q", spans, want)
	}
	if p := mdWithoutCode(text); strings.Contains(p, "code span") || !strings.Contains(p, "[x](#title-1)") || strings.Contains(p, "make run") {
		t.Errorf("withoutCodeSpans kept code or lost prose:\n%s", p)
	}
}
