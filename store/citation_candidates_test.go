package store_test

import (
	"context"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestPaperCandidatesAreRecordedOnce: a page's candidates are recorded by
// the first writer and stand; a second record of the same page changes
// nothing and returns the first; they go with their page.
func TestPaperCandidatesAreRecordedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	s := store.NewStore(tx)
	task := fixture.Task(t, tx, "Papers are expanded once.")
	page := fixture.PageOf(t, tx, task, "https://doi.org/10.0000/paper", "A paper.").ID

	if _, found, err := s.PaperCandidatesOf(ctx, page); err != nil || found {
		t.Fatalf("before any record: found %v, %v; want nothing", found, err)
	}
	first := store.PaperCandidates{PageID: page, Neighbors: 147, EmbedModel: "hash-256", Candidates: []store.CitationCandidate{
		{Reference: true, Influential: true, Similarity: 0.25, Sources: "semanticscholar", Paper: []byte(`{"Title": "B"}`)},
		{Reference: false, Influential: false, Similarity: 0.75, Sources: "openalex+semanticscholar", Paper: []byte(`{"Title": "A"}`)},
	}}
	got, written, err := s.RecordPaperCandidates(ctx, first)
	if err != nil || !written {
		t.Fatalf("first record: written %v, %v", written, err)
	}
	if got.Neighbors != 147 || got.EmbedModel != "hash-256" || len(got.Candidates) != 2 ||
		got.Candidates[0].Position != 0 || string(got.Candidates[0].Paper) != `{"Title": "B"}` ||
		got.Candidates[1].Position != 1 || got.Candidates[1].Sources != "openalex+semanticscholar" || got.Candidates[1].Similarity != 0.75 {
		t.Errorf("recorded %+v, want the first record in its order", got)
	}

	second := store.PaperCandidates{PageID: page, Neighbors: 3, EmbedModel: "other", Candidates: first.Candidates[1:]}
	again, written, err := s.RecordPaperCandidates(ctx, second)
	if err != nil || written {
		t.Fatalf("second record: written %v, %v; want the first to stand", written, err)
	}
	if again.Neighbors != 147 || len(again.Candidates) != 2 || again.EmbedModel != "hash-256" {
		t.Errorf("second record returned %+v, want the first", again)
	}

	// Recorded candidates do not keep their page from an orphan sweep.
	for _, sql := range []string{`DELETE FROM task_pages WHERE page_id = $1`, `DELETE FROM fragments WHERE page_id = $1`,
		`DELETE FROM page_versions WHERE page_id = $1`, `DELETE FROM resource_index WHERE page_id = $1`} {
		if _, err := tx.Exec(ctx, sql, page); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if n, err := s.DeletePages(ctx, []int64{page}); err != nil || n != 1 {
		t.Fatalf("delete the page: %d, %v", n, err)
	}
	if _, found, err := s.PaperCandidatesOf(ctx, page); err != nil || found {
		t.Errorf("after the page is deleted: found %v, %v; want its candidates gone", found, err)
	}
}
