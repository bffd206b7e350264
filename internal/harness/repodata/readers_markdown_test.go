package repodata

// Reading README.md and docs/*.md as Markdown, for the checks of the
// documents for readers (readers_test.go, readers_commands_test.go).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
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

// mdLine is one line of a Markdown document, with the fenced code block it
// is in, if any.
type mdLine struct {
	n      int    // 1-based
	text   string // without its newline
	fence  bool   // inside a fenced code block (the fence lines themselves too)
	marker bool   // the fence line opening or closing the block
	lang   string // the block's info string's first word
}

// mdFence is a line opening a fenced code block: three or more backticks
// (then no backtick on the line: "```` ```json ````" is a code span) or
// tildes, and the info string's first word.
var mdFence = regexp.MustCompile("^\\s{0,3}(`{3,}|~{3,})\\s*([^`\\s]*)[^`]*$")

// mdLines splits a document into lines, marking fenced code blocks.
func mdLines(text string) []mdLine {
	var out []mdLine
	open, lang := "", ""
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case open != "":
			closing := strings.HasPrefix(trimmed, open) && strings.Trim(trimmed, open[:1]) == ""
			out = append(out, mdLine{n: i + 1, text: l, fence: true, marker: closing, lang: lang})
			if closing {
				open, lang = "", ""
			}
			continue
		case mdFence.MatchString(l):
			m := mdFence.FindStringSubmatch(l)
			open, lang = m[1], m[2]
			out = append(out, mdLine{n: i + 1, text: l, fence: true, marker: true, lang: lang})
			continue
		}
		out = append(out, mdLine{n: i + 1, text: l})
	}
	return out
}

// mdSpan is an inline code span outside fenced blocks, its inner whitespace
// (a span may run over a line break) made single spaces.
type mdSpan struct {
	n    int // the line it starts on
	text string
}

// mdProse returns the document with fenced blocks blanked (line numbers
// kept).
func mdProse(text string) string {
	var b strings.Builder
	for i, l := range mdLines(text) {
		if i > 0 {
			b.WriteByte('\n')
		}
		if !l.fence {
			b.WriteString(l.text)
		}
	}
	return b.String()
}

// mdCodeSpans returns the inline code spans of a document outside its
// fenced code blocks (CommonMark: a run of n backticks up to the next run
// of exactly n).
func mdCodeSpans(text string) []mdSpan {
	s := mdProse(text)
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
		out = append(out, mdSpan{n: strings.Count(s[:i], "\n") + 1, text: strings.Join(strings.Fields(s[i+n:end]), " ")})
		i = end + n
	}
	return out
}

// mdWithoutCode returns the prose of a document (fenced blocks and code
// spans blanked), where links are read.
func mdWithoutCode(text string) string {
	s := []byte(mdProse(text))
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		k := strings.Index(string(s[i+n:]), strings.Repeat("`", n))
		if k < 0 {
			i += n
			continue
		}
		for j := i; j < i+n+k+n; j++ {
			if s[j] != '\n' {
				s[j] = ' '
			}
		}
		i += n + k + n
	}
	return string(s)
}

var (
	mdHeading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	mdInlineLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// githubSlug is the anchor GitHub gives a heading: its text as rendered (a
// link's text, not its address) lower-cased, every character but letters,
// marks, digits, underscores, hyphens and spaces left out, each space a
// hyphen.
func githubSlug(heading string) string {
	heading = mdInlineLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdAnchors returns the anchors of a document's headings (ATX headings
// outside fenced code blocks; a repeated slug gets -1, -2, … as GitHub
// numbers them).
func mdAnchors(text string) map[string]bool {
	set := map[string]bool{}
	seen := map[string]int{}
	for _, l := range mdLines(text) {
		if l.fence {
			continue
		}
		m := mdHeading.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		s := githubSlug(m[1])
		if n := seen[s]; n > 0 {
			seen[s]++
			s = fmt.Sprintf("%s-%d", s, n)
		} else {
			seen[s] = 1
		}
		set[s] = true
	}
	return set
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
	} {
		if got := githubSlug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownHelpers(t *testing.T) {
	text := "# Title\n\nSome `code span` and ``a ` tick``.\n\n```sh\n# not a heading\nmake run\n```\n\n## Title\n\n[x](#title-1) `a\nb`\n"
	if got := mdAnchors(text); !got["title"] || !got["title-1"] || len(got) != 2 {
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
