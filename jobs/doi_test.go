package jobs_test

import (
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/corpus"
	"github.com/evidencefleet/evidencefleet/internal/testfleet"
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

// TestOnePaperOnePage: a DOI found on two different pages (publisher and
// mirror) and given as a direct target yields one page.
func TestOnePaperOnePage(t *testing.T) {
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
	f := testfleet.Start(t, testfleet.Options{Pages: pages})
	first := f.CreateTask(t, "Arctic sea ice is declining.")
	f.AddTargets(t, first, publisher, mirror)
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)
	second := f.CreateTask(t, "Polar bears suffer from sea ice loss.")
	f.AddTargetsOf(t, second, jobs.Target{Kind: jobs.TargetDOI, Value: "https://doi.org/" + strings.ToUpper(paperDOI)})
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)

	pool := f.Pool
	if n := queryInt(t, pool, `SELECT count(*) FROM pages`); n != 1 {
		t.Errorf("%d pages for one paper found through two URLs and its DOI, want 1", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM pages WHERE doi = $1`, paperDOI); n != 1 {
		t.Errorf("%d pages carry the DOI, want 1", n)
	}
	if n := queryInt(t, pool, `SELECT count(DISTINCT page_id) FROM resource_index WHERE identifier IN ($1, $2, $3)`, publisher, mirror, paperDOI); n != 1 {
		t.Errorf("the two URLs and the DOI point at %d pages, want 1", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM resource_index WHERE identifier = '10.9999/other.1'`); n != 0 {
		t.Error("a DOI the page merely links to was indexed as this page's")
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM task_pages WHERE task_id = $1`, second); n != 1 {
		t.Errorf("the DOI target linked %d pages to its task, want 1", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM claims WHERE task_id = $1 AND kind = 'extracted'`, second); n == 0 {
		t.Error("the DOI target's task got no claims from the paper")
	}
	versions := queryInt(t, pool, `SELECT count(*) FROM page_versions`)
	if versions != 2 {
		t.Errorf("%d page versions, want 2 (publisher and mirror text; the DOI target adds none)", versions)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM targets WHERE task_id = $1 AND kind = 'doi' AND status = 'extracted'`, second); n != 1 {
		t.Error("the DOI target is not extracted")
	}
}

func TestUnknownDOIWithoutAcademicSourceFailsClearly(t *testing.T) {
	f := testfleet.Start(t, testfleet.Options{Pages: polarPages()})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetDOI, Value: "10.5555/never.seen"})
	testfleet.WaitIdle(t, f.Pool, 30*time.Second)
	var status, errText string
	if err := f.Pool.QueryRow(t.Context(), `SELECT status, COALESCE(error, '') FROM targets WHERE task_id = $1`, task).Scan(&status, &errText); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || !strings.Contains(errText, "10.5555/never.seen") || !strings.Contains(errText, "academic") {
		t.Errorf("target %s (%q), want failed naming the DOI and the missing academic source", status, errText)
	}
	if got, _ := f.Worker.Metrics().Sum("evidencefleet_academic_steps_total", map[string]string{"step": "doi", "outcome": "not_resolved"}); got != 1 {
		t.Errorf("not_resolved counted %v times, want 1", got)
	}
}
