package s2

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/harness/cassette"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// fixtures are the recorded responses bundled in the repository (see
// testdata/api-fixtures/ATTRIBUTION.md for their origin and licences).
const fixtures = "../../../testdata/api-fixtures/semantic-scholar"

const testKey = "s2-test-key-9f8e7d"

// fastHTTP retries quickly so the tests do not sleep on backoff.
func fastHTTP() httpx.Options {
	return httpx.Options{MaxRetries: 2, BaseBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}
}

func newClient(t *testing.T, base string) *Client {
	t.Helper()
	c, err := New(Options{BaseURL: base, APIKey: testKey, MinInterval: -1, HTTP: fastHTTP()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	cassettesMu sync.Mutex
	cassettes   = map[string]*cassette.Cassette{}
)

// loadCassette reads a cassette of fixtures once for all tests.
func loadCassette(t *testing.T, name string) *cassette.Cassette {
	t.Helper()
	cassettesMu.Lock()
	defer cassettesMu.Unlock()
	if c, ok := cassettes[name]; ok {
		return c
	}
	c, err := cassette.Load(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	cassettes[name] = c
	return c
}

// recorded is what a cassette of /references or /citations holds, read
// independently of the client: every item in order, plus the fields and id
// of the recorded request.
type recorded struct {
	fields []string
	id     string
	items  []map[string]any // the "data" items in recording order
	pages  int
}

func readRecorded(t *testing.T, c *cassette.Cassette, kind string) recorded {
	t.Helper()
	var r recorded
	for i, it := range c.Interactions {
		u, err := url.Parse(it.URI)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			r.fields = strings.Split(u.Query().Get("fields"), ",")
			r.id = strings.TrimSuffix(strings.TrimPrefix(u.Path, "/graph/v1/paper/"), "/"+kind)
			// The client's default page size is the recorded one.
			if l := u.Query().Get("limit"); l != strconv.Itoa(DefaultPageSize) {
				t.Fatalf("recorded limit %s, DefaultPageSize %d", l, DefaultPageSize)
			}
		}
		var page struct {
			Data []map[string]any `json:"data"`
		}
		if err := json.Unmarshal(it.Body, &page); err != nil {
			t.Fatal(err)
		}
		r.items = append(r.items, page.Data...)
		r.pages++
	}
	return r
}

// replay serves cassette c under /graph/v1 and checks that every request
// carries the API key.
func replay(t *testing.T, c *cassette.Cassette) (*httptest.Server, *cassette.Replayer) {
	t.Helper()
	rp := c.Replayer()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("x-api-key"); got != testKey {
			t.Errorf("%s: x-api-key %q, want the test key", r.URL.Path, got)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, rp
}

func paperID(item map[string]any, key string) string {
	p, _ := item[key].(map[string]any)
	id, _ := p["paperId"].(string)
	return id
}

// checkLinks compares links with the first len(links) recorded items:
// paper id, title and isInfluential (absent counts as false).
func checkLinks(t *testing.T, links []academic.Link, items []map[string]any, key string) {
	t.Helper()
	for i, l := range links {
		want := items[i]
		infl, _ := want["isInfluential"].(bool)
		if l.Influential != infl {
			t.Errorf("item %d: Influential %v, recorded %v", i, l.Influential, want["isInfluential"])
		}
		if l.Paper.S2ID != paperID(want, key) {
			t.Errorf("item %d: S2ID %q, recorded %q", i, l.Paper.S2ID, paperID(want, key))
		}
		p, _ := want[key].(map[string]any)
		if title, _ := p["title"].(string); l.Paper.Title != strings.TrimSpace(title) {
			t.Errorf("item %d: title %q, recorded %q", i, l.Paper.Title, title)
		}
		if l.Source != academic.SourceSemanticScholar {
			t.Errorf("item %d: source %q", i, l.Source)
		}
	}
}

func countInfluential(items []map[string]any) int {
	n := 0
	for _, it := range items {
		if b, _ := it["isInfluential"].(bool); b {
			n++
		}
	}
	return n
}

func TestReferencesReplay(t *testing.T) {
	c := loadCassette(t, "test_get_paper_references@ae6c154.yaml")
	rec := readRecorded(t, c, "references")
	// What the recording holds, counted independently of the client.
	if len(rec.items) != 156 || rec.pages != 2 || rec.id != "CorpusID:1033682" {
		t.Fatalf("recording: %d items in %d pages for %q; the fixture changed?", len(rec.items), rec.pages, rec.id)
	}
	if n := countInfluential(rec.items); n != 1 {
		t.Fatalf("recording has %d influential references, expected 1", n)
	}
	tests := []struct {
		name        string
		lim         academic.Limit
		wantItems   int
		wantReqs    int
		wantMore    bool
		influential int
	}{
		{"everything: stops where the recording stops", academic.Limit{MaxItems: 10000, MaxPages: 50}, 156, 2, false, 1},
		{"exactly the recorded count", academic.Limit{MaxItems: 156}, 156, 2, false, 1},
		{"max items inside page 1", academic.Limit{MaxItems: 50}, 50, 1, true, 0},
		{"max items = page 1", academic.Limit{MaxItems: 100}, 100, 1, true, 0},
		{"max items one into page 2 (the influential one)", academic.Limit{MaxItems: 101}, 101, 2, true, 1},
		{"max pages 1", academic.Limit{MaxItems: 10000, MaxPages: 1}, 100, 1, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rp := replay(t, c)
			cl := newClient(t, srv.URL+"/graph/v1")
			links, more, err := cl.References(context.Background(), rec.id, tt.lim, rec.fields...)
			if err != nil {
				t.Fatal(err)
			}
			if len(links) != tt.wantItems || more != tt.wantMore {
				t.Fatalf("%d links, more %v; want %d, %v", len(links), more, tt.wantItems, tt.wantMore)
			}
			if n := len(rp.Requests()); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
			if u := rp.Unmatched(); len(u) > 0 {
				t.Errorf("requests outside the recording: %q", u)
			}
			checkLinks(t, links, rec.items, "citedPaper")
			infl := 0
			for _, l := range links {
				if l.Influential {
					infl++
				}
			}
			if infl != tt.influential || infl != countInfluential(rec.items[:len(links)]) {
				t.Errorf("%d influential, want %d", infl, tt.influential)
			}
		})
	}
}

// The one influential reference of the recording, in full: contexts and
// intents come through, and an unresolved reference keeps what S2 said.
func TestReferencesReplayDetails(t *testing.T) {
	c := loadCassette(t, "test_get_paper_references@ae6c154.yaml")
	rec := readRecorded(t, c, "references")
	srv, _ := replay(t, c)
	links, _, err := newClient(t, srv.URL+"/graph/v1").References(context.Background(), rec.id, academic.Limit{MaxItems: 1000}, rec.fields...)
	if err != nil {
		t.Fatal(err)
	}
	l := links[100]
	recContexts, _ := rec.items[100]["contexts"].([]any)
	if !l.Influential || l.Paper.Title != "Conditional Generative Adversarial Nets" || l.Paper.ArXiv != "1411.1784" ||
		len(recContexts) == 0 || len(l.Contexts) != len(recContexts) ||
		!strings.HasPrefix(l.Contexts[0], "Conditional GAN: Mirza and Osindero (2014)") {
		t.Errorf("influential reference: %+v", l)
	}
	withContexts, withIntents := 0, 0
	for _, l := range links {
		if len(l.Contexts) > 0 {
			withContexts++
		}
		if len(l.Intents) > 0 {
			withIntents++
		}
	}
	if withContexts != 36 || withIntents != 1 { // counted in the recording
		t.Errorf("%d links with contexts, %d with intents; the recording has 36 and 1", withContexts, withIntents)
	}
	first := links[0].Paper
	if first.ArXiv != "2208.04425" || first.DOI != "10.48550/arxiv.2208.04425" || first.CorpusID != 251442494 ||
		first.Year != 2022 || first.Venue != "Neural Information Processing Systems" || len(first.Authors) == 0 {
		t.Errorf("first reference: %+v", first)
	}
	unresolved := 0
	for _, l := range links {
		if l.Paper.S2ID == "" {
			unresolved++
			if l.Paper.Title == "" {
				t.Errorf("unresolved reference without a title: %+v", l.Paper)
			}
		}
	}
	if unresolved != 9 {
		t.Errorf("%d references with a null paperId, the recording has 9", unresolved)
	}
}

func TestCitationsReplay(t *testing.T) {
	c := loadCassette(t, "test_get_paper_citations.yaml")
	rec := readRecorded(t, c, "citations")
	if len(rec.items) != 1881 || rec.pages != 19 || rec.id != "CorpusID:14514057" {
		t.Fatalf("recording: %d items in %d pages for %q; the fixture changed?", len(rec.items), rec.pages, rec.id)
	}
	// This recording asked for fields=title only: isInfluential is absent.
	for i, it := range rec.items {
		if _, ok := it["isInfluential"]; ok {
			t.Fatalf("item %d has isInfluential; the fixture changed?", i)
		}
	}
	tests := []struct {
		name      string
		lim       academic.Limit
		wantItems int
		wantReqs  int
		wantMore  bool
	}{
		{"everything: stops where the recording stops", academic.Limit{MaxItems: 5000, MaxPages: 100}, 1881, 19, false},
		{"exactly the recorded count", academic.Limit{MaxItems: 1881}, 1881, 19, false},
		{"max items mid-page", academic.Limit{MaxItems: 250}, 250, 3, true},
		{"max pages", academic.Limit{MaxItems: 5000, MaxPages: 5}, 500, 5, true},
		{"zero limit takes the defaults", academic.Limit{}, academic.DefaultMaxItems, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rp := replay(t, c)
			links, more, err := newClient(t, srv.URL+"/graph/v1").Citations(context.Background(), rec.id, tt.lim, rec.fields...)
			if err != nil {
				t.Fatal(err)
			}
			if len(links) != tt.wantItems || more != tt.wantMore {
				t.Fatalf("%d links, more %v; want %d, %v", len(links), more, tt.wantItems, tt.wantMore)
			}
			if n := len(rp.Requests()); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
			if u := rp.Unmatched(); len(u) > 0 {
				t.Errorf("requests outside the recording: %q", u)
			}
			checkLinks(t, links, rec.items, "citingPaper")
			for i, l := range links {
				if l.Influential {
					t.Errorf("item %d influential, but the recording has no isInfluential", i)
				}
			}
		})
	}
}

func TestCitationsCancelled(t *testing.T) {
	c := loadCassette(t, "test_get_paper_citations.yaml")
	rec := readRecorded(t, c, "citations")
	srv, _ := replay(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	links, _, err := newClient(t, srv.URL+"/graph/v1").Citations(ctx, rec.id, academic.Limit{}, rec.fields...)
	if !errors.Is(err, context.Canceled) || len(links) != 0 {
		t.Fatalf("%d links, err %v; want none and context.Canceled", len(links), err)
	}
}

// loadPaperJSON reads the 2.7 MB Paper.json once for all tests.
var loadPaperJSON = sync.OnceValues(func() (map[string]json.RawMessage, error) {
	raw, err := os.ReadFile(filepath.Join(fixtures, "Paper.json"))
	if err != nil {
		return nil, err
	}
	var full map[string]json.RawMessage
	err = json.Unmarshal(raw, &full)
	return full, err
})

// paperFixture returns Paper.json cut to the requested fields (plus paperId,
// which the API always sends), as the API would answer the request; the file
// itself was recorded with citations, references and embedding as well.
func paperFixture(t *testing.T) func(fields string) []byte {
	t.Helper()
	full, err := loadPaperJSON()
	if err != nil {
		t.Fatal(err)
	}
	return func(fields string) []byte {
		cut := map[string]json.RawMessage{"paperId": full["paperId"]}
		for _, f := range strings.Split(fields, ",") {
			if v, ok := full[f]; ok {
				cut[f] = v
			}
		}
		b, err := json.Marshal(cut)
		if err != nil {
			panic(err)
		}
		return b
	}
}

// paperServer answers GET /graph/v1/paper/{id} with Paper.json for the ids in
// known, 404 for others, and POST /graph/v1/paper/batch with Paper.json or
// null per id.
func paperServer(t *testing.T, known ...string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	paper := paperFixture(t)
	isKnown := map[string]bool{}
	for _, k := range known {
		isKnown[k] = true
	}
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.Header.Get("x-api-key") != testKey {
			http.Error(w, `{"message":"Forbidden"}`, http.StatusForbidden)
			return
		}
		if r.URL.Query().Get("fields") == "" {
			http.Error(w, `{"error":"no fields"}`, http.StatusBadRequest)
			return
		}
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/graph/v1/paper/batch":
			var in struct {
				IDs []string `json:"ids"`
			}
			if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			parts := make([]string, len(in.IDs))
			for i, id := range in.IDs {
				parts[i] = "null"
				if isKnown[id] {
					parts[i] = string(paper(r.URL.Query().Get("fields")))
				}
			}
			_, _ = w.Write([]byte("[" + strings.Join(parts, ",") + "]"))
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/graph/v1/paper/"):
			if !isKnown[strings.TrimPrefix(r.URL.Path, "/graph/v1/paper/")] {
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte(`{"error":"Paper with id ` + r.URL.Path + ` not found"}`))
				return
			}
			_, _ = w.Write(paper(r.URL.Query().Get("fields")))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func checkTuring(t *testing.T, p *academic.Paper) {
	t.Helper()
	if p == nil {
		t.Fatal("nil paper")
	}
	want := academic.Paper{
		Title: "Computing Machinery and Intelligence", Year: 1950, Venue: "The Philosophy of Artificial Intelligence",
		DOI: "10.1093/mind/lix.236.433", S2ID: "2d5673caa9e6af3a7b82a43f19ee920992db07ad", CorpusID: 14636783,
		CitationCount: 10059, ReferenceCount: 14, InfluentialCitationCount: 530, PublicationDate: "1950-10-01",
		URL: "https://www.semanticscholar.org/paper/2d5673caa9e6af3a7b82a43f19ee920992db07ad", Source: academic.SourceSemanticScholar,
	}
	got := *p
	if len(got.Authors) != 1 || got.Authors[0] != "A. Turing" {
		t.Errorf("authors %q", got.Authors)
	}
	if !strings.HasPrefix(got.Abstract, "I propose to consider the question, “Can machines think?”") {
		t.Errorf("abstract %.60q", got.Abstract)
	}
	got.Authors, got.Abstract = nil, ""
	if got.Title != want.Title || got.Year != want.Year || got.Venue != want.Venue || got.DOI != want.DOI ||
		got.S2ID != want.S2ID || got.CorpusID != want.CorpusID || got.CitationCount != want.CitationCount ||
		got.ReferenceCount != want.ReferenceCount || got.InfluentialCitationCount != want.InfluentialCitationCount ||
		got.PublicationDate != want.PublicationDate || got.URL != want.URL || got.Source != want.Source ||
		got.PMID != "" || got.ArXiv != "" || got.OpenAlexID != "" {
		t.Errorf("paper\n got %+v\nwant %+v", got, want)
	}
}

func TestPaper(t *testing.T) {
	srv, _ := paperServer(t, "CorpusId:14636783", "DOI:10.1093/mind/lix.236.433", "2d5673caa9e6af3a7b82a43f19ee920992db07ad")
	c := newClient(t, srv.URL+"/graph/v1")
	for _, id := range []string{
		ByCorpusID(14636783),
		ByDOI("https://doi.org/10.1093/MIND/LIX.236.433"), // upper case from S2, normalised to the served id
		"2d5673caa9e6af3a7b82a43f19ee920992db07ad",
	} {
		p, err := c.Paper(context.Background(), id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		checkTuring(t, p)
	}
}

func TestPaperNotFound(t *testing.T) {
	srv, n := paperServer(t)
	_, err := newClient(t, srv.URL+"/graph/v1").Paper(context.Background(), ByPMID("PMID:123"))
	if !errors.Is(err, remoteerr.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("%d requests, want 1 (a 404 is not retried)", got)
	}
	if msg := err.Error(); !strings.Contains(msg, API) || !strings.Contains(msg, "/graph/v1/paper/PMID:123") ||
		!strings.Contains(msg, "404") || strings.Contains(msg, testKey) {
		t.Errorf("error text %q: want the API, path and status, never the key", msg)
	}
}

func TestPapersBatch(t *testing.T) {
	srv, n := paperServer(t, "CorpusId:14636783")
	c := newClient(t, srv.URL+"/graph/v1")
	ids := []string{"CorpusId:1", ByCorpusID(14636783), "CorpusId:2"}
	ps, err := c.Papers(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 || ps[0] != nil || ps[2] != nil {
		t.Fatalf("papers %v: want nil, Turing, nil", ps)
	}
	checkTuring(t, ps[1])
	if got := n.Load(); got != 1 {
		t.Errorf("%d requests, want 1", got)
	}

	// More than MaxBatch ids go in several requests, aligned.
	n.Store(0)
	many := make([]string, MaxBatch+3)
	for i := range many {
		many[i] = "CorpusId:1"
	}
	many[MaxBatch+1] = ByCorpusID(14636783)
	ps, err = c.Papers(context.Background(), many)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != len(many) || ps[MaxBatch+1] == nil || ps[MaxBatch] != nil || n.Load() != 2 {
		t.Fatalf("%d papers in %d requests", len(ps), n.Load())
	}
}

func TestPapersBatchWrongLength(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`[null]`))
	}))
	defer srv.Close()
	_, err := newClient(t, srv.URL).Papers(context.Background(), []string{"a", "b"})
	if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), "/paper/batch") {
		t.Fatalf("err = %v, want ErrBadResponse naming /paper/batch", err)
	}
}

// Citation.json and Reference.json are single recorded list items.
func TestLinkMapping(t *testing.T) {
	tests := []struct {
		file        string
		citing      bool
		influential bool
		s2id, doi   string
		intents     []string
		contexts    int
	}{
		{"Citation.json", true, true, "bdcbc589c8d1e4dd0c6572630f8511557406ad2f", "10.1109/lra.2022.3229266",
			[]string{"result", "background", "methodology"}, 4},
		{"Reference.json", false, false, "331f0fb3b6176c6e463e0401025b04f6ace9ccd3", "",
			[]string{"background"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(fixtures, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var lj linkJSON
			if err := json.Unmarshal(raw, &lj); err != nil {
				t.Fatal(err)
			}
			l := toLink(lj, tt.citing)
			if l.Influential != tt.influential || l.Paper.S2ID != tt.s2id || l.Paper.DOI != tt.doi ||
				strings.Join(l.Intents, ",") != strings.Join(tt.intents, ",") || len(l.Contexts) != tt.contexts {
				t.Errorf("link %+v", l)
			}
			if l.Paper.Title == "" || l.Paper.Year == 0 || l.Paper.Venue == "" {
				t.Errorf("paper %+v", l.Paper)
			}
			// The wrong direction finds no paper.
			if other := toLink(lj, !tt.citing); other.Paper.S2ID != "" {
				t.Errorf("wrong direction mapped %q", other.Paper.S2ID)
			}
		})
	}
}

func TestRetryAfter429ThenSuccess(t *testing.T) {
	paper := paperFixture(t)
	var n atomic.Int32
	var firstAt, secondAt atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			firstAt.Store(time.Now().UnixNano())
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"message": "Too Many Requests. Please wait and try again or apply for a key for higher rate limits."}`))
			return
		}
		secondAt.Store(time.Now().UnixNano())
		_, _ = w.Write(paper(r.URL.Query().Get("fields")))
	}))
	defer srv.Close()
	p, err := newClient(t, srv.URL).Paper(context.Background(), ByCorpusID(14636783))
	if err != nil {
		t.Fatal(err)
	}
	checkTuring(t, p)
	if n.Load() != 2 {
		t.Fatalf("%d requests, want 2", n.Load())
	}
	if gap := time.Duration(secondAt.Load() - firstAt.Load()); gap < 900*time.Millisecond {
		t.Fatalf("retried after %s, want ≥ the 1 s Retry-After", gap)
	}
}

func TestErrorsNeverShowTheKey(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   error
	}{
		{"garbage JSON", 200, "<html>key " + testKey + "</html>", remoteerr.ErrBadResponse},
		{"forbidden echoing the key", 403, `{"message":"invalid key ` + testKey + `"}`, remoteerr.ErrRejected},
		{"429 until the retries run out", 429, `{"message":"slow down ` + testKey + `"}`, remoteerr.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			_, err := newClient(t, srv.URL+"/graph/v1").Paper(context.Background(), "CorpusId:42")
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			msg := err.Error()
			if strings.Contains(msg, testKey) {
				t.Errorf("error shows the key: %q", msg)
			}
			if !strings.Contains(msg, API) || !strings.Contains(msg, "/graph/v1/paper/CorpusId:42") {
				t.Errorf("error %q does not name the API and path", msg)
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want time.Duration
	}{
		{"no key: 1 request/s", Options{}, time.Second},
		{"key: 10 requests/s", Options{APIKey: "k"}, 100 * time.Millisecond},
		{"explicit", Options{MinInterval: 3 * time.Second}, 3 * time.Second},
		{"negative: none", Options{MinInterval: -1}, 0},
	}
	for _, tt := range tests {
		c, err := New(tt.o)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.MinInterval(); got != tt.want {
			t.Errorf("%s: MinInterval %s, want %s", tt.name, got, tt.want)
		}
		if c.base != DefaultBaseURL {
			t.Errorf("base %q", c.base)
		}
	}
	for _, o := range []Options{{BaseURL: "ftp://x"}, {BaseURL: "https://x/?q=1"}, {PageSize: MaxPageSize + 1}, {PageSize: -1}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
	if _, err := (&Client{}).Paper(context.Background(), " "); err == nil {
		t.Error("empty id accepted")
	}
}

func TestIDHelpers(t *testing.T) {
	tests := []struct{ got, want string }{
		{ByDOI("https://doi.org/10.1093/MIND/LIX.236.433"), "DOI:10.1093/mind/lix.236.433"},
		{ByDOI("not-a-doi"), "DOI:not-a-doi"},
		{ByPMID("https://pubmed.ncbi.nlm.nih.gov/29456894"), "PMID:29456894"},
		{ByArXiv("arXiv:2208.04425"), "ARXIV:2208.04425"},
		{ByCorpusID(1033682), "CorpusId:1033682"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
