package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/repodata"
	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// dataArgs are the bundled inputs of mkcorpus, as flags.
func dataArgs(t *testing.T) []string {
	t.Helper()
	return []string{"-in", repodata.Path(t, repodata.ClimateFever...), "-fixtures", repodata.Path(t, "api-fixtures")}
}

func TestRunWritesArchiveAndClaims(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	var stdout bytes.Buffer
	if err := run(append(dataArgs(t), "-out", out, "-claims", "3", "-with-academic"), &stdout); err != nil {
		t.Fatal(err)
	}
	archive, err := crawl.OpenArchive(out)
	if err != nil {
		t.Fatal(err)
	}
	var wiki, academic int
	for _, e := range archive.Entries() {
		switch ident.Domain(e.URL) {
		case "en.wikipedia.org":
			wiki++
		case "openalex.org", "semanticscholar.org":
			academic++
		}
	}
	if wiki == 0 || academic != 2 {
		t.Fatalf("%d wikipedia and %d academic pages", wiki, academic)
	}
	claims, err := os.ReadFile(filepath.Join(out, "claims.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(claims), "\n"); n != 3 {
		t.Fatalf("%d claims written, want 3", n)
	}
	if !strings.Contains(stdout.String(), "3 claims") {
		t.Fatalf("stdout %q", stdout.String())
	}
}

func TestRunFlagErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{}, // -out missing
		{"-out", t.TempDir(), "-claims", "-1"},
		{"-out", t.TempDir(), "-in", filepath.Join(t.TempDir(), "missing.jsonl")},
		{"-out", t.TempDir(), "extra"},
	} {
		if err := run(args, io.Discard); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

// TestDemoCorpusUpToDate regenerates testdata/replay/demo and compares it
// byte for byte with the committed copy. Regenerate with
//
//	go run ./internal/harness/cmd/mkcorpus -out testdata/replay/demo -claims 12 -with-academic
func TestDemoCorpusUpToDate(t *testing.T) {
	t.Parallel()
	demo := filepath.Dir(repodata.Path(t, "replay", "demo", corpus.ArchiveFile))
	out := t.TempDir()
	if err := run(append(dataArgs(t), "-out", out, "-claims", "12", "-with-academic"), io.Discard); err != nil {
		t.Fatal(err)
	}
	want := listFiles(t, out)
	got := listFiles(t, demo)
	for name, content := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("demo corpus lacks %s", name)
		} else if !bytes.Equal(g, content) {
			t.Errorf("demo corpus file %s is out of date", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("demo corpus has extra file %s", name)
		}
	}
}

func listFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := make(map[string][]byte)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "ATTRIBUTION.md" || rel == "README.md" {
			return nil
		}
		b, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
