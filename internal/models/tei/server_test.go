package tei

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
)

// fakeTEI speaks TEI's documented wire format (docs/openapi.json of
// huggingface/text-embeddings-inference): it checks every request strictly
// and answers like TEI does: /embed → [[f32]], /predict with a batch →
// one list of {score,label} per input sorted by score, /rerank → [{index,score}]
// for every text sorted by score, errors as {"error","error_type"} and 413
// for a batch above max_client_batch_size.
type fakeTEI struct {
	t        *testing.T
	apiKey   string
	maxBatch int
	// labels is the model's id2label in the model's spelling.
	labels [3]string // entailment, contradiction, neutral

	mu      sync.Mutex
	batches map[string][]int // path → batch sizes seen
	// answer, when set, replaces the normal answer for a path: it gets the
	// decoded request's batch size and writes the response itself.
	answer func(w http.ResponseWriter, path string, n int) bool
}

func newFakeTEI(t *testing.T) (*fakeTEI, *httptest.Server) {
	f := &fakeTEI{t: t, maxBatch: 32, labels: [3]string{"entailment", "contradiction", "neutral"}, batches: map[string][]int{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeTEI) seen(path string) []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.batches[path]...)
}

func teiError(w http.ResponseWriter, status int, msg, typ string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg, "error_type": typ})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// decodeStrict decodes the body into v, refusing unknown fields.
func decodeStrict(r *http.Request, v any) error {
	d := json.NewDecoder(r.Body)
	d.DisallowUnknownFields()
	return d.Decode(v)
}

func (f *fakeTEI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t := f.t
	if r.Method != http.MethodPost {
		t.Errorf("%s %s: want POST", r.Method, r.URL.Path)
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
		teiError(w, http.StatusUnsupportedMediaType, "Expected request with `Content-Type: application/json`", "validation")
		return
	}
	want := ""
	if f.apiKey != "" {
		want = "Bearer " + f.apiKey
	}
	if got := r.Header.Get("Authorization"); got != want {
		t.Errorf("Authorization %q, want %q", got, want)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var n int
	var answer func()
	switch r.URL.Path {
	case "/embed":
		var req struct {
			Inputs    *[]string `json:"inputs"`
			Normalize *bool     `json:"normalize"`
			Truncate  *bool     `json:"truncate"`
		}
		if err := decodeStrict(r, &req); err != nil || req.Inputs == nil || req.Normalize == nil || req.Truncate == nil {
			t.Errorf("/embed body: err %v, fields %+v", err, req)
			teiError(w, 422, "Failed to deserialize the JSON body", "validation")
			return
		}
		if !*req.Normalize || !*req.Truncate {
			t.Errorf("/embed: normalize %v truncate %v, want both true", *req.Normalize, *req.Truncate)
		}
		n = len(*req.Inputs)
		answer = func() {
			out := make([][]float32, n)
			for i, s := range *req.Inputs {
				out[i] = fakeVector(s, *req.Normalize)
			}
			writeJSON(w, out)
		}
	case "/predict":
		var req struct {
			Inputs    *json.RawMessage `json:"inputs"`
			RawScores *bool            `json:"raw_scores"`
			Truncate  *bool            `json:"truncate"`
		}
		var pairs [][]string
		if err := decodeStrict(r, &req); err != nil || req.Inputs == nil || req.RawScores == nil || req.Truncate == nil {
			t.Errorf("/predict body: err %v, fields %+v", err, req)
			teiError(w, 422, "Failed to deserialize the JSON body", "validation")
			return
		}
		if err := json.Unmarshal(*req.Inputs, &pairs); err != nil {
			t.Errorf("/predict inputs %s: want a batch of pairs: %v", *req.Inputs, err)
			teiError(w, 422, "inputs", "validation")
			return
		}
		for _, p := range pairs {
			if len(p) != 2 {
				t.Errorf("/predict input %q: want a [premise, hypothesis] pair", p)
			}
		}
		if *req.RawScores || !*req.Truncate {
			t.Errorf("/predict: raw_scores %v truncate %v, want false and true", *req.RawScores, *req.Truncate)
		}
		n = len(pairs)
		answer = func() {
			out := make([][]map[string]any, n)
			for i, p := range pairs {
				out[i] = f.predictions(p[0], p[1])
			}
			writeJSON(w, out)
		}
	case "/rerank":
		var req struct {
			Query     *string   `json:"query"`
			Texts     *[]string `json:"texts"`
			Truncate  *bool     `json:"truncate"`
			RawScores *bool     `json:"raw_scores"`
		}
		if err := decodeStrict(r, &req); err != nil || req.Query == nil || req.Texts == nil || req.Truncate == nil || req.RawScores == nil {
			t.Errorf("/rerank body: err %v, fields %+v", err, req)
			teiError(w, 422, "Failed to deserialize the JSON body", "validation")
			return
		}
		if *req.RawScores || !*req.Truncate {
			t.Errorf("/rerank: raw_scores %v truncate %v, want false and true", *req.RawScores, *req.Truncate)
		}
		if len(*req.Texts) == 0 {
			teiError(w, 422, "`texts` cannot be empty", "validation")
			return
		}
		n = len(*req.Texts)
		answer = func() {
			type rank struct {
				Index int     `json:"index"`
				Score float32 `json:"score"`
			}
			out := make([]rank, n)
			for i, d := range *req.Texts {
				out[i] = rank{i, fakeRelevance(*req.Query, d)}
			}
			sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
			writeJSON(w, out)
		}
	default:
		t.Errorf("unexpected path %s", r.URL.Path)
		w.WriteHeader(http.StatusNotFound)
		return
	}
	f.mu.Lock()
	f.batches[r.URL.Path] = append(f.batches[r.URL.Path], n)
	custom := f.answer
	f.mu.Unlock()
	if n > f.maxBatch {
		teiError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("batch size %d > maximum allowed batch size %d", n, f.maxBatch), "validation")
		return
	}
	if custom != nil && custom(w, r.URL.Path, n) {
		return
	}
	answer()
}

// fakeVector is the fake model: a deterministic 4-dimensional vector of a text.
func fakeVector(s string, normalize bool) []float32 {
	v := []float64{1 + float64(len(s)%5), 2, 3 + float64(strings.Count(s, "a")), float64(len(strings.Fields(s)))}
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	out := make([]float32, len(v))
	for i, x := range v {
		if normalize {
			x /= math.Sqrt(ss)
		}
		out[i] = float32(x)
	}
	return out
}

// fakeProbs is the fake NLI model's softmax output: entailment, contradiction, neutral.
func fakeProbs(premise, hypothesis string) [3]float64 {
	switch {
	case strings.Contains(hypothesis, "not"):
		return [3]float64{0.05, 0.85, 0.10}
	case strings.Contains(premise, hypothesis):
		return [3]float64{0.90, 0.03, 0.07}
	}
	return [3]float64{0.20, 0.10, 0.70}
}

// predictions answers one pair like TEI: all labels, sorted by score.
func (f *fakeTEI) predictions(premise, hypothesis string) []map[string]any {
	p := fakeProbs(premise, hypothesis)
	out := make([]map[string]any, 3)
	for i := range p {
		out[i] = map[string]any{"score": float32(p[i]), "label": f.labels[i]}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a]["score"].(float32) > out[b]["score"].(float32) })
	return out
}

// fakeRelevance is the fake reranker: the share of query words in the
// document, squashed into (0,1) and made distinct by length.
func fakeRelevance(query, doc string) float32 {
	q := strings.Fields(strings.ToLower(query))
	hit := 0
	for _, w := range q {
		if strings.Contains(strings.ToLower(doc), w) {
			hit++
		}
	}
	x := 4*float64(hit)/float64(max(1, len(q))) - 2 - float64(len(doc))/1000
	return float32(1 / (1 + math.Exp(-x)))
}

// testHTTP is an httpx client with tiny backoffs for fast tests.
func testHTTP(m *metrics.Metrics, capability string, timeout time.Duration) *httpx.Client {
	return httpx.New(httpx.Options{
		Backend: "tei", Capability: capability, Timeout: timeout, MaxRetries: 2,
		BaseBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: time.Second,
		BreakerFailures: 100, Observer: m,
	})
}

// raw writes body as a 200 JSON answer.
func raw(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.Copy(w, bytes.NewBufferString(body))
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
