package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvidenceExport: one line per claim in E-number order, gapless and the
// same bytes twice; every quote_span is the page version's text at its
// span; the url pages say url_target and name their URL; the hypothesis has
// no source; another organization's task is not found.
func TestEvidenceExport(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, _ := b.runTask(t)
	id := fmt.Sprint(task)
	first := b.mustRun(t, "evidence", "--task", id)
	if second := b.mustRun(t, "evidence", "--task", id); second != first {
		t.Error("two exports of the task differ")
	}
	type item struct {
		ID               string  `json:"id"`
		Kind             string  `json:"kind"`
		Source           *string `json:"source"`
		SourceURL        *string `json:"source_url"`
		QuoteSpan        *string `json:"quote_span"`
		RetrievalContext *string `json:"retrieval_context"`
		RetrievedVia     *string `json:"retrieved_via"`
		PageVersionID    *int64  `json:"page_version_id"`
		StartChar        *int    `json:"start_char"`
		EndChar          *int    `json:"end_char"`
		Accessed         *string `json:"timestamp_accessed"`
		TrustLevel       *string `json:"trust_level"`
		Models           struct {
			NLI []string `json:"nli"`
		} `json:"models"`
	}
	lines := strings.Split(strings.TrimSuffix(first, "\n"), "\n")
	claims := b.count(t, `SELECT count(*) FROM claims WHERE task_id = $1`, task)
	if len(lines) != claims || claims < 3 {
		t.Fatalf("%d lines for %d claims", len(lines), claims)
	}
	for i, line := range lines {
		var it item
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatalf("line %d is not JSON: %v", i+1, err)
		}
		if want := fmt.Sprintf("E%d", i+1); it.ID != want {
			t.Errorf("line %d has id %s, want %s (gapless, in order)", i+1, it.ID, want)
		}
		if len(it.Models.NLI) == 0 {
			t.Errorf("%s: no NLI model named", it.ID)
		}
		if it.Kind == "hypothesis" {
			if it.Source != nil || it.SourceURL != nil || it.QuoteSpan != nil || it.RetrievalContext != nil {
				t.Errorf("%s: a hypothesis with source fields: %s", it.ID, line)
			}
			continue
		}
		if it.QuoteSpan == nil || it.PageVersionID == nil || it.StartChar == nil || it.EndChar == nil || it.Accessed == nil || it.TrustLevel == nil {
			t.Fatalf("%s: an extracted claim without its span of record: %s", it.ID, line)
		}
		var text string
		if err := b.f.Pool.QueryRow(b.ctx, `SELECT substring(content FROM $2 + 1 FOR $3 - $2) FROM page_versions WHERE id = $1`,
			*it.PageVersionID, *it.StartChar, *it.EndChar).Scan(&text); err != nil || text != *it.QuoteSpan {
			t.Errorf("%s: quote_span %q, the version has %q (%v)", it.ID, *it.QuoteSpan, text, err)
		}
		if it.RetrievalContext == nil || *it.RetrievalContext != "url_target" || it.RetrievedVia == nil || *it.RetrievedVia != *it.SourceURL {
			t.Errorf("%s: retrieval %v via %v, want url_target via %s", it.ID, it.RetrievalContext, it.RetrievedVia, *it.SourceURL)
		}
	}
	if r := b.run(t, "evidence", "--task", id, "--org", "intruder"); r.code() != 1 || r.stdout != "" {
		t.Errorf("another organization: exit %d, output %q", r.code(), r.stdout)
	}
}

// TestExportWARC: `enqueue export warc` writes the task's WARC and its CDXJ
// index beside it, says how many records and bytes, refuses a name that is
// not .warc.gz, and another organization's task is not found.
func TestExportWARC(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, _ := b.runTask(t)
	out := filepath.Join(t.TempDir(), "evidence.warc.gz")
	said := b.mustRun(t, "export", "warc", "--task", fmt.Sprint(task), "--out", out)
	warc, err := os.ReadFile(out)
	if err != nil || len(warc) < 100 || warc[0] != 0x1f || warc[1] != 0x8b {
		t.Fatalf("the WARC file: %d bytes, %v; want gzip", len(warc), err)
	}
	index, err := os.ReadFile(strings.TrimSuffix(out, ".warc.gz") + ".cdxj")
	if err != nil {
		t.Fatal(err)
	}
	records := strings.Count(string(index), "\n")
	versions := b.count(t, `SELECT count(*) FROM page_captures`)
	if records == 0 || records != versions || !strings.Contains(said, fmt.Sprintf("%d response records, %d bytes", records, len(warc))) {
		t.Errorf("%d index lines, %d captures; it said %q", records, versions, said)
	}
	if r := b.run(t, "export", "warc", "--task", fmt.Sprint(task), "--out", filepath.Join(t.TempDir(), "x.zip")); r.code() != 2 {
		t.Errorf("an --out not ending in .warc.gz: exit %d %v, want 2", r.code(), r.err)
	}
	if r := b.run(t, "--org", "other-org", "export", "warc", "--task", fmt.Sprint(task), "--out", filepath.Join(t.TempDir(), "y.warc.gz")); r.err == nil || !strings.Contains(r.err.Error(), "does not exist") {
		t.Errorf("another organization's task: %v, want not found", r.err)
	}
}
