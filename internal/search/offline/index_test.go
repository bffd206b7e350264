package offline_test

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/search"
	"github.com/evidencefleet/evidencefleet/internal/search/offline"
)

func page(url, title string, paragraphs ...string) corpus.Page {
	body := "<!doctype html><html lang=\"en\"><head><title>" + title + "</title></head><body><main><article><h1>" + title + "</h1>"
	for _, p := range paragraphs {
		body += "<p>" + p + "</p>"
	}
	return corpus.Page{URL: url, ContentType: "text/html; charset=utf-8", Body: []byte(body + "</article></main></body></html>")}
}

// longParagraph has many sentences, one of them about glaciers, and more
// than SnippetRunes characters.
var longParagraph = strings.Repeat("The committee met on a rainy Tuesday to discuss the budget. ", 6) +
	"Alpine glaciers lost a tenth of their volume in two summers. " +
	strings.Repeat("Minutes were taken and circulated to every member afterwards. ", 6)

func archive(t *testing.T, pages ...corpus.Page) string {
	t.Helper()
	dir := t.TempDir()
	if err := corpus.WriteArchive(dir, pages); err != nil {
		t.Fatal(err)
	}
	return dir
}

// setup is an index of a small archive: pages on glaciers, sea ice and
// cooking, two identical pages, and entries that are not pages.
func setup(t *testing.T) *offline.Index {
	t.Helper()
	return offline.New(archive(t,
		page("https://a.example/glacier", "Glacier retreat",
			"Glaciers in the Alps are retreating faster than ever recorded.",
			"A paragraph about something else entirely: the village festival."),
		page("https://b.example/ice", "Sea ice", "Arctic sea ice is declining every decade.", "Glaciers are mentioned once here."),
		page("https://c.example/pasta", "Pasta", "Cooking pasta with tomatoes and basil."),
		page("https://z.example/twin", "Volcano", "A volcano erupted near the coast."),
		page("https://m.example/twin", "Volcano", "A volcano erupted near the coast."),
		page("https://d.example/minutes", "Committee minutes", longParagraph),
		corpus.Page{URL: "https://a.example/robots.txt", ContentType: "text/plain", Body: []byte("User-agent: *\nDisallow: /glacier-private\n")},
		corpus.Page{URL: "https://e.example/gone", Status: 404, ContentType: "text/html", Body: []byte("<p>glacier glacier glacier</p>")},
		corpus.Page{URL: "https://api.example/works/1", ContentType: "application/json", Body: []byte(`{"title": "glacier glacier"}`)},
		corpus.Page{URL: "https://f.example/notes.txt", ContentType: "text/plain; charset=utf-8", Body: []byte("# Field notes\n\nThe glacier tongue moved ten metres.\n")},
	), offline.Options{})
}

func urls(rs []search.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.URL
	}
	return out
}

func TestSearchRanksPagesByBM25(t *testing.T) {
	t.Parallel()
	idx := setup(t)
	ctx := context.Background()
	if n, err := idx.Len(ctx); err != nil || n != 7 {
		t.Fatalf("Len = %d, %v; want the 7 pages (not robots.txt, the 404 or the JSON)", n, err)
	}
	tests := []struct {
		query string
		want  []string
	}{
		// Three glacier terms on a: first; b and the notes hold "glacier" only.
		{"glacier retreat in the Alps", []string{"https://a.example/glacier", "https://f.example/notes.txt", "https://b.example/ice", "https://d.example/minutes"}},
		{"arctic sea ice", []string{"https://b.example/ice"}},
		// Equal scores: by URL.
		{"volcano eruption", []string{"https://m.example/twin", "https://z.example/twin"}},
		{"the of and", nil},             // stop words only
		{"quantum chromodynamics", nil}, // no page holds a term
	}
	for _, tt := range tests {
		got, err := idx.Search(ctx, tt.query, 10)
		if err != nil {
			t.Fatalf("Search(%q): %v", tt.query, err)
		}
		if !slices.Equal(urls(got), tt.want) {
			t.Errorf("Search(%q) = %v, want %v", tt.query, urls(got), tt.want)
		}
	}
	got, err := idx.Search(ctx, "glacier retreat in the Alps", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Title != "Glacier retreat" || got[0].Snippet != "Glaciers in the Alps are retreating faster than ever recorded." {
		t.Errorf("first result %+v, want the page's title and its matching paragraph", got[0])
	}
}

func TestSnippetIsTheBestPassageBounded(t *testing.T) {
	t.Parallel()
	idx := setup(t)
	got, err := idx.Search(context.Background(), "alpine glaciers volume", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].URL != "https://d.example/minutes" {
		t.Fatalf("Search = %+v, want the minutes page alone", got)
	}
	s := got[0].Snippet
	if n := utf8.RuneCountInString(s); n > offline.SnippetRunes {
		t.Errorf("snippet has %d characters, more than %d", n, offline.SnippetRunes)
	}
	if !strings.Contains(s, "Alpine glaciers lost a tenth of their volume in two summers.") {
		t.Errorf("snippet %q lacks the matching sentence", s)
	}
	if strings.HasPrefix(s, "The committee met") && !strings.Contains(s, "Alpine") {
		t.Errorf("snippet %q is the paragraph's start, not its best passage", s)
	}
}

func TestSearchBounds(t *testing.T) {
	t.Parallel()
	var pages []corpus.Page
	for i := range offline.DefaultResults + 5 {
		pages = append(pages, page(fmt.Sprintf("https://p%02d.example/", i), "Moraine", fmt.Sprintf("Moraine number %d.", i)))
	}
	idx := offline.New(archive(t, pages...), offline.Options{})
	ctx := context.Background()
	for _, tt := range []struct{ limit, want int }{{0, offline.DefaultResults}, {-1, offline.DefaultResults}, {3, 3}, {1000, len(pages)}} {
		got, err := idx.Search(ctx, "moraine", tt.limit)
		if err != nil || len(got) != tt.want {
			t.Errorf("Search(limit %d) = %d results, %v; want %d", tt.limit, len(got), err, tt.want)
		}
	}
	// Only the first MaxQueryBytes of a query count.
	long := strings.Repeat("x", offline.MaxQueryBytes) + " moraine"
	if got, err := idx.Search(ctx, long, 5); err != nil || len(got) != 0 {
		t.Errorf("a term past MaxQueryBytes matched: %v, %v", urls(got), err)
	}
	var words []string
	for i := range offline.MaxQueryTerms + 10 {
		words = append(words, fmt.Sprintf("term%c%c", 'a'+i/26, 'a'+i%26))
	}
	if n := len(offline.QueryTerms(strings.Join(words, " "))); n != offline.MaxQueryTerms {
		t.Errorf("QueryTerms kept %d terms, want %d", n, offline.MaxQueryTerms)
	}
}

func TestBM25Formula(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		got, want float64
	}{
		{"idf of 1 in 3", offline.IDF(3, 1), math.Log(1 + 2.5/1.5)},
		{"idf of 3 in 3", offline.IDF(3, 3), math.Log(1 + 0.5/3.5)},
		{"tf 1 at average length", offline.TermScore(1, 1, 10, 10), 1},                               // 2.2/(1+1.2)
		{"tf 2 at twice the average", offline.TermScore(2, 2, 20, 10), 2 * 2 * 2.2 / (2 + 1.2*1.75)}, // norm 1.2·(0.25+1.5)
		{"term absent", offline.TermScore(1, 0, 10, 10), 0},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestSearchCountsInTheCostMeter(t *testing.T) {
	t.Parallel()
	idx := setup(t)
	ctx, m := cost.WithMeter(context.Background())
	for range 2 {
		if _, err := idx.Search(ctx, "glacier", 3); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.Counts().Searches; got != 2 {
		t.Errorf("%d searches counted, want 2", got)
	}
}

func TestMissingArchiveFailsEverySearch(t *testing.T) {
	t.Parallel()
	idx := offline.New(t.TempDir(), offline.Options{})
	for range 2 {
		if _, err := idx.Search(context.Background(), "glacier", 3); err == nil || !strings.Contains(err.Error(), "manifest.jsonl") {
			t.Errorf("Search on an empty directory = %v, want an error naming manifest.jsonl", err)
		}
	}
}

// The index served as SearxNG JSON and read by the fleet's SearxNG client
// gives the index's own answers.
func TestHandlerSpeaksSearxNGJSONToTheClient(t *testing.T) {
	t.Parallel()
	idx := setup(t)
	srv := httptest.NewServer(offline.Handler(idx))
	t.Cleanup(srv.Close)
	client, err := search.NewSearXNG(srv.URL, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range []string{"glacier retreat in the Alps", "volcano", "alpine glaciers volume", "nothing matches zzzz"} {
		want, err := idx.Search(ctx, q, 3)
		if err != nil {
			t.Fatal(err)
		}
		got, err := client.Search(ctx, q, 3)
		if err != nil {
			t.Fatalf("client.Search(%q): %v", q, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("through SearxNG JSON %q = %+v, want %+v", q, got, want)
		}
	}
	resp, err := srv.Client().Get(srv.URL + "/search?q=glacier&format=html")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("format=html: HTTP %d, want 400", resp.StatusCode)
	}
}

// Searches at once share one build (run with -race) and agree.
func TestConcurrentSearchesShareTheIndex(t *testing.T) {
	t.Parallel()
	idx := setup(t)
	want := []string{"https://b.example/ice"}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			got, err := idx.Search(context.Background(), "arctic sea ice", 5)
			if err == nil && !slices.Equal(urls(got), want) {
				err = fmt.Errorf("Search = %v, want %v", urls(got), want)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
