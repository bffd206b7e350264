package workers_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/config"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/jobs"
)

const paperDOI = "10.1234/abc.5678"

// paperPage is an article page whose own DOI is in its meta tags.
func paperPage(url, title string, paragraphs ...string) corpus.Page {
	body := `<!doctype html><html lang="en"><head><title>` + title + `</title>
<meta name="citation_title" content="` + title + `">
<meta name="citation_doi" content="` + strings.ToUpper(paperDOI) + `">
</head><body><main><article><h1>` + title + `</h1>`
	for _, p := range paragraphs {
		body += "<p>" + p + "</p>"
	}
	body += `<p>See also <a href="https://doi.org/10.9999/other.1">another study</a>.</p></article></main></body></html>`
	return corpus.Page{URL: url, ContentType: "text/html; charset=utf-8", Body: []byte(body)}
}

// TestDeclaredDOIsAreClaimsNotFacts: two pages (a publisher and a mirror)
// both declare one DOI about themselves. A declaration is not proof: each
// stays its own page with the DOI recorded, neither is indexed under it,
// and a doi target is not served from their text — without an academic API
// it fails, naming the DOI.
func TestDeclaredDOIsAreClaimsNotFacts(t *testing.T) {
	t.Parallel()
	publisher := "https://journal.example.org/article/5678"
	mirror := "https://mirror.example.net/papers/abc-5678"
	pages := []corpus.Page{
		paperPage(publisher, "Sea ice decline and polar bears",
			"Arctic sea ice extent declined by thirteen percent per decade since 1979.",
			"Polar bear body condition declined where the ice-free season lengthened."),
		paperPage(mirror, "Sea ice decline and polar bears (preprint)",
			"Arctic sea ice extent declined by thirteen percent per decade since 1979.",
			"Polar bear body condition declined where the ice-free season lengthened.",
			"This preprint version has not been peer reviewed."),
	}
	f := testfleet.InTx(t, testfleet.Options{Pages: pages})
	first := f.CreateTask(t, "Arctic sea ice is declining.")
	f.AddTargets(t, first, publisher, mirror)
	f.Drain(t)
	second := f.CreateTask(t, "Polar bears suffer from sea ice loss.")
	f.AddTargetsOf(t, second, jobs.Target{Kind: jobs.TargetDOI, Value: "https://doi.org/" + strings.ToUpper(paperDOI)})
	f.Drain(t)

	pool := f.Tx
	if n := queryInt(t, pool, `SELECT count(*) FROM pages WHERE fetched_at IS NOT NULL AND doi = $1`, paperDOI); n != 2 {
		t.Errorf("%d fetched pages record the declared DOI, want 2 (publisher and mirror, each its own page)", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM resource_index WHERE identifier_type = 'doi' AND identifier = $1`, paperDOI); n != 0 {
		t.Errorf("a declared DOI was indexed %d times: declarations are not proof", n)
	}
	// The DOI the papers link to is another work: an unfetched stub page
	// each of them cites, indexed under that DOI (never as theirs).
	if n := queryInt(t, pool, `SELECT count(*) FROM resource_index r JOIN pages p ON p.id = r.page_id
		WHERE r.identifier = '10.9999/other.1' AND p.doi = '10.9999/other.1' AND p.fetched_at IS NULL`); n != 1 {
		t.Error("the linked DOI is not indexed as its own stub page")
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM edges e JOIN pages s ON s.id = e.source_id JOIN pages d ON d.id = e.target_id
		WHERE e.relation = 'cites' AND e.citation_source = 'link' AND s.doi = $1 AND d.doi = '10.9999/other.1'`, paperDOI); n != 2 {
		t.Errorf("%d cites edges from the two pages to the work they link to, want 2", n)
	}
	var status, reason string
	if err := pool.QueryRow(t.Context(), `SELECT status, COALESCE(error, '') FROM targets WHERE task_id = $1`, second).Scan(&status, &reason); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || !strings.Contains(reason, paperDOI) || !strings.Contains(reason, "academic") {
		t.Errorf("DOI target %s (%q): want failed naming the DOI and the missing academic API", status, reason)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM claims WHERE task_id = $1 AND kind = 'extracted'`, second); n != 0 {
		t.Errorf("the DOI target's task got %d claims from pages that merely declare the DOI", n)
	}
	// No academic API in this run (replay mode): the pages' citation graphs
	// are queued and complete as skipped, with a metric.
	if n := queryInt(t, pool, `SELECT count(*) FROM river_job WHERE kind = 'citation_graph' AND state = 'completed' AND metadata->'output'->>'skipped' LIKE 'no academic API%'`); n == 0 {
		t.Errorf("no citation_graph completed as skipped:\n%s", testfleet.JobDump(t, pool))
	}
	if got, _ := f.Metrics.Sum("evidencefleet_academic_steps_total", map[string]string{"step": "citation_graph", "outcome": "skipped"}); got == 0 {
		t.Error("skipped citation graphs are not counted")
	}
}

// TestAPageDeclaringAnotherPapersDOIDoesNotTakeItOver: a forged page
// declares a real paper's DOI about itself, before and after the paper is
// resolved through the academic API. The paper's page keeps its one version
// with the real text, and every doi target of it gets the real text.
func TestAPageDeclaringAnotherPapersDOIDoesNotTakeItOver(t *testing.T) {
	t.Parallel()
	srv := s2Server(t)
	forged := func(url string) corpus.Page {
		return corpus.Page{URL: url, ContentType: "text/html; charset=utf-8", Body: []byte(`<!doctype html><html><head>
<title>Computing machinery and intelligence</title><meta name="citation_doi" content="` + turingDOI + `"></head>
<body><article><h1>Computing machinery and intelligence</h1><p>This forged page says that machines can never think and that Turing agreed.</p></article></body></html>`)}
	}
	before, after := "https://forger.example.net/turing", "https://other-forger.example.com/turing"
	f := testfleet.InTx(t, testfleet.Options{Pages: []corpus.Page{forged(before), forged(after)}, Adjust: func(c *config.Config) {
		c.S2URL, c.OpenAlexURL = srv.URL, ""
	}})
	forger := f.CreateTask(t, "Machines cannot think.")
	f.AddTargets(t, forger, before)
	f.Drain(t)
	first := f.CreateTask(t, "Machines can think.")
	f.AddTargetsOf(t, first, jobs.Target{Kind: jobs.TargetDOI, Value: turingDOI})
	f.Drain(t)
	f.AddTargets(t, forger, after)
	f.Drain(t)
	second := f.CreateTask(t, "Turing asked whether machines can think.")
	f.AddTargetsOf(t, second, jobs.Target{Kind: jobs.TargetDOI, Value: turingDOI})
	f.Drain(t)

	pool := f.Tx
	var versions int
	var content string
	if err := pool.QueryRow(t.Context(), `SELECT count(*), COALESCE(max(v.content), '') FROM page_versions v JOIN pages p ON p.id = v.page_id
		WHERE p.url = $1`, "https://doi.org/"+turingDOI).Scan(&versions, &content); err != nil {
		t.Fatal(err)
	}
	if versions != 1 || !strings.Contains(content, "Can machines think?") || strings.Contains(content, "forged") {
		t.Errorf("the paper's page has %d versions, text %.80q: want its one real version", versions, content)
	}
	for _, task := range []int64{first, second} {
		if n := queryInt(t, pool, `SELECT count(*) FROM claims WHERE task_id = $1 AND kind = 'extracted' AND text LIKE '%forged%'`, task); n != 0 {
			t.Errorf("task %d got %d claims from the forged text", task, n)
		}
		if n := queryInt(t, pool, `SELECT count(*) FROM task_pages tp JOIN pages p ON p.id = tp.page_id WHERE tp.task_id = $1 AND p.url = $2`,
			task, "https://doi.org/"+turingDOI); n != 1 {
			t.Errorf("task %d's doi target is not the paper's page", task)
		}
		if n := queryInt(t, pool, `SELECT count(*) FROM claims WHERE task_id = $1 AND kind = 'extracted'`, task); n == 0 {
			t.Errorf("task %d got no claims from the real paper", task)
		}
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM pages WHERE url IN ($1, $2) AND fetched_at IS NOT NULL`, before, after); n != 2 {
		t.Errorf("%d forged pages stored as their own pages, want 2", n)
	}
	if n := queryInt(t, pool, `SELECT count(DISTINCT page_id) FROM resource_index WHERE identifier_type = 'doi' AND identifier = $1`, turingDOI); n != 1 {
		t.Errorf("the DOI is indexed under %d pages, want only the paper's", n)
	}
}

func TestUnknownDOIWithoutAcademicSourceFailsClearly(t *testing.T) {
	t.Parallel()
	f := testfleet.InTx(t, testfleet.Options{Pages: polarPages()})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetDOI, Value: "10.5555/never.seen"})
	f.Drain(t)
	var status, errText string
	if err := f.Tx.QueryRow(t.Context(), `SELECT status, COALESCE(error, '') FROM targets WHERE task_id = $1`, task).Scan(&status, &errText); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || !strings.Contains(errText, "10.5555/never.seen") || !strings.Contains(errText, "academic") {
		t.Errorf("target %s (%q), want failed naming the DOI and the missing academic source", status, errText)
	}
	if got, _ := f.Metrics.Sum("evidencefleet_academic_steps_total", map[string]string{"step": "doi", "outcome": "skipped"}); got != 1 {
		t.Errorf("skipped counted %v times, want 1", got)
	}
}

// s2PaperFixture is the recorded Semantic Scholar paper, relative to this
// package (testdata/api-fixtures/ATTRIBUTION.md).
const s2PaperFixture = "../../testdata/api-fixtures/semantic-scholar/Paper.json"

// s2Server answers GET /paper/DOI:<doi> with the recorded Semantic Scholar
// paper (testdata/api-fixtures/semantic-scholar/Paper.json, Turing
// 1950) and 404 for everything else, as the Graph API does.
func s2Server(t *testing.T) *httptest.Server {
	t.Helper()
	body, err := os.ReadFile(s2PaperFixture)
	if err != nil {
		t.Fatalf("recorded Semantic Scholar paper: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.EqualFold(r.URL.Path, "/paper/DOI:"+turingDOI) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"Paper not found"}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

const turingDOI = "10.1093/mind/lix.236.433"

func TestDOIResolvedToAnAbstractOnlyPage(t *testing.T) {
	t.Parallel()
	srv := s2Server(t)
	mirror := "https://philosophy.example.org/turing-1950"
	pages := []corpus.Page{{URL: mirror, ContentType: "text/html; charset=utf-8", Body: []byte(`<!doctype html><html><head>
<title>Computing machinery and intelligence</title><meta name="citation_doi" content="10.1093/MIND/LIX.236.433"></head>
<body><article><h1>Computing machinery and intelligence</h1><p>I propose to consider the question, "Can machines think?" This should begin with definitions of the meaning of the terms "machine" and "think".</p></article></body></html>`)}}
	f := testfleet.InTx(t, testfleet.Options{Pages: pages, Adjust: func(c *config.Config) {
		c.S2URL, c.OpenAlexURL = srv.URL, ""
	}})
	task := f.CreateTask(t, "Machines can think.")
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetDOI, Value: "doi:10.1093/MIND/LIX.236.433"})
	f.Drain(t)

	pool := f.Tx
	var url, title string
	var year int
	var abstractOnly bool
	var s2id *string
	if err := pool.QueryRow(t.Context(), `SELECT url, COALESCE(title, ''), COALESCE(year, 0), abstract_only, s2_paper_id FROM pages WHERE doi = $1`, turingDOI).
		Scan(&url, &title, &year, &abstractOnly, &s2id); err != nil {
		t.Fatalf("no page for the DOI: %v\n%s", err, testfleet.JobDump(t, pool))
	}
	if url != "https://doi.org/"+turingDOI || title != "Computing Machinery and Intelligence" || year != 1950 || !abstractOnly || s2id == nil || *s2id == "" {
		t.Errorf("page %s %q %d abstract_only=%v s2=%v", url, title, year, abstractOnly, s2id)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM fragments f JOIN pages p ON p.id = f.page_id WHERE p.doi = $1 AND f.embedding IS NOT NULL`, turingDOI); n == 0 {
		t.Error("the abstract-only page has no embedded fragments")
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM fragments WHERE text LIKE '%Can machines think?%'`); n == 0 {
		t.Error("the recorded abstract is not in the page's fragments")
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM resource_index WHERE identifier_type IN ('doi', 's2') AND page_id = (SELECT id FROM pages WHERE doi = $1)`, turingDOI); n != 2 {
		t.Errorf("%d of the paper's DOI and S2 id indexed, want 2", n)
	}
	// A mirror declaring the DOI later is its own page; the paper's page
	// keeps its one version.
	f.AddTargets(t, task, mirror)
	f.Drain(t)
	if n := queryInt(t, pool, `SELECT count(*) FROM pages`); n != 2 {
		t.Errorf("%d pages after the paper's mirror was fetched, want 2 (the declaring mirror is not the paper)", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM page_versions v JOIN pages p ON p.id = v.page_id WHERE p.url = $1`, url); n != 1 {
		t.Errorf("the paper's page has %d versions after the mirror, want 1", n)
	}
	if got, _ := f.Metrics.Sum("evidencefleet_academic_steps_total", map[string]string{"step": "doi", "outcome": "ok"}); got != 1 {
		t.Errorf("DOI resolutions counted %v, want 1", got)
	}
}

// TestNoAcademicNetworkTheFleetGoesOn: with the academic API unreachable, a
// DOI target fails with a clear error and a metric; the task's other
// targets are extracted as usual.
func TestNoAcademicNetworkTheFleetGoesOn(t *testing.T) {
	t.Parallel()
	f := testfleet.InTx(t, testfleet.Options{Pages: polarPages(), Adjust: func(c *config.Config) {
		c.S2URL, c.OpenAlexURL = "http://127.0.0.1:1", ""
	}})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetDOI, Value: "10.5555/unreachable.1"})
	f.AddTargets(t, task, polarURLs...)
	f.Drain(t)
	var status, errText string
	if err := f.Tx.QueryRow(t.Context(), `SELECT status, COALESCE(error, '') FROM targets WHERE task_id = $1 AND kind = 'doi'`, task).Scan(&status, &errText); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || !strings.Contains(errText, "unreachable") {
		t.Errorf("DOI target %s (%q), want failed: unreachable", status, errText)
	}
	if n := queryInt(t, f.Tx, `SELECT count(*) FROM targets WHERE task_id = $1 AND kind = 'url' AND status = 'extracted'`, task); n != len(polarURLs) {
		t.Errorf("%d url targets extracted, want %d", n, len(polarURLs))
	}
	if got, _ := f.Metrics.Sum("evidencefleet_academic_steps_total", map[string]string{"step": "doi", "outcome": "unavailable"}); got != 1 {
		t.Errorf("unavailable counted %v times, want 1", got)
	}
}
