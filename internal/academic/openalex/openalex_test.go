package openalex

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
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
const fixtures = "../../../testdata/api-fixtures/openalex"

const (
	testKey = "oa-test-key-5c4b3a"
	// recordedMailto is the mailto of the snowball recording.
	recordedMailto = "rainer@krugs.de"
)

// fastHTTP retries quickly so the tests do not sleep on backoff.
func fastHTTP() httpx.Options {
	return httpx.Options{MaxRetries: 2, BaseBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}
}

func newClient(t *testing.T, o Options) *Client {
	t.Helper()
	if o.APIKey == "" {
		o.APIKey = testKey
	}
	o.MinInterval = -1
	o.HTTP = fastHTTP()
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// workFixture is W2741809807.json, raw and as generic JSON.
func workFixture(t *testing.T) ([]byte, map[string]any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtures, "W2741809807.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return raw, m
}

// independentAbstract rebuilds the abstract another way than RebuildAbstract:
// one slot per position, each filled exactly once.
func independentAbstract(t *testing.T, inv map[string]any) []string {
	t.Helper()
	maxPos := -1
	for _, ps := range inv {
		for _, p := range ps.([]any) {
			maxPos = max(maxPos, int(p.(float64)))
		}
	}
	slots := make([]string, maxPos+1)
	for w, ps := range inv {
		for _, p := range ps.([]any) {
			i := int(p.(float64))
			if slots[i] != "" {
				t.Fatalf("position %d holds %q and %q", i, slots[i], w)
			}
			slots[i] = w
		}
	}
	for i, s := range slots {
		if s == "" {
			t.Fatalf("position %d is empty", i)
		}
	}
	return slots
}

func TestRebuildAbstractRecorded(t *testing.T) {
	_, m := workFixture(t)
	raw, _ := json.Marshal(m["abstract_inverted_index"])
	var inv map[string][]int
	if err := json.Unmarshal(raw, &inv); err != nil {
		t.Fatal(err)
	}
	got := RebuildAbstract(inv)
	want := independentAbstract(t, m["abstract_inverted_index"].(map[string]any))
	if got != strings.Join(want, " ") {
		t.Fatalf("rebuilt abstract differs from the independent reconstruction:\n got %q\nwant %q", got, strings.Join(want, " "))
	}
	words := strings.Split(got, " ")
	if len(words) != 258 {
		t.Errorf("%d words, want 258", len(words))
	}
	first10 := []string{"Despite", "growing", "interest", "in", "Open", "Access", "(OA)", "to", "scholarly", "literature,"}
	if !slices.Equal(words[:10], first10) {
		t.Errorf("first 10 words %q, want %q", words[:10], first10)
	}
	for pos, w := range map[int]string{0: "Despite", 10: "there", 11: "is", 257: "practice."} {
		if words[pos] != w {
			t.Errorf("word %d = %q, want %q", pos, words[pos], w)
		}
	}
	for _, phrase := range []string{
		"We estimate that at least 28% of the scholarly literature is OA (19M in total)",
		"an under-discussed category we dub Bronze:",
		"OA articles receive 18% more citations than average,",
	} {
		if !strings.Contains(got, phrase) {
			t.Errorf("abstract lacks %q", phrase)
		}
	}
}

func TestRebuildAbstract(t *testing.T) {
	tests := []struct {
		name string
		inv  map[string][]int
		want string
	}{
		{"nil", nil, ""},
		{"empty", map[string][]int{}, ""},
		{"repeated word", map[string][]int{"the": {0, 2}, "cat": {1}, "sat.": {3}}, "the cat the sat."},
		{"unsorted positions", map[string][]int{"b": {3, 1}, "a": {0, 2}}, "a b a b"},
		{"gap skipped", map[string][]int{"a": {0}, "c": {5}}, "a c"},
		{"negative position dropped", map[string][]int{"a": {0}, "x": {-1}, "b": {1}}, "a b"},
		{"same position: lexical order", map[string][]int{"b": {0}, "a": {0}}, "a b"},
		{"punctuation kept", map[string][]int{"Hello,": {0}, "world!": {1}}, "Hello, world!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RebuildAbstract(tt.inv); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// workServer serves W2741809807.json by id, DOI and PMID, and 404 for the
// rest, checking api_key and mailto.
func workServer(t *testing.T, mailto string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	raw, _ := workFixture(t)
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		q := r.URL.Query()
		if q.Get("api_key") != testKey || q.Get("mailto") != mailto {
			http.Error(w, `{"error":"missing api_key or mailto"}`, http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/works/W2741809807", "/works/doi:10.7717/peerj.4375", "/works/pmid:29456894":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(raw)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"NotFoundError","message":"The requested resource could not be found."}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestWorkLookups(t *testing.T) {
	_, m := workFixture(t)
	var wantRefs []string
	for _, r := range m["referenced_works"].([]any) {
		wantRefs = append(wantRefs, strings.TrimPrefix(r.(string), "https://openalex.org/"))
	}
	wantAbstract := strings.Join(independentAbstract(t, m["abstract_inverted_index"].(map[string]any)), " ")

	srv, _ := workServer(t, "me@example.org")
	c := newClient(t, Options{BaseURL: srv.URL, Mailto: "me@example.org"})
	ctx := context.Background()
	lookups := []struct {
		name string
		get  func() (*academic.Paper, error)
	}{
		{"short id", func() (*academic.Paper, error) { return c.Work(ctx, "W2741809807") }},
		{"id URL", func() (*academic.Paper, error) { return c.Work(ctx, "https://openalex.org/W2741809807") }},
		{"DOI URL", func() (*academic.Paper, error) { return c.WorkByDOI(ctx, "https://doi.org/10.7717/PEERJ.4375") }},
		{"doi: form", func() (*academic.Paper, error) { return c.WorkByDOI(ctx, "doi:10.7717/peerj.4375") }},
		{"PMID", func() (*academic.Paper, error) { return c.WorkByPMID(ctx, "29456894") }},
		{"PMID URL", func() (*academic.Paper, error) { return c.WorkByPMID(ctx, "https://pubmed.ncbi.nlm.nih.gov/29456894") }},
	}
	for _, tt := range lookups {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.get()
			if err != nil {
				t.Fatal(err)
			}
			if p.OpenAlexID != "W2741809807" || p.DOI != "10.7717/peerj.4375" || p.PMID != "29456894" || p.Year != 2018 ||
				p.Title != "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles" ||
				p.Venue != "PeerJ" || p.CitationCount != 962 || p.ReferenceCount != 45 || p.PublicationDate != "2018-02-13" ||
				p.Source != academic.SourceOpenAlex || p.URL != "https://openalex.org/W2741809807" {
				t.Errorf("paper %+v", *p)
			}
			if len(p.Authors) == 0 || p.Authors[0] != "Heather Piwowar" {
				t.Errorf("authors %q", p.Authors)
			}
			if !slices.Equal(p.References, wantRefs) || len(p.References) != 45 {
				t.Errorf("references %q, want the 45 recorded %q", p.References, wantRefs)
			}
			if p.Abstract != wantAbstract {
				t.Errorf("abstract %q", p.Abstract)
			}
		})
	}
}

func TestWorkNotFoundAndBadIDs(t *testing.T) {
	srv, n := workServer(t, "")
	c := newClient(t, Options{BaseURL: srv.URL})
	_, err := c.Work(context.Background(), "W1")
	if !errors.Is(err, remoteerr.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if n.Load() != 1 {
		t.Errorf("%d requests, want 1 (a 404 is not retried)", n.Load())
	}
	if msg := err.Error(); !strings.Contains(msg, API) || !strings.Contains(msg, "/works/W1") || !strings.Contains(msg, "404") ||
		strings.Contains(msg, testKey) {
		t.Errorf("error %q: want API, path and status, never the key", msg)
	}
	n.Store(0)
	for _, bad := range []func() error{
		func() error { _, err := c.Work(context.Background(), "A123"); return err },
		func() error { _, err := c.Work(context.Background(), "W12x"); return err },
		func() error { _, err := c.WorkByDOI(context.Background(), "not a doi"); return err },
		func() error { _, err := c.WorkByPMID(context.Background(), "PMC123"); return err },
		func() error { _, err := c.Works(context.Background(), []string{"W1", "nope"}); return err },
		func() error { _, _, err := c.Citations(context.Background(), academic.Limit{}); return err },
	} {
		if err := bad(); err == nil {
			t.Error("bad id accepted")
		}
	}
	if n.Load() != 0 {
		t.Errorf("bad ids made %d requests", n.Load())
	}
}

func TestWorkID(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"W2741809807", "W2741809807", true},
		{"w2741809807", "W2741809807", true},
		{" https://openalex.org/W2741809807 ", "W2741809807", true},
		{"https://api.openalex.org/works/W2741809807", "W2741809807", true},
		{"openalex:W1", "W1", true},
		{"W", "", false},
		{"A5048491430", "", false},
		{"W1/../x", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, err := WorkID(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("WorkID(%q) = %q, %v; want %q, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// snowball is the recorded oa_snowball.yml, read independently of the
// client: for each recorded (filter, per-page) the result ids and meta.
type snowballPage struct {
	ids        []string
	count      int
	nextCursor *string
}

var (
	snowballOnce sync.Once
	snowballCas  *cassette.Cassette
	snowballErr  error
)

// loadSnowball returns the cassette, its pages keyed by "filter
// per-page=N", and each recorded work's title by id.
func loadSnowball(t *testing.T) (*cassette.Cassette, map[string]snowballPage, map[string]string) {
	t.Helper()
	snowballOnce.Do(func() { snowballCas, snowballErr = cassette.Load(filepath.Join(fixtures, "oa_snowball.yml")) })
	if snowballErr != nil {
		t.Fatal(snowballErr)
	}
	pages, titles := map[string]snowballPage{}, map[string]string{}
	for _, it := range snowballCas.Interactions {
		u, err := url.Parse(it.URI)
		if err != nil {
			t.Fatal(err)
		}
		var ans struct {
			Meta struct {
				Count      int     `json:"count"`
				NextCursor *string `json:"next_cursor"`
			} `json:"meta"`
			Results []struct {
				ID    string `json:"id"`
				Title string `json:"title"`
			} `json:"results"`
		}
		if err := json.Unmarshal(it.Body, &ans); err != nil {
			t.Fatal(err)
		}
		var p snowballPage
		for _, r := range ans.Results {
			id := strings.TrimPrefix(r.ID, "https://openalex.org/")
			p.ids = append(p.ids, id)
			titles[id] = r.Title
		}
		p.count, p.nextCursor = ans.Meta.Count, ans.Meta.NextCursor
		pages[u.Query().Get("filter")+" per-page="+u.Query().Get("per-page")] = p
	}
	return snowballCas, pages, titles
}

// replaySnowball serves the snowball cassette, ignoring api_key (the
// recording had none) but checking that each request sends it and the
// recorded mailto.
func replaySnowball(t *testing.T, c *cassette.Cassette) (*httptest.Server, *cassette.Replayer) {
	t.Helper()
	rp := c.Replayer("api_key")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("api_key") != testKey || q.Get("mailto") != recordedMailto {
			t.Errorf("%s: api_key %q, mailto %q", r.URL.Path, q.Get("api_key"), q.Get("mailto"))
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, rp
}

func ids(links []academic.Link) []string {
	out := make([]string, len(links))
	for i, l := range links {
		out[i] = l.Paper.OpenAlexID
	}
	return out
}

func TestSnowballBatchLookup(t *testing.T) {
	cas, rec, _ := loadSnowball(t)
	want := rec["openalex:W3045921891|W3046863325 per-page=200"]
	// The API answered in its own order, not the filter's.
	if !slices.Equal(want.ids, []string{"W3046863325", "W3045921891"}) || want.count != 2 {
		t.Fatalf("recording: %v; the fixture changed?", want)
	}
	srv, rp := replaySnowball(t, cas)
	c := newClient(t, Options{BaseURL: srv.URL, Mailto: recordedMailto})
	in := []string{"W3045921891", "https://openalex.org/W3046863325", "w3045921891"}
	ps, err := c.Works(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 || ps[0] == nil || ps[1] == nil || ps[2] == nil {
		t.Fatalf("papers %v", ps)
	}
	if ps[0].OpenAlexID != "W3045921891" || ps[1].OpenAlexID != "W3046863325" || ps[2] != ps[0] {
		t.Errorf("not aligned with the input: %s %s %s", ps[0].OpenAlexID, ps[1].OpenAlexID, ps[2].OpenAlexID)
	}
	for _, p := range ps {
		if p.Title == "" || p.Year == 0 || p.Source != academic.SourceOpenAlex {
			t.Errorf("paper %+v", *p)
		}
	}
	if n := len(rp.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if u := rp.Unmatched(); len(u) > 0 {
		t.Errorf("requests outside the recording: %q", u)
	}
}

func TestSnowballLists(t *testing.T) {
	cas, rec, titles := loadSnowball(t)
	cites := rec["cites:W3046863325|W3045921891 per-page=200"]
	citedBy := rec["cited_by:W3046863325|W3045921891 per-page=200"]
	if len(cites.ids) != 5 || cites.count != 5 || len(citedBy.ids) != 38 || citedBy.count != 38 {
		t.Fatalf("recording: cites %v, cited_by %v; the fixture changed?", cites, citedBy)
	}
	// The last (only) page still has a next_cursor: paging must stop on the
	// short page and meta.count, not on the cursor.
	if cites.nextCursor == nil || citedBy.nextCursor == nil {
		t.Fatalf("recording: the last pages have no next_cursor; the fixture changed?")
	}
	seeds := []string{"W3046863325", "W3045921891"}
	tests := []struct {
		name     string
		opts     Options
		list     string // "cites" or "cited_by"
		lim      academic.Limit
		want     []string
		wantMore bool
		wantReqs int
		wantErr  error
	}{
		{"citing works: stops where the recording stops", Options{}, "cites", academic.Limit{MaxItems: 1000}, cites.ids, false, 1, nil},
		{"cited works: stops where the recording stops", Options{}, "cited_by", academic.Limit{MaxItems: 1000}, citedBy.ids, false, 1, nil},
		{"citing works bounded by items", Options{}, "cites", academic.Limit{MaxItems: 3}, cites.ids[:3], true, 1, nil},
		{"cited works bounded by items", Options{}, "cited_by", academic.Limit{MaxItems: 10}, citedBy.ids[:10], true, 1, nil},
		{"exactly the recorded count", Options{}, "cited_by", academic.Limit{MaxItems: 38}, citedBy.ids, false, 1, nil},
		{"page paging, per-page 1, one item", Options{PagePaging: true, PerPage: 1}, "cites", academic.Limit{MaxItems: 1},
			rec["cites:W3046863325|W3045921891 per-page=1"].ids, true, 1, nil},
		{"page paging, per-page 1, bounded by pages", Options{PagePaging: true, PerPage: 1}, "cited_by", academic.Limit{MaxItems: 100, MaxPages: 1},
			rec["cited_by:W3046863325|W3045921891 per-page=1"].ids, true, 1, nil},
		// Page 2 was never recorded: the replayer answers 501 and the
		// client returns what it read with the error.
		{"page paging past the recording", Options{PagePaging: true, PerPage: 1}, "cites", academic.Limit{MaxItems: 2},
			rec["cites:W3046863325|W3045921891 per-page=1"].ids, false, 2, remoteerr.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rp := replaySnowball(t, cas)
			o := tt.opts
			o.BaseURL, o.Mailto = srv.URL, recordedMailto
			c := newClient(t, o)
			list := c.Citations
			if tt.list == "cited_by" {
				list = c.References
			}
			links, more, err := list(context.Background(), tt.lim, seeds...)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(ids(links), tt.want) || more != tt.wantMore {
				t.Errorf("got %q more %v, want %q more %v", ids(links), more, tt.want, tt.wantMore)
			}
			if n := len(rp.Requests()); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
			if u := rp.Unmatched(); tt.wantErr == nil && len(u) > 0 {
				t.Errorf("requests outside the recording: %q", u)
			} else if tt.wantErr != nil && (len(u) != 1 || !strings.Contains(u[0], "page=2")) {
				t.Errorf("unmatched %q, want the page=2 request", u)
			}
			for _, l := range links {
				// One recorded work (W2963341956, BERT) has an empty title.
				if l.Influential || l.Source != academic.SourceOpenAlex || l.Paper.Title != titles[l.Paper.OpenAlexID] {
					t.Errorf("link %+v", l)
				}
			}
		})
	}
	// W2741809807 (the full-work fixture) is among the recorded cited works.
	if !slices.Contains(citedBy.ids, "W2741809807") {
		t.Error("W2741809807 not among the cited works")
	}
}

func TestRetryAfterHTTPDateThenSuccess(t *testing.T) {
	raw, _ := workFixture(t)
	var n atomic.Int32
	var firstAt, secondAt atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			firstAt.Store(time.Now().UnixNano())
			w.Header().Set("Retry-After", time.Now().Add(2*time.Second).UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		secondAt.Store(time.Now().UnixNano())
		_, _ = w.Write(raw)
	}))
	defer srv.Close()
	c := newClient(t, Options{BaseURL: srv.URL})
	p, err := c.Work(context.Background(), "W2741809807")
	if err != nil {
		t.Fatal(err)
	}
	if p.OpenAlexID != "W2741809807" || n.Load() != 2 {
		t.Fatalf("%s after %d requests", p.OpenAlexID, n.Load())
	}
	// The date has whole seconds: the wait is between 1 and 2 s.
	if gap := time.Duration(secondAt.Load() - firstAt.Load()); gap < 800*time.Millisecond {
		t.Fatalf("retried after %s, want the Retry-After date honoured", gap)
	}
}

func TestRetryAfter429Seconds(t *testing.T) {
	raw, _ := workFixture(t)
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write(raw)
	}))
	defer srv.Close()
	start := time.Now()
	p, err := newClient(t, Options{BaseURL: srv.URL}).Work(context.Background(), "W2741809807")
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 900*time.Millisecond || n.Load() != 2 || p.OpenAlexID != "W2741809807" {
		t.Fatalf("%d requests in %s", n.Load(), d)
	}
}

func TestErrorsNeverShowTheKey(t *testing.T) {
	tests := []struct {
		name   string
		status int
		want   error
	}{
		{"garbage JSON echoing the query", 200, remoteerr.ErrBadResponse},
		{"bad request echoing the query", 400, remoteerr.ErrRejected},
		{"server error echoing the query", 500, remoteerr.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Get("api_key") != testKey {
					t.Errorf("api_key not sent: %q", r.URL.RawQuery)
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte("<html>you asked for " + r.URL.RawQuery + "</html>"))
			}))
			defer srv.Close()
			_, err := newClient(t, Options{BaseURL: srv.URL}).Work(context.Background(), "W2741809807")
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			msg := err.Error()
			if strings.Contains(msg, testKey) {
				t.Errorf("error shows the key: %q", msg)
			}
			if !strings.Contains(msg, API) || !strings.Contains(msg, "/works/W2741809807") {
				t.Errorf("error %q does not name the API and path", msg)
			}
		})
	}
}

func TestNoKeyNoParameter(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.URL.RawQuery)
		_, _ = w.Write([]byte(`{"id":"https://openalex.org/W1"}`))
	}))
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL, MinInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Work(context.Background(), "W1"); err != nil {
		t.Fatal(err)
	}
	if q := got.Load().(string); q != "" {
		t.Errorf("query %q, want none without key and mailto", q)
	}
}

func TestNewDefaults(t *testing.T) {
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.MinInterval() != DefaultInterval || c.base != DefaultBaseURL || c.perPage != DefaultPerPage || c.pagePaging {
		t.Errorf("defaults: %s %s %d %v", c.MinInterval(), c.base, c.perPage, c.pagePaging)
	}
	for _, o := range []Options{{BaseURL: "api.openalex.org"}, {PerPage: 201}, {PerPage: -1}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}
