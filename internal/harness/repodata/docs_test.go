package repodata

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// repoFiles lists the repository's files, slash-separated and relative to
// root: what git tracks (a clone has exactly these) and the files of the
// working tree that git does not ignore (new files, not yet added, which a
// commit would add), or, where git cannot say (an exported tree), every
// file under root but build output and dot-directories.
func repoFiles(t *testing.T, root string) []string {
	t.Helper()
	if out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output(); err == nil && len(out) > 0 {
		var files []string
		for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			files = append(files, filepath.ToSlash(f))
		}
		return files
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// tree is the set of the repository's files and directories.
type tree struct {
	files   []string
	entries map[string]bool // files and every directory above one
}

func newTree(files []string) tree {
	tr := tree{files: files, entries: map[string]bool{}}
	for _, f := range files {
		for p := f; p != "." && p != "/" && p != ""; p = path.Dir(p) {
			if tr.entries[p] {
				break
			}
			tr.entries[p] = true
		}
	}
	return tr
}

// exists reports whether p (clean, relative to the root) is a file or a
// directory of the repository; p may be a glob (path.Match), which must
// match at least one.
func (tr tree) exists(p string) bool {
	if !strings.ContainsAny(p, "*?[") {
		return p == "." || tr.entries[p]
	}
	for e := range tr.entries {
		if ok, _ := path.Match(p, e); ok {
			return true
		}
	}
	return false
}

// firstSegment is the first element of a relative path.
func firstSegment(p string) string {
	first, _, _ := strings.Cut(p, "/")
	return first
}

// asPattern turns a path as documents write it into a clean path or glob:
// placeholders (<kind>) and elisions (…, ...) match anything, one brace
// group ({a,b}) gives one pattern per alternative, a trailing slash goes.
func asPattern(p string) []string {
	p = regexp.MustCompile(`<[^<>/]*>`).ReplaceAllString(p, "*")
	p = strings.ReplaceAll(strings.ReplaceAll(p, "…", "*"), "...", "*")
	var out []string
	if i := strings.Index(p, "{"); i >= 0 {
		if j := strings.Index(p[i:], "}"); j > 0 {
			for _, alt := range strings.Split(p[i+1:i+j], ",") {
				out = append(out, p[:i]+alt+p[i+j+1:])
			}
		}
	}
	if out == nil {
		out = []string{p}
	}
	for i, o := range out {
		out[i] = path.Clean(strings.TrimSuffix(o, "/"))
	}
	return out
}

// codeSpans returns the inline code spans of a Markdown text outside its
// fenced code blocks, with the line each starts on.
func codeSpans(text string) (spans []string, lines []int) {
	for _, span := range mdCodeSpans(text) {
		spans = append(spans, span.text)
		lines = append(lines, span.n)
	}
	return spans, lines
}

// looksLikePath reports whether a code span is written as a path in the
// repository: one token with a slash, no scheme, flag, assignment or Go
// selector after the last slash's file name.
func looksLikePath(s string) bool {
	if !strings.Contains(s, "/") || strings.ContainsAny(s, " \t\n=:;|\"'()") ||
		strings.HasPrefix(s, "/") || strings.HasPrefix(s, "-") || strings.HasPrefix(s, ".") {
		return false
	}
	return true
}

var (
	mdLink   = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	citation = regexp.MustCompile(`ARCHITECTURE\.md(?:[\s/#*-]|--)*§(\d+(?:\.\d+)*)`)
	heading  = regexp.MustCompile(`(?m)^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s`)
	// oldCitation is the design document the repository cited before it had
	// its own (it never shipped with the repository).
	oldCitation = regexp.MustCompile(`DESIGN(?:[\s/#*-]|--)*§`)
)

// TestDocumentedPathsExist checks every Markdown file of the repository:
// each relative link, and each code span written as a path whose first
// element is a file or directory of the repository root or of the
// document's own directory, must name something the repository has
// (placeholders such as <kind> and globs must match something).
func TestDocumentedPathsExist(t *testing.T) {
	t.Parallel()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	files := repoFiles(t, root)
	tr := newTree(files)
	docs, checked := 0, 0
	for _, doc := range files {
		if !strings.HasSuffix(doc, ".md") {
			continue
		}
		docs++
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc)))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		dir := path.Dir(doc)
		for _, m := range mdLink.FindAllStringSubmatchIndex(text, -1) {
			target := text[m[2]:m[3]]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			line := strings.Count(text[:m[0]], "\n") + 1
			checked++
			if p := path.Join(dir, target); strings.HasPrefix(p, "../") || !tr.exists(p) {
				t.Errorf("%s:%d: link to %s, which the repository does not have", doc, line, target)
			}
		}
		spans, lines := codeSpans(text)
		for i, s := range spans {
			if !looksLikePath(s) {
				continue
			}
			for _, p := range asPattern(s) {
				var base string
				switch first := firstSegment(p); {
				case !strings.ContainsAny(first, "*?[") && tr.entries[first]:
					base = ""
				case dir != "." && !strings.ContainsAny(first, "*?[") && tr.entries[path.Join(dir, first)]:
					base = dir
				default:
					continue // not a path of this repository (another project's, a URL path)
				}
				checked++
				if !tr.exists(path.Join(base, p)) {
					t.Errorf("%s:%d: `%s` names %s, which the repository does not have", doc, lines[i], s, path.Join(base, p))
				}
			}
		}
	}
	if docs < 3 || checked < 50 {
		t.Fatalf("only %d Markdown files and %d paths in them found under %s: the scan missed the repository", docs, checked, root)
	}
	t.Logf("%d Markdown files, %d links and paths checked", docs, checked)
}

// TestArchitectureCitationsResolve checks that every "ARCHITECTURE.md §N"
// in the repository (code comments, SQL, YAML, help texts, documents) names
// a section ARCHITECTURE.md has, and that nothing cites the old design
// document, which is not part of the repository.
func TestArchitectureCitationsResolve(t *testing.T) {
	t.Parallel()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	arch, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatalf("ARCHITECTURE.md: %v", err)
	}
	sections := map[string]bool{}
	for _, m := range heading.FindAllSubmatch(arch, -1) {
		sections[string(m[1])] = true
	}
	cited := 0
	for _, f := range repoFiles(t, root) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(b, 0) >= 0 {
			continue // binary
		}
		for _, m := range citation.FindAllSubmatchIndex(b, -1) {
			cited++
			if sec := string(b[m[2]:m[3]]); !sections[sec] {
				t.Errorf("%s:%d: cites ARCHITECTURE.md §%s, which has no such section (it has %s)",
					f, bytes.Count(b[:m[0]], []byte("\n"))+1, sec, strings.Join(sortedKeys(sections), ", "))
			}
		}
		for _, m := range oldCitation.FindAllIndex(b, -1) {
			t.Errorf("%s:%d: cites the design document, which the repository does not have: cite ARCHITECTURE.md §…",
				f, bytes.Count(b[:m[0]], []byte("\n"))+1)
		}
	}
	if cited == 0 {
		t.Fatal("no ARCHITECTURE.md § citation found: the scan missed the repository")
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestOneSpellingOfOrganization: the word the API spells organization_id
// and the CLI --org is spelt so in every file of the repository (the
// bundled third-party data aside), code, docs and messages alike.
func TestOneSpellingOfOrganization(t *testing.T) {
	t.Parallel()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	other := "organi" + "sation" // not spelt out, so that this file passes too
	for _, f := range repoFiles(t, root) {
		if strings.HasPrefix(f, "testdata/") || strings.HasSuffix(f, ".bin") || strings.HasSuffix(f, ".gz") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // a file listed but gone (being moved)
		}
		if i := strings.Index(strings.ToLower(string(data)), other); i >= 0 {
			t.Errorf("%s spells %q (organization, as the API and the CLI do)", f, string(data[i:i+len(other)]))
		}
	}
}
