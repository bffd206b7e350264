package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/repodata"
)

// TestDocIsWhatConfigdocWrites fails when docs/configuration.md is not what
// `make configdoc` would write: a default or a meaning changed in
// internal/config without the document, or the table edited by hand.
func TestDocIsWhatConfigdocWrites(t *testing.T) {
	root, err := repodata.Root()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "docs", "configuration.md")
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Render(doc)
	if err != nil {
		t.Fatalf("docs/configuration.md: %v", err)
	}
	if !bytes.Equal(doc, want) {
		t.Fatalf("docs/configuration.md is not what configdoc writes: run make configdoc\n%s", firstDifference(string(doc), string(want)))
	}
	if err := run(file, true); err != nil {
		t.Fatalf("configdoc -check: %v", err)
	}
}

func TestRender(t *testing.T) {
	var table bytes.Buffer
	if err := config.UsageMarkdown(&table); err != nil {
		t.Fatal(err)
	}
	doc := "# Configuration\n\nProse.\n\n" + Begin + "stale table\n" + End + "\nMore prose.\n"
	got, err := Render([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := "# Configuration\n\nProse.\n\n" + Begin + "\n" + table.String() + "\n" + End + "\nMore prose.\n"
	if string(got) != want {
		t.Fatalf("Render:\n%s\nwant:\n%s", got, want)
	}
	again, err := Render(got)
	if err != nil || !bytes.Equal(again, got) {
		t.Fatalf("Render of its own output changed it (err %v)", err)
	}
	for _, bad := range []string{
		"no markers\n",
		Begin + "x\n",             // no end
		End + "x\n" + Begin,       // end first
		Begin + End + Begin + End, // twice
		"text " + strings.TrimSuffix(Begin, "\n") + "\n" + End, // begin not at a line's start
	} {
		if _, err := Render([]byte(bad)); err == nil {
			t.Errorf("Render(%q) took it", bad)
		}
	}
}

// firstDifference shows the first line where two texts differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n  document:  %s\n  configdoc: %s", i+1, gl, wl)
		}
	}
	return ""
}
