package store_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// originsBundle is a task whose pages are written as target_queue and
// citation_graph write them.
type originsBundle struct {
	tx   pgx.Tx
	q    *store.Queries
	task int64
}

func setupOrigins(t *testing.T) originsBundle {
	t.Helper()
	tx := pgtest.Tx(t)
	return originsBundle{tx: tx, q: store.New(tx), task: fixture.Task(t, tx, "Pages say how they came.")}
}

// target registers a target (a result of the query target query when it
// is not 0) and returns its row as target_queue's worker sees it.
func (b originsBundle) target(t *testing.T, kind, value string, query int64) store.EnsureTargetRow {
	t.Helper()
	ctx := context.Background()
	if query != 0 {
		if _, err := b.q.EnsureTargets(ctx, store.EnsureTargetsParams{TaskID: b.task, Kinds: []string{kind},
			Vals: []string{value}, Via: store.ViaQuery, SourceTargetID: &query}); err != nil {
			t.Fatal(err)
		}
	}
	row, err := b.q.EnsureTarget(ctx, store.EnsureTargetParams{TaskID: b.task, Kind: kind, Value: value})
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// writePage is target_queue's write of the target's page.
func (b originsBundle) writePage(t *testing.T, p store.PageWrite, kind string, tgt store.EnsureTargetRow, depth int) store.PageWritten {
	t.Helper()
	out, err := b.q.WritePage(context.Background(), p, store.PageForTask{TaskID: b.task, TargetID: tgt.ID, TargetKind: kind, Via: tgt.Via, Depth: depth})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// origins reads the task's pages' origins by URL.
func (b originsBundle) origins(t *testing.T) map[string]store.TaskPageOriginsRow {
	t.Helper()
	rows, err := b.q.TaskPageOrigins(context.Background(), b.task)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.TaskPageOriginsRow{}
	for _, r := range rows {
		out[r.Url] = r
	}
	return out
}

func str(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestTaskPageOrigins: each writer records how its page entered the task —
// a person's url and doi targets, a query's result, a citation graph's
// references and citations — and TaskPageOrigins reads it back with its
// one source; a page reached several ways keeps the most direct, whichever
// writer came first.
func TestTaskPageOrigins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("every way in", func(t *testing.T) {
		t.Parallel()
		b := setupOrigins(t)
		const urlA, urlB = "https://a.example.org/sea-ice", "https://b.example.org/found"
		const doi, paper = "10.5555/source.1", "https://doi.org/10.5555/source.1"
		const ref, citing = "https://doi.org/10.5555/ref.2", "https://doi.org/10.5555/citing.3"
		b.writePage(t, paperPage(urlA, ""), "url", b.target(t, "url", urlA, 0), 0)
		query := b.target(t, "query", "sea ice decline", 0)
		b.writePage(t, paperPage(urlB, ""), "url", b.target(t, "url", urlB, query.ID), 1)
		src := b.writePage(t, paperPage(paper, doi), "doi", b.target(t, "doi", doi, 0), 0)
		if _, err := b.q.WriteCitationGraph(ctx, store.CitationGraphWrite{TaskID: b.task, SourcePageID: src.PageID, SourceDepth: 0,
			Pages: []store.CitedPage{{Page: paperPage(ref, "10.5555/ref.2"), Reference: true, Sources: "s2"},
				{Page: paperPage(citing, "10.5555/citing.3"), Reference: false, Sources: "openalex"}}}); err != nil {
			t.Fatal(err)
		}
		got := b.origins(t)
		want := []struct {
			url, context, source string
			depth                int32
		}{
			{urlA, store.ContextURLTarget, urlA, 0},
			{urlB, store.ContextSearchQuery, "sea ice decline", 1},
			{paper, store.ContextDOITarget, doi, 0},
			{ref, store.ContextCitation, paper, 1},
			{citing, store.ContextCitation, paper, 1},
		}
		if len(got) != len(want) {
			t.Errorf("%d pages, want %d", len(got), len(want))
		}
		for _, w := range want {
			r := got[w.url]
			if r.RetrievalContext != w.context || str(r.Source()) != w.source || r.Depth != w.depth {
				t.Errorf("%s: %s from %s at depth %d, want %s from %s at depth %d",
					w.url, r.RetrievalContext, str(r.Source()), r.Depth, w.context, w.source, w.depth)
			}
		}
		if r := got[urlB]; r.QueryTargetID == nil || *r.QueryTargetID != query.ID || str(r.TargetValue) != urlB || str(r.TargetKind) != "url" {
			t.Errorf("the query's result: query target %v, target %s %s", r.QueryTargetID, str(r.TargetKind), str(r.TargetValue))
		}
		if r := got[ref]; !r.SourceCitesPage || r.PageCitesSource || r.TargetID != nil || r.SourcePageID == nil || *r.SourcePageID != src.PageID {
			t.Errorf("the reference: %+v, want cited by the source page %d, no target", r, src.PageID)
		}
		if r := got[citing]; r.SourceCitesPage || !r.PageCitesSource {
			t.Errorf("the citing paper: %+v, want it to cite the source page", r)
		}
	})

	t.Run("the most direct way in wins in any order", func(t *testing.T) {
		t.Parallel()
		b := setupOrigins(t)
		const doi, paper = "10.5555/source.1", "https://doi.org/10.5555/source.1"
		const other = "https://doi.org/10.5555/other.2"
		src := b.writePage(t, paperPage(paper, doi), "doi", b.target(t, "doi", doi, 0), 0)
		cite := func() {
			t.Helper()
			if _, err := b.q.WriteCitationGraph(ctx, store.CitationGraphWrite{TaskID: b.task, SourcePageID: src.PageID,
				Pages: []store.CitedPage{{Page: paperPage(other, "10.5555/other.2"), Reference: true, Sources: "s2"}}}); err != nil {
				t.Fatal(err)
			}
		}
		cite()
		if r := b.origins(t)[other]; r.RetrievalContext != store.ContextCitation {
			t.Fatalf("first reached by the citation graph: %s", r.RetrievalContext)
		}
		// A person's url target of the same paper: a more direct way in.
		tgt := b.target(t, "url", other, 0)
		if out := b.writePage(t, paperPage(other, "10.5555/other.2"), "url", tgt, 0); out.NewToTask {
			t.Error("the page counted as new to the task a second time")
		}
		cite() // the citation graph again changes nothing
		r := b.origins(t)[other]
		if r.RetrievalContext != store.ContextURLTarget || r.TargetID == nil || *r.TargetID != tgt.ID || r.SourcePageID != nil || r.Depth != 0 {
			t.Errorf("%+v: want the url target's, with no source page, at depth 0", r)
		}
		var edges int
		if err := b.tx.QueryRow(ctx, `SELECT count(*) FROM edges WHERE relation = 'cites' AND source_id = $1 AND target_id = $2`,
			src.PageID, r.PageID).Scan(&edges); err != nil || edges != 1 {
			t.Errorf("%d cites edges from the source to the paper (%v), want the citation graph's 1 kept", edges, err)
		}
	})

	t.Run("a target keeps its first origin", func(t *testing.T) {
		t.Parallel()
		b := setupOrigins(t)
		const u = "https://a.example.org/both"
		first := b.target(t, "url", u, 0)
		query := b.target(t, "query", "both ways", 0)
		again := b.target(t, "url", u, query.ID)
		if first.Via != store.ViaUser || again.ID != first.ID || again.Via != store.ViaUser {
			t.Errorf("registered by a person, then found by a query: %+v then %+v, want one target via user", first, again)
		}
	})
}
