package service_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

// evidenceBundle is a task of org "alpha" with two pages: a claim extracted
// from page 1, and NLI edges from every fragment of both pages into the
// hypothesis, and from page 1's first fragment into the extracted claim.
type evidenceBundle struct {
	pool                    *pgxpool.Pool
	svc                     *service.Service
	task, hypothesis, claim int64
	page1, page2            int64
	edges                   int // NLI edges of the task
}

const (
	page1Text = "Glaciers retreat worldwide. Ice sheets thin fast — über 20 % since 1990. Sea level rises."
	page2Text = "Tide gauges show a rise. Satellites agree. The rate has doubled."
)

func setupEvidence(t *testing.T) *evidenceBundle {
	t.Helper()
	ctx := context.Background()
	svc, pool := newService(t)
	b := &evidenceBundle{pool: pool, svc: svc}
	task, err := b.svc.CreateTask(ctx, "alpha", intake.TaskSpec{Hypothesis: "Sea level rise is accelerating."})
	if err != nil {
		t.Fatal(err)
	}
	b.task = task.ID
	if err := pool.QueryRow(ctx, `SELECT id FROM claims WHERE task_id = $1`, b.task).Scan(&b.hypothesis); err != nil {
		t.Fatal(err)
	}
	frags := map[int64][]int64{}
	for i, text := range []string{page1Text, page2Text} {
		var page, version int64
		if err := pool.QueryRow(ctx, `WITH p AS (INSERT INTO pages (url, domain) VALUES ($1, 'e.example.org') RETURNING id)
			INSERT INTO page_versions (page_id, sha256, content) SELECT id, $2, $3 FROM p RETURNING page_id, id`,
			fmt.Sprintf("https://e.example.org/%d", i), fmt.Sprint(i), text).Scan(&page, &version); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO task_pages (task_id, page_id, page_version_id, reason) VALUES ($1, $2, $3, 'url_target')`, b.task, page, version); err != nil {
			t.Fatal(err)
		}
		// one fragment per sentence, by character offsets
		runes, start := []rune(text), 0
		for j := 0; j <= len(runes); j++ {
			if j == len(runes) || runes[j] == '.' {
				end := min(j+1, len(runes))
				var id int64
				if err := pool.QueryRow(ctx, `INSERT INTO fragments (page_id, page_version_id, start_char, end_char, text, heading_context)
					VALUES ($1, $2, $3, $4, $5, '') RETURNING id`, page, version, start, end, string(runes[start:end])).Scan(&id); err != nil {
					t.Fatal(err)
				}
				frags[page] = append(frags[page], id)
				start = end + 1
				j = end
			}
		}
		if i == 0 {
			b.page1 = page
		} else {
			b.page2 = page
		}
	}
	// the extracted claim quotes page 1's second sentence
	if err := pool.QueryRow(ctx, `INSERT INTO claims (task_id, evidence_no, text, text_hash, kind, origin_fragment_id, page_version_id, quote_start, quote_end)
		SELECT $1, 2, 'Ice sheets are thinning.', 'x', 'extracted', f.id, f.page_version_id, f.start_char, f.end_char FROM fragments f WHERE f.id = $2
		RETURNING id`, b.task, frags[b.page1][1]).Scan(&b.claim); err != nil {
		t.Fatal(err)
	}
	edge := func(frag, claim int64, rel string) {
		if _, err := pool.Exec(ctx, `INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_edge_confidence, nli_model)
			VALUES ('fragment', $1, 'claim', $2, $3, 0.8, 'nli-test')`, frag, claim, rel); err != nil {
			t.Fatal(err)
		}
		b.edges++
	}
	for _, p := range []int64{b.page1, b.page2} {
		for i, f := range frags[p] {
			edge(f, b.hypothesis, []string{"supports", "neutral", "refutes"}[i%3])
		}
	}
	edge(frags[b.page1][0], b.claim, "supports")
	return b
}

// walk lists all of the filter's evidence, limit at a time, checking every
// span against its version's text.
func (b *evidenceBundle) walk(t *testing.T, f service.EvidenceFilter, limit int) []service.EvidenceSpan {
	t.Helper()
	ctx := context.Background()
	var all []service.EvidenceSpan
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("the cursor does not end")
		}
		page, err := b.svc.EvidenceList(ctx, "alpha", f, limit, cursor)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Evidence) > limit {
			t.Fatalf("%d spans in a page of %d", len(page.Evidence), limit)
		}
		all = append(all, page.Evidence...)
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	for _, s := range all {
		var content string
		if err := b.pool.QueryRow(ctx, `SELECT content FROM page_versions WHERE id = $1 AND page_id = $2`, s.PageVersionID, s.PageID).Scan(&content); err != nil {
			t.Fatalf("span %+v: no such page version: %v", s, err)
		}
		if want := string([]rune(content)[s.StartChar:s.EndChar]); s.Text != want {
			t.Errorf("span %+v: text %q, the version has %q there", s, s.Text, want)
		}
	}
	return all
}

func TestEvidenceListFilters(t *testing.T) {
	t.Parallel()
	b := setupEvidence(t)
	kinds := func(spans []service.EvidenceSpan) map[string]int {
		m := map[string]int{}
		for _, s := range spans {
			m[s.Kind]++
		}
		return m
	}
	t.Run("task: every origin and edge, walked two at a time", func(t *testing.T) {
		all := b.walk(t, service.EvidenceFilter{TaskID: b.task}, 2)
		if len(all) != b.edges+1 || kinds(all)["origin"] != 1 {
			t.Errorf("%d spans (%v), want %d edges and 1 origin", len(all), kinds(all), b.edges)
		}
		seen := map[string]bool{}
		for _, s := range all {
			key := fmt.Sprintf("%s %d %v", s.Kind, s.Source.ClaimID, s.Source.EdgeID)
			if s.Kind != "origin" {
				key = fmt.Sprint(*s.Source.EdgeID)
			}
			if seen[key] {
				t.Errorf("span %s listed twice", key)
			}
			seen[key] = true
		}
	})
	t.Run("claim: its origin and its edges", func(t *testing.T) {
		all := b.walk(t, service.EvidenceFilter{ClaimID: b.claim}, 10)
		if got := kinds(all); got["origin"] != 1 || got["supports"] != 1 || len(all) != 2 {
			t.Errorf("claim's evidence %v, want its origin and one supports edge", got)
		}
		for _, s := range all {
			if s.Source.EvidenceNo != "E2" || s.Kind == "origin" && (s.Text != "Ice sheets thin fast — über 20 % since 1990." || s.Source.EdgeID != nil) {
				t.Errorf("span %+v", s)
			}
		}
	})
	t.Run("page: only spans on it", func(t *testing.T) {
		all := b.walk(t, service.EvidenceFilter{PageID: b.page2}, 1)
		if len(all) != 3 {
			t.Errorf("%d spans on page 2, want its 3 edges", len(all))
		}
		for _, s := range all {
			if s.PageID != b.page2 {
				t.Errorf("span of page %d listed for page 2", s.PageID)
			}
		}
	})
	t.Run("bad requests", func(t *testing.T) {
		for _, c := range []struct {
			f      service.EvidenceFilter
			limit  int
			cursor string
		}{
			{service.EvidenceFilter{}, 0, ""},
			{service.EvidenceFilter{TaskID: b.task, ClaimID: b.claim}, 0, ""},
			{service.EvidenceFilter{TaskID: b.task}, service.MaxEvidenceLimit + 1, ""},
			{service.EvidenceFilter{TaskID: b.task}, 0, "x"},
			{service.EvidenceFilter{TaskID: b.task}, 0, "7.1"},
		} {
			if _, err := b.svc.EvidenceList(context.Background(), "alpha", c.f, c.limit, c.cursor); !errors.Is(err, service.ErrBadRequest) {
				t.Errorf("EvidenceList(%+v, %d, %q) = %v, want a bad request", c.f, c.limit, c.cursor, err)
			}
		}
	})
	t.Run("another organization's page is not found", func(t *testing.T) {
		if _, err := b.svc.EvidenceList(context.Background(), "beta", service.EvidenceFilter{PageID: b.page1}, 0, ""); !errors.Is(err, errs.ErrPageNotFound) {
			t.Errorf("beta listing alpha's page: %v, want not found", err)
		}
	})
}

// TestExportOfACitationPage: a claim extracted from a page the citation
// graph brought in is exported with retrieval_context citation, via the
// page whose graph kept it, its quote the version's text at its span.
func TestExportOfACitationPage(t *testing.T) {
	t.Parallel()
	b := setupEvidence(t)
	ctx := context.Background()
	if _, err := b.pool.Exec(ctx, `UPDATE task_pages SET reason = 'citation', source_page_id = $3, depth = 1 WHERE task_id = $1 AND page_id = $2`,
		b.task, b.page2, b.page1); err != nil {
		t.Fatal(err)
	}
	var claim int64
	if err := b.pool.QueryRow(ctx, `INSERT INTO claims (task_id, evidence_no, text, text_hash, kind, origin_fragment_id, page_version_id, quote_start, quote_end)
		SELECT $1, 3, 'Satellites agree.', 'y', 'extracted', f.id, f.page_version_id, f.start_char, f.end_char
		FROM fragments f WHERE f.page_id = $2 ORDER BY f.start_char OFFSET 1 LIMIT 1 RETURNING id`, b.task, b.page2).Scan(&claim); err != nil {
		t.Fatal(err)
	}
	page, err := b.svc.Export(ctx, "alpha", b.task, 0, 2) // pages of two: E1–E2, then E3
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Next != 2 {
		t.Fatalf("first page: %d items, next %d; want 2 and 2", len(page.Items), page.Next)
	}
	if page, err = b.svc.Export(ctx, "alpha", b.task, page.Next, 2); err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Next != 0 {
		t.Fatalf("second page: %d items, next %d; want the last one", len(page.Items), page.Next)
	}
	it := page.Items[0]
	var url1 string
	if err := b.pool.QueryRow(ctx, `SELECT url FROM pages WHERE id = $1`, b.page1).Scan(&url1); err != nil {
		t.Fatal(err)
	}
	if it.ID != "E3" || it.RetrievalContext == nil || *it.RetrievalContext != "citation" || it.RetrievedVia == nil || *it.RetrievedVia != url1 ||
		it.QuoteSpan == nil || *it.QuoteSpan != "Satellites agree." {
		t.Errorf("exported %+v; want E3 from a citation of %s quoting \"Satellites agree.\"", it, url1)
	}
}
