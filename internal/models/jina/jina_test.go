package jina

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

var ctx = context.Background()

// fakeRerank speaks the Jina-style /v1/rerank API as vLLM, llama.cpp,
// Infinity and Jina AI do: it checks the request strictly and answers
// {"model","usage":{...},"results":[{"index","relevance_score","document"}]}
// sorted by relevance, at most top_n results.
type fakeRerank struct {
	t      *testing.T
	path   string // expected request path
	apiKey string
	// document is how results carry the document: "string", "object", "none".
	document string
	// usage is "total", "prompt" (llama.cpp-style without total) or "none".
	usage string

	mu      sync.Mutex
	batches []int
	answer  func(w http.ResponseWriter, n int) bool // replaces the answer when it returns true
}

func newFake(t *testing.T, path string) (*fakeRerank, *httptest.Server) {
	f := &fakeRerank{t: t, path: path, document: "object", usage: "total"}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeRerank) seen() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.batches...)
}

// relevance is the fake cross-encoder: the share of query words in the doc.
func relevance(query, doc string) float64 {
	q := strings.Fields(strings.ToLower(query))
	hit := 0
	for _, w := range q {
		if strings.Contains(strings.ToLower(doc), w) {
			hit++
		}
	}
	return float64(hit)/float64(max(1, len(q))) - float64(len(doc))/1e4
}

// tokens is the fake tokenizer's count for one query/document pair.
func tokens(query, doc string) int { return len(strings.Fields(query)) + len(strings.Fields(doc)) + 2 }

func (f *fakeRerank) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t := f.t
	if r.Method != http.MethodPost || r.URL.Path != f.path {
		t.Errorf("%s %s, want POST %s", r.Method, r.URL.Path, f.path)
		http.NotFound(w, r)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	want := ""
	if f.apiKey != "" {
		want = "Bearer " + f.apiKey
	}
	if got := r.Header.Get("Authorization"); got != want {
		t.Errorf("Authorization %q, want %q", got, want)
	}
	var req struct {
		Model           *string   `json:"model"`
		Query           *string   `json:"query"`
		Documents       *[]string `json:"documents"`
		TopN            *int      `json:"top_n"`
		ReturnDocuments *bool     `json:"return_documents"`
	}
	d := json.NewDecoder(r.Body)
	d.DisallowUnknownFields()
	if err := d.Decode(&req); err != nil || req.Model == nil || req.Query == nil || req.Documents == nil || req.TopN == nil || req.ReturnDocuments == nil {
		t.Errorf("body: err %v, fields %+v", err, req)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	docs := *req.Documents
	if *req.TopN != len(docs) || *req.ReturnDocuments {
		t.Errorf("top_n %d for %d documents, return_documents %v; want all documents, none returned", *req.TopN, len(docs), *req.ReturnDocuments)
	}
	f.mu.Lock()
	f.batches = append(f.batches, len(docs))
	custom := f.answer
	f.mu.Unlock()
	if custom != nil && custom(w, len(docs)) {
		return
	}
	type result struct {
		Index          int     `json:"index"`
		RelevanceScore float64 `json:"relevance_score"`
		Document       any     `json:"document,omitempty"`
	}
	results := make([]result, len(docs))
	total := 0
	for i, doc := range docs {
		results[i] = result{Index: i, RelevanceScore: relevance(*req.Query, doc)}
		switch f.document {
		case "string":
			results[i].Document = doc
		case "object":
			results[i].Document = map[string]any{"text": doc, "multi_modal": nil}
		}
		total += tokens(*req.Query, doc)
	}
	sort.SliceStable(results, func(a, b int) bool { return results[a].RelevanceScore > results[b].RelevanceScore })
	results = results[:min(*req.TopN, len(results))]
	resp := map[string]any{"id": "rerank-1", "model": *req.Model, "results": results}
	switch f.usage {
	case "total":
		resp["usage"] = map[string]int{"total_tokens": total}
	case "prompt":
		resp["usage"] = map[string]int{"prompt_tokens": total}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func testHTTP(m *metrics.Metrics, timeout time.Duration) *httpx.Client {
	return httpx.New(httpx.Options{
		Backend: "jina", Capability: "rerank", Timeout: timeout, MaxRetries: 2,
		BaseBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Second,
		BreakerFailures: 100, Observer: m,
	})
}

func TestNewValidatesOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		o       Options
		wantErr string
	}{
		{Options{BaseURL: "http://vllm:8000", Model: "m"}, ""},
		{Options{BaseURL: "vllm:8000", Model: "m"}, "scheme"},
		{Options{BaseURL: "http://vllm:8000"}, "Model is required"},
		{Options{BaseURL: "http://vllm:8000", Model: "m", BatchSize: -2}, "BatchSize"},
	}
	for _, tt := range tests {
		r, err := New(tt.o)
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("New(%+v): err %v, want %q", tt.o, err, tt.wantErr)
		}
		if err == nil && r.Model() != "jina:m" {
			t.Errorf("Model %q", r.Model())
		}
	}
}

func TestRerankContract(t *testing.T) {
	t.Parallel()
	query := "capital of France"
	docs := []string{"The capital of Brazil is Brasilia.", "The capital of France is Paris.", "Horses and cows are both animals.", "France exports wine.", "Paris, capital city"}
	tests := []struct {
		name, base, path, document, usage string
		wantTokens                        bool
	}{
		{"root", "", "/v1/rerank", "object", "total", true},
		{"root with slash", "/", "/v1/rerank", "string", "total", true},
		{"with /v1", "/v1", "/v1/rerank", "none", "prompt", true},
		{"with /v1/", "/v1/", "/v1/rerank", "object", "none", false},
		{"under a prefix", "/api", "/api/v1/rerank", "string", "total", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFake(t, tt.path)
			f.apiKey, f.document, f.usage = "jina_key", tt.document, tt.usage
			m := metrics.New()
			r, err := New(Options{BaseURL: srv.URL + tt.base, Model: "BAAI/bge-reranker-v2-m3", APIKey: "jina_key", BatchSize: 2, HTTP: testHTTP(m, 5*time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			jobCtx, meter := cost.WithMeter(ctx)
			got, err := r.Rerank(jobCtx, query, docs)
			if err != nil {
				t.Fatal(err)
			}
			wantTokens := 0
			for i, d := range docs {
				if want := relevance(query, d); math.Abs(got[i]-want) > 1e-12 {
					t.Errorf("doc %d: score %v, want %v", i, got[i], want)
				}
				wantTokens += tokens(query, d)
			}
			if best := models.TopK(got, 1, math.Inf(-1)); best[0] != 1 {
				t.Errorf("best doc %d, want 1", best[0])
			}
			if s := fmt.Sprint(f.seen()); s != "[2 2 1]" {
				t.Fatalf("batches %s, want [2 2 1]", s)
			}
			if !tt.wantTokens {
				wantTokens = 0
			}
			if got := metricValue(t, m, "evidencefleet_model_tokens_total", map[string]string{"backend": "jina", "capability": "rerank", "type": "prompt"}); got != float64(wantTokens) {
				t.Fatalf("prompt tokens %v, want %d", got, wantTokens)
			}
			if got, want := meter.Counts(), (cost.Counts{ModelCalls: 3, TokensIn: int64(wantTokens)}); got != want {
				t.Fatalf("job's cost %+v, want %+v (three batches)", got, want)
			}
			if got := metricValue(t, m, "evidencefleet_model_batch_size", map[string]string{"backend": "jina"}); got != 3 {
				t.Fatalf("batch-size samples %v, want 3", got)
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		f, srv := newFake(t, "/v1/rerank")
		r, err := New(Options{BaseURL: srv.URL, Model: "m", HTTP: testHTTP(nil, time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		if s, err := r.Rerank(ctx, "q", nil); err != nil || len(s) != 0 || len(f.seen()) != 0 {
			t.Fatalf("%v %v, requests %v: want no request", s, err, f.seen())
		}
	})
}

func TestRerankBadResponses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
	}{
		{"index out of range", `{"results":[{"index":0,"relevance_score":0.9},{"index":2,"relevance_score":0.1}]}`, "index 2 outside [0,2)"},
		{"duplicate index", `{"results":[{"index":0,"relevance_score":0.9},{"index":0,"relevance_score":0.1}]}`, "index 0 appears twice"},
		{"top_n ignored short", `{"results":[{"index":0,"relevance_score":0.9}]}`, "1 results for 2 documents"},
		{"null score", `{"results":[{"index":0,"relevance_score":null},{"index":1,"relevance_score":0.1}]}`, "has no score"},
		{"string score", `{"results":[{"index":0,"relevance_score":"NaN"},{"index":1,"relevance_score":0.1}]}`, "cannot unmarshal string"},
		{"TEI field name", `{"results":[{"index":0,"score":0.9},{"index":1,"score":0.1}]}`, "has no score"},
		{"no index", `{"results":[{"relevance_score":0.9},{"index":1,"relevance_score":0.1}]}`, "has no index"},
		{"no results", `{"model":"m","usage":{"total_tokens":3}}`, `no "results" array`},
		{"null results", `{"results":null}`, `no "results" array`},
		{"TEI shape", `[{"index":0,"score":0.9},{"index":1,"score":0.1}]`, "cannot unmarshal array"},
		{"not JSON", `upstream connect error`, "decoding the JSON answer"},
		{"document of a strange type", `{"results":[{"index":0,"relevance_score":0.9,"document":42},{"index":1,"relevance_score":0.1,"document":null}]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFake(t, "/v1/rerank")
			f.answer = func(w http.ResponseWriter, _ int) bool { _, _ = io.WriteString(w, tt.body); return true }
			m := metrics.New()
			r, err := New(Options{BaseURL: srv.URL, Model: "m", HTTP: testHTTP(m, 5*time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Rerank(ctx, "q", []string{"a", "b"})
			if tt.want == "" {
				if err != nil || got[0] != 0.9 || got[1] != 0.1 {
					t.Fatalf("got %v, %v", got, err)
				}
				return
			}
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "/v1/rerank") {
				t.Fatalf("err = %v, want ErrBadResponse naming /v1/rerank and %q", err, tt.want)
			}
			if got := metricValue(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": "bad_response"}); got != 1 {
				t.Fatalf("bad_response errors %v, want 1", got)
			}
		})
	}
}

func TestRerankTransportFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		statuses []int
		header   map[string]string
		body     string
		want     error
		wantHits int
		wantMsg  string
	}{
		{"429 Retry-After then ok", []int{429, 200}, map[string]string{"Retry-After": "0"}, `{"error":{"message":"Rate limit exceeded"}}`, nil, 2, ""},
		{"429 Retry-After above cap", []int{429}, map[string]string{"Retry-After": "3600"}, `{"error":{"message":"Rate limit exceeded"}}`, remoteerr.ErrUnavailable, 1, "Rate limit exceeded"},
		{"502 then ok", []int{502, 200}, nil, `Bad Gateway`, nil, 2, ""},
		{"500s", []int{500}, nil, `{"object":"error","message":"EngineCore died","type":"InternalServerError","code":500}`, remoteerr.ErrUnavailable, 3, "EngineCore died"},
		{"400 vLLM", []int{400}, nil, `{"object":"error","message":"This model's maximum context length is 512 tokens","type":"BadRequestError","code":400}`, remoteerr.ErrRejected, 1, "maximum context length is 512"},
		{"404 llama.cpp without --reranking", []int{404}, nil, `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`, remoteerr.ErrRejected, 1, "File Not Found"},
		{"422 Infinity", []int{422}, nil, `{"detail":"model not found"}`, remoteerr.ErrRejected, 1, "model not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFake(t, "/v1/rerank")
			var hits atomic.Int32
			f.answer = func(w http.ResponseWriter, _ int) bool {
				i := int(hits.Add(1)) - 1
				st := tt.statuses[min(i, len(tt.statuses)-1)]
				if st == 200 {
					return false
				}
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(st)
				_, _ = io.WriteString(w, tt.body)
				return true
			}
			r, err := New(Options{BaseURL: srv.URL, Model: "m", HTTP: testHTTP(nil, 5*time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Rerank(ctx, "q", []string{"a", "b"})
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("err %q does not mention %q", err, tt.wantMsg)
			}
			if int(hits.Load()) != tt.wantHits {
				t.Fatalf("hits %d, want %d", hits.Load(), tt.wantHits)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		f, srv := newFake(t, "/v1/rerank")
		var hits atomic.Int32
		f.answer = func(w http.ResponseWriter, _ int) bool {
			hits.Add(1)
			<-f.t.Context().Done()
			return true
		}
		r, err := New(Options{BaseURL: srv.URL, Model: "m", HTTP: testHTTP(nil, 20*time.Millisecond)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Rerank(ctx, "q", []string{"a"})
		// The client counts its attempts; the server may not have taken a
		// request in before its 20 ms ran out on a loaded machine.
		var herr *httpx.Error
		if !errors.Is(err, remoteerr.ErrUnavailable) || !strings.Contains(err.Error(), "timeout") || !errors.As(err, &herr) ||
			herr.Attempts != 3 || hits.Load() < 1 || hits.Load() > 3 {
			t.Fatalf("err = %v, %d requests served, want ErrUnavailable after 3 timed-out attempts", err, hits.Load())
		}
	})
}

// metricValue returns the metrics.Sum of name over the series whose labels include want.
func metricValue(t *testing.T, m *metrics.Metrics, name string, want map[string]string) float64 {
	t.Helper()
	v, err := m.Sum(name, want)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
