package workers_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// s2GraphServer answers like the Semantic Scholar Graph API from recorded
// answers (testdata/api-fixtures/ATTRIBUTION.md): the Turing 1950 paper
// for its DOI (Paper.json), one recorded reference (Reference.json) and
// one recorded citation (Citation.json) as the paper's /references and
// /citations, 404 for anything else.
func s2GraphServer(t *testing.T) *httptest.Server {
	t.Helper()
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile("../../testdata/api-fixtures/semantic-scholar/" + name)
		if err != nil {
			t.Fatalf("recorded Semantic Scholar answer: %v", err)
		}
		return b
	}
	paper, reference, citation := read("Paper.json"), read("Reference.json"), read("Citation.json")
	list := func(item []byte) []byte {
		return []byte(`{"offset": 0, "data": [` + string(item) + `]}`)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch p := r.URL.Path; {
		case strings.EqualFold(p, "/paper/DOI:"+turingDOI):
			_, _ = w.Write(paper)
		case strings.HasSuffix(p, "/references"):
			_, _ = w.Write(list(reference))
		case strings.HasSuffix(p, "/citations"):
			_, _ = w.Write(list(citation))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"Paper not found"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRetrievalContextOfEveryWayIn: one task takes in a url target, a doi
// target the academic API resolves, a search query whose result is
// fetched, and the papers of the doi page's citation graph. Each page is
// recorded with how it entered the task and where from, as the evidence
// export reads it (store TaskPageOrigins), and the claims of each come
// from a page with its context.
func TestRetrievalContextOfEveryWayIn(t *testing.T) {
	t.Parallel()
	const wiki, found = "https://en.wikipedia.org/wiki/Polar_bear", "https://www.example-science.org/arctic/sea-ice"
	const query = "polar bear population decline"
	search := searxng(t, map[string][]string{query: {found}})
	s2 := s2GraphServer(t)
	f := testfleet.InTx(t, testfleet.Options{Pages: polarPages(), Adjust: func(c *config.Config) {
		c.SearchURL, c.S2URL, c.OpenAlexURL = search.URL, s2.URL, ""
	}})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetURL, Value: wiki},
		jobs.Target{Kind: jobs.TargetDOI, Value: "https://doi.org/10.1093/MIND/LIX.236.433"},
		jobs.Target{Kind: jobs.TargetQuery, Value: query})
	f.Drain(t)

	rows, err := f.Store.TaskPageOrigins(t.Context(), task)
	if err != nil {
		t.Fatal(err)
	}
	byURL := map[string]store.TaskPageOriginsRow{}
	var cited []store.TaskPageOriginsRow
	for _, r := range rows {
		byURL[r.Url] = r
		if r.RetrievalContext == store.ContextCitation {
			cited = append(cited, r)
		}
	}
	paperURL := "https://doi.org/" + turingDOI
	paper, ok := byURL[paperURL]
	if !ok {
		t.Fatalf("the DOI's page is not in the task:\n%s", testfleet.JobDump(t, f.Tx))
	}
	for _, c := range []struct{ url, context, source string }{
		{wiki, store.ContextURLTarget, wiki},
		{paperURL, store.ContextDOITarget, turingDOI},
		{found, store.ContextSearchQuery, query},
	} {
		r, ok := byURL[c.url]
		if !ok {
			t.Errorf("%s is not a page of the task", c.url)
			continue
		}
		if r.RetrievalContext != c.context || r.Source() == nil || *r.Source() != c.source {
			t.Errorf("%s: %s from %v, want %s from %q", c.url, r.RetrievalContext, deref(r.Source()), c.context, c.source)
		}
	}
	if r := byURL[found]; r.Depth != 1 || deref(r.TargetKind) != "url" || deref(r.TargetValue) != found {
		t.Errorf("the query's result: depth %d, target %s %s; want depth 1, its url target", r.Depth, deref(r.TargetKind), deref(r.TargetValue))
	}
	// The citation graph keeps both recorded neighbours: the paper's
	// reference, and the paper citing it.
	var refs, citing int
	for _, r := range cited {
		if deref(r.Source()) != paperURL || r.SourcePageID == nil || *r.SourcePageID != paper.PageID || r.Depth != 1 || r.TargetID != nil {
			t.Errorf("citation %s: from %v (page %v) at depth %d, target %v; want from the DOI's page at depth 1, no target",
				r.Url, deref(r.Source()), r.SourcePageID, r.Depth, r.TargetID)
		}
		if r.SourceCitesPage {
			refs++
		}
		if r.PageCitesSource {
			citing++
		}
	}
	if len(cited) != 2 || refs != 1 || citing != 1 {
		t.Errorf("%d citation pages (%d the paper cites, %d citing it), want the recorded reference and citation:\n%s",
			len(cited), refs, citing, testfleet.JobDump(t, f.Tx))
	}
	if len(rows) != 5 {
		t.Errorf("%d pages in the task, want 5 (url, doi, query result, two citations)", len(rows))
	}
	// Every extracted claim's page is one of these, with its context.
	var unknown int
	if err := f.Tx.QueryRow(t.Context(), `SELECT count(*) FROM claims c JOIN page_versions v ON v.id = c.page_version_id
		LEFT JOIN task_pages tp ON tp.task_id = c.task_id AND tp.page_id = v.page_id
		WHERE c.task_id = $1 AND c.kind = 'extracted' AND tp.reason IS NULL`, task).Scan(&unknown); err != nil || unknown != 0 {
		t.Errorf("%d extracted claims whose page has no retrieval context (%v)", unknown, err)
	}
	for _, ctx := range []string{store.ContextURLTarget, store.ContextDOITarget, store.ContextSearchQuery} {
		if n := queryInt(t, f.Tx, `SELECT count(*) FROM claims c JOIN page_versions v ON v.id = c.page_version_id
			JOIN task_pages tp ON tp.task_id = c.task_id AND tp.page_id = v.page_id
			WHERE c.task_id = $1 AND tp.reason = $2`, task, ctx); n == 0 {
			t.Errorf("no claim from the %s page", ctx)
		}
	}
	// The evidence export says each claim's retrieval context and source.
	var org string
	if err := f.Tx.QueryRow(t.Context(), `SELECT organization_id FROM tasks WHERE id = $1`, task).Scan(&org); err != nil {
		t.Fatal(err)
	}
	export, err := service.New(f.Store, nil).Export(t.Context(), org, task, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	contexts := map[string]int{}
	for _, it := range export.Items {
		if it.SourceURL == nil {
			continue
		}
		r := byURL[*it.SourceURL]
		if deref(it.RetrievalContext) != r.RetrievalContext || deref(it.RetrievedVia) != deref(r.Source()) {
			t.Errorf("%s from %s: exported %s via %s, want %s via %s", it.ID, *it.SourceURL, deref(it.RetrievalContext),
				deref(it.RetrievedVia), r.RetrievalContext, deref(r.Source()))
		}
		contexts[deref(it.RetrievalContext)]++
	}
	t.Logf("exported claims by retrieval context: %v", contexts)
	if contexts[store.ContextURLTarget] == 0 || contexts[store.ContextDOITarget] == 0 || contexts[store.ContextSearchQuery] == 0 {
		t.Errorf("exported claims by retrieval context %v, want url, doi and query pages among them", contexts)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
