package corpus

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/academic/openalex"
	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/harness/warccheck"
	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/warc"
)

// The bundled inputs (testdata/, see each folder's ATTRIBUTION.md),
// relative to this package.
const (
	climateFeverPath = "../../../testdata/climate-fever/climate-fever-dev.jsonl"
	openAlexPath     = "../../../testdata/api-fixtures/openalex/W2741809807.json"
	s2PaperPath      = "../../../testdata/api-fixtures/semantic-scholar/Paper.json"
)

func TestWikipediaURL(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"Global warming":                     "https://en.wikipedia.org/wiki/Global_warming",
		"El Niño":                            "https://en.wikipedia.org/wiki/El_Ni%C3%B1o",
		"Paleocene–Eocene Thermal Maximum":   "https://en.wikipedia.org/wiki/Paleocene%E2%80%93Eocene_Thermal_Maximum",
		"Kīlauea":                            "https://en.wikipedia.org/wiki/K%C4%ABlauea",
		"Earth's energy budget":              "https://en.wikipedia.org/wiki/Earth%27s_energy_budget",
		"Parinacota (volcano)":               "https://en.wikipedia.org/wiki/Parinacota_(volcano)",
		"OSTM/Jason-2":                       "https://en.wikipedia.org/wiki/OSTM/Jason-2",
		"Don't ask, don't tell":              "https://en.wikipedia.org/wiki/Don%27t_ask,_don%27t_tell",
		"Captain America: The First Avenger": "https://en.wikipedia.org/wiki/Captain_America:_The_First_Avenger",
		"AT&T":                               "https://en.wikipedia.org/wiki/AT%26T",
		"C++":                                "https://en.wikipedia.org/wiki/C%2B%2B",
		"Why?":                               "https://en.wikipedia.org/wiki/Why%3F",
	}
	for title, want := range tests {
		got := WikipediaURL(title)
		if got != want {
			t.Errorf("WikipediaURL(%q) = %q, want %q", title, got, want)
		}
		// The key the replay archive uses must keep the page reachable.
		if n, err := ident.NormalizeURL(got); err != nil || n != got {
			t.Errorf("NormalizeURL(%q) = %q, %v; want it unchanged", got, n, err)
		}
	}
}

func TestRenderArticlesGroupsAndOrders(t *testing.T) {
	t.Parallel()
	recs := []Record{
		{ClaimID: "1", Claim: "c1", Evidences: []Evidence{
			{EvidenceID: "Polar bear:40", Article: "Polar bear", Evidence: "Fourth <sentence> & more."},
			{EvidenceID: "Polar bear:2", Article: "Polar bear", Evidence: "First sentence."},
			{EvidenceID: "El Niño:7", Article: "El Niño", Evidence: "Niño sentence."},
		}},
		{ClaimID: "2", Claim: "c2", Evidences: []Evidence{
			{EvidenceID: "Polar bear:10", Article: "Polar bear", Evidence: "Second sentence."},
			{EvidenceID: "Polar bear:2", Article: "Polar bear", Evidence: "First sentence."}, // same sentence again
			{EvidenceID: "Polar bear:11", Article: "Polar bear", Evidence: "Third sentence."},
		}},
	}
	pages := RenderArticles(recs)
	if len(pages) != 2 {
		t.Fatalf("got %d pages, want 2", len(pages))
	}
	if pages[0].URL != "https://en.wikipedia.org/wiki/El_Ni%C3%B1o" || pages[1].URL != "https://en.wikipedia.org/wiki/Polar_bear" {
		t.Fatalf("URLs %q %q", pages[0].URL, pages[1].URL)
	}
	body := string(pages[1].Body)
	want := "<p>First sentence. Second sentence. Third sentence.\n</p>\n<p>Fourth &lt;sentence&gt; &amp; more.\n</p>"
	if !strings.Contains(body, want) {
		t.Fatalf("paragraphs not as expected; body:\n%s", body)
	}
	if strings.Count(body, "First sentence.") != 1 {
		t.Fatal("duplicate sentence rendered twice")
	}
	for _, boiler := range []string{
		"<title>Polar bear - Wikipedia</title>",
		`<nav class="vector-main-menu-landmark"`,
		"Text is available under the",
		"Creative Commons Attribution-ShareAlike License",
		"<script>",
		`<footer id="footer"`,
		`<link rel="canonical" href="https://en.wikipedia.org/wiki/Polar_bear">`,
	} {
		if !strings.Contains(body, boiler) {
			t.Errorf("page lacks %q", boiler)
		}
	}
	if pages[1].ContentType != "text/html; charset=utf-8" {
		t.Errorf("content type %q", pages[1].ContentType)
	}
	again := RenderArticles(recs)
	if string(again[1].Body) != body {
		t.Error("rendering is not deterministic")
	}
}

func TestOpenAlexAbstractWordForWord(t *testing.T) {
	t.Parallel()
	w, err := ReadOpenAlexWork(openAlexPath)
	if err != nil {
		t.Fatal(err)
	}
	text := openalex.RebuildAbstract(w.AbstractInvertedIndex)
	words := strings.Split(text, " ")
	total := 0
	for word, positions := range w.AbstractInvertedIndex {
		for _, p := range positions {
			total++
			if p >= len(words) || words[p] != word {
				t.Fatalf("position %d: want %q, got text %q", p, word, text)
			}
		}
	}
	if total != len(words) || total != 258 {
		t.Fatalf("rebuilt %d words from %d positions, fixture has 258", len(words), total)
	}
	const start = "Despite growing interest in Open Access (OA) to scholarly literature, there is an unmet need for large-scale, up-to-date, and reproducible studies assessing the prevalence and characteristics of OA."
	const end = "We encourage further research using the free oaDOI service, as a way to inform OA policy and practice."
	if !strings.HasPrefix(text, start) || !strings.HasSuffix(text, end) {
		t.Fatalf("abstract text: %q", text)
	}

	p := OpenAlexPage(w)
	body := string(p.Body)
	if p.URL != "https://openalex.org/W2741809807" {
		t.Fatalf("URL %q", p.URL)
	}
	for _, want := range []string{
		`<meta name="citation_doi" content="10.7717/peerj.4375">`,
		"<h1 class=\"paper-title\">The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles</h1>",
		"<p>" + start,
		"Heather Piwowar",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("OpenAlex page lacks %q", want)
		}
	}
}

func TestSemanticScholarPage(t *testing.T) {
	t.Parallel()
	sp, err := ReadSemanticScholarPaper(s2PaperPath)
	if err != nil {
		t.Fatal(err)
	}
	p := SemanticScholarPage(sp)
	if p.URL != "https://www.semanticscholar.org/paper/2d5673caa9e6af3a7b82a43f19ee920992db07ad" {
		t.Fatalf("URL %q", p.URL)
	}
	body := string(p.Body)
	for _, want := range []string{
		`<meta name="citation_doi" content="10.1093/MIND/LIX.236.433">`,
		"Computing Machinery and Intelligence",
		"I propose to consider the question, “Can machines think?”",
		"Corpus ID: 14636783",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("Semantic Scholar page lacks %q", want)
		}
	}
}

func TestClimateFeverArchiveReplay(t *testing.T) {
	t.Parallel()
	recs, err := ReadClimateFever(climateFeverPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 386 {
		t.Fatalf("read %d records, want 386", len(recs))
	}
	first := recs[0]
	if first.ClaimID != "0" || first.ClaimLabel != "SUPPORTS" || len(first.Evidences) != 5 {
		t.Fatalf("first record %+v", first)
	}

	dir := t.TempDir()
	pages, err := BuildClimateFever(recs, Options{
		OutDir: dir, WithAcademic: true, OpenAlexWork: openAlexPath, SemanticScholarPaper: s2PaperPath,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 531+2 {
		t.Fatalf("%d pages, want 531 articles + 2 academic", len(pages))
	}
	cfg := crawl.DefaultConfig()
	cfg.ReplayDir = dir
	f, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ url, want string }{
		{WikipediaURL("Polar bear"), "<title>Polar bear - Wikipedia</title>"},
		{"https://en.wikipedia.org/wiki/Global_warming", "Rising temperatures push bees to their physiological limits"},
		{"https://en.wikipedia.org/wiki/El_Niño", "<title>El Niño - Wikipedia</title>"}, // unescaped spelling
		{"https://en.wikipedia.org/wiki/Earth%27s_energy_budget", "<title>Earth&#39;s energy budget - Wikipedia</title>"},
		{"https://openalex.org/W2741809807", `<meta name="citation_doi" content="10.7717/peerj.4375">`},
		{"https://www.semanticscholar.org/paper/2d5673caa9e6af3a7b82a43f19ee920992db07ad", "Computing Machinery and Intelligence"},
	}
	for _, tt := range tests {
		res, err := f.Fetch(context.Background(), tt.url)
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		if res.Status != 200 || res.ContentType != "text/html" || !strings.Contains(string(res.Body), tt.want) {
			t.Fatalf("%s: status %d type %q, body lacks %q", tt.url, res.Status, res.ContentType, tt.want)
		}
	}
	if _, err := f.Fetch(context.Background(), "https://en.wikipedia.org/wiki/Not_in_the_corpus"); !crawl.IsPermanent(err) {
		t.Fatalf("missing page: want permanent 404, got %v", err)
	}
}

// TestWriteArchiveIsWARC: the archive is one WARC file whose responses
// the replay reader gives back with their status, headers and bodies; the
// same pages give the same bytes; writing again replaces the WARC and
// retires an archive of the older layout (manifest.jsonl and its files).
func TestWriteArchiveIsWARC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := Page{URL: "https://example.org/a", Body: []byte("<p>a — é</p>")}
	b := Page{URL: "https://example.org/b", Status: 301, Headers: map[string]string{"Location": "https://example.org/a"}}
	old := filepath.Join(dir, "example.org", "old.html")
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("<p>old</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, crawl.ManifestFile), []byte(`{"url":"https://example.org/old","file":"example.org/old.html"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteArchive(dir, []Page{a, b}); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{old, filepath.Join(dir, crawl.ManifestFile)} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("the older archive's %s is still there: %v", gone, err)
		}
	}
	first, err := os.ReadFile(filepath.Join(dir, ArchiveFile))
	if err != nil {
		t.Fatal(err)
	}
	archive, err := crawl.OpenArchive(dir)
	if err != nil || archive.Len() != 2 {
		t.Fatalf("the archive: %v, %v", archive, err)
	}
	for _, want := range []struct {
		page   Page
		status int
	}{{a, 200}, {b, 301}} {
		e, ok := archive.Lookup(want.page.URL)
		if !ok || e.Status != want.status {
			t.Errorf("%s: %+v %v, want status %d", want.page.URL, e, ok, want.status)
			continue
		}
		body, _, err := archive.Body(e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(body)
		body.Close()
		if err != nil || !bytes.Equal(got, want.page.Body) {
			t.Errorf("%s: body %q %v, want %q", want.page.URL, got, err, want.page.Body)
		}
	}
	if e, _ := archive.Lookup(b.URL); e.Header.Get("Location") != "https://example.org/a" {
		t.Errorf("the redirect's Location: %q", e.Header.Get("Location"))
	}
	if err := WriteArchive(dir, []Page{a, b}); err != nil {
		t.Fatal(err)
	}
	if again, err := os.ReadFile(filepath.Join(dir, ArchiveFile)); err != nil || !bytes.Equal(again, first) {
		t.Errorf("the same pages wrote other bytes (%v)", err)
	}
	if err := WriteArchive(dir, []Page{a}); err != nil {
		t.Fatal(err)
	}
	if archive, err := crawl.OpenArchive(dir); err != nil || archive.Len() != 1 {
		t.Errorf("rewritten with one page: %v", err)
	}
	if err := WriteArchive(dir, []Page{a, {URL: "HTTPS://EXAMPLE.org/a#x"}}); err == nil {
		t.Fatal("duplicate URL accepted")
	}
	if err := WriteArchive(dir, []Page{{URL: "ftp://example.org/"}}); err == nil {
		t.Fatal("invalid URL accepted")
	}
}

func TestWriteClaims(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "claims.jsonl")
	recs := []Record{{ClaimID: "0", Claim: `Sea "level" <rise>`, ClaimLabel: "SUPPORTS", Evidences: []Evidence{{EvidenceID: "X:1"}}}}
	if err := WriteClaims(path, recs); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if want := `{"claim_id":"0","claim":"Sea \"level\" <rise>","claim_label":"SUPPORTS"}` + "\n"; string(b) != want {
		t.Fatalf("got %s", b)
	}
}

// TestArchiveReadsInWarcio: the archive WriteArchive writes, and the demo
// corpus's, are read by an independent WARC reader (Webrecorder's
// warcio.js, internal/harness/warccheck): every record parses, every digest
// holds, every page is a response with its status.
func TestArchiveReadsInWarcio(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pages := []Page{
		{URL: "https://example.org/a", Body: []byte("<p>a — é</p>")},
		{URL: "https://example.org/gone", Status: 410},
		{URL: "https://example.org/robots.txt", ContentType: "text/plain", Body: []byte("User-agent: *\n")},
	}
	if err := WriteArchive(dir, pages); err != nil {
		t.Fatal(err)
	}
	r := warccheck.Validate(t, filepath.Join(dir, ArchiveFile), "")
	if len(r.Errors) > 0 || r.ByType["warcinfo"] != 1 || r.ByType["response"] != len(pages) {
		t.Errorf("warcio read %+v, want a warcinfo and %d responses, no error", r, len(pages))
	}
	statuses := map[string]int{}
	for _, resp := range r.Responses {
		statuses[resp.URI] = resp.Status
	}
	if statuses["https://example.org/a"] != 200 || statuses["https://example.org/gone"] != 410 {
		t.Errorf("warcio read the statuses %v", statuses)
	}
	demo := warccheck.Validate(t, "../../../testdata/replay/demo/"+ArchiveFile, "")
	if len(demo.Errors) > 0 || demo.ByType["response"] != 31 {
		t.Errorf("warcio read the demo corpus as %d responses with errors %v, want 31 and none", demo.ByType["response"], demo.Errors)
	}
}

// TestAnotherToolsCrawlReplays: a WARC written by another tool (warcio.js)
// replays through the fleet's fetcher: pages with their text, a redirect
// followed, a gone page refused as the fetcher refuses it live.
func TestAnotherToolsCrawlReplays(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	html := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	when := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	warccheck.Write(t, filepath.Join(dir, "crawl.warc.gz"), []warccheck.Record{
		{URL: "https://example.org/glaciers", Date: when, Status: 200, Header: html,
			Body: []byte("<html><head><title>Glaciers</title></head><body><p>Glaciers are retreating worldwide — in the Alps fastest.</p></body></html>")},
		{URL: "https://example.org/old", Date: when, Status: 301, Header: http.Header{"Location": {"https://example.org/glaciers"}}},
		{URL: "https://example.org/gone", Date: when, Status: 410, Header: html, Body: []byte("gone")},
	})
	archive, err := crawl.OpenArchive(dir)
	if err != nil || archive.Len() != 3 {
		t.Fatalf("the warcio crawl: %v %v, want 3 responses", archive, err)
	}
	cfg := crawl.DefaultConfig()
	cfg.ReplayDir = dir
	f, err := crawl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	for _, url := range []string{"https://example.org/glaciers", "https://example.org/old"} {
		res, err := f.Fetch(context.Background(), url)
		if err != nil || res.FinalURL != "https://example.org/glaciers" || !strings.Contains(string(res.Body), "Glaciers are retreating worldwide — in the Alps") {
			t.Errorf("%s: %v, %+v", url, err, res)
		}
	}
	if _, err := f.Fetch(context.Background(), "https://example.org/gone"); !crawl.IsPermanent(err) {
		t.Errorf("the gone page: %v, want a permanent refusal", err)
	}
}

// TestCDXJIsWarcios: the CDXJ lines crawl.CDXJLine writes for a WARC are
// the ones warcio.js's indexer writes for the same file, byte for byte
// (pages with a query, a port, www and non-ASCII paths), and warcio finds
// each line's record at its offset.
func TestCDXJIsWarcios(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "pages.warc.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	ww, err := warc.NewWriter(f, "test", CaptureDate)
	if err != nil {
		t.Fatal(err)
	}
	html := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
	var lines []string
	for i, u := range []string{"https://www.example.org/a?b=2&a=1", "http://example.org:8080/Caf%C3%A9", "https://www2.sub.example.com/", "https://example.org/gone"} {
		c := warc.Capture{URL: u, Date: CaptureDate.Add(time.Duration(i) * time.Second), Status: 200, Header: html, Body: []byte("<p>page</p>")}
		if i == 3 {
			c.Status, c.Header, c.Body = 410, http.Header{}, nil
		}
		w, err := ww.Write(c, [2]string{"WARC-Page-Version-Id", fmt.Sprint(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, warc.CDXJLine(w, "pages.warc.gz"))
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := warccheck.Index(t, path), strings.Join(lines, ""); got != want {
		t.Errorf("warcio's CDXJ:\n%s\nours:\n%s", got, want)
	}
	cdxj := filepath.Join(dir, "pages.cdxj")
	if err := os.WriteFile(cdxj, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := warccheck.Validate(t, path, cdxj); len(r.Errors) > 0 {
		t.Errorf("warcio: %v", r.Errors)
	}
}
