package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/hostiletest"
)

func TestRunReportsEverySetAndExtractor(t *testing.T) {
	// Three extractors on twelve pages, one goroutine each.
	hostiletest.SkipUnderRace(t)
	t.Parallel()
	args := []string{"-limit", "6",
		"-pages", "../../../../testdata/extract-dev/readability",
		"-snippets", "../../../../testdata/extract-dev/trafilatura"}
	var out bytes.Buffer
	if err := run(append(args, "-json"), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Pages []struct {
			Extractor string `json:"extractor"`
			Halves    map[string]struct {
				Pages int     `json:"pages"`
				F1    float64 `json:"f1"`
			} `json:"halves"`
		} `json:"readability_pages"`
		Snippets []struct {
			Extractor string         `json:"extractor"`
			Halves    map[string]any `json:"halves"`
		} `json:"trafilatura_snippets"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Pages) != 3 || len(got.Snippets) != 3 {
		t.Fatalf("%d and %d results, want 3 extractors on each set", len(got.Pages), len(got.Snippets))
	}
	for _, r := range got.Pages {
		if all := r.Halves["all"]; all.Pages != 6 || all.F1 <= 0 || all.F1 > 1 {
			t.Errorf("%s: all pages %+v, want 6 pages and an F1 in (0, 1]", r.Extractor, all)
		}
	}
	out.Reset()
	if err := run(append(args, "-worst", "2"), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"worst 2 pages of fleet", "go-trafilatura", "snippets marked main text"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunRejectsAMissingSet(t *testing.T) {
	t.Parallel()
	if err := run([]string{"-pages", t.TempDir()}, io.Discard, io.Discard); err == nil {
		t.Error("an empty pages directory ran")
	}
}
