package tei

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

var ctx = context.Background()

func TestNewValidatesOptions(t *testing.T) {
	t.Parallel()
	ok := Options{BaseURL: "http://tei:8080", Model: "m"}
	with := func(f func(*Options)) Options { o := ok; f(&o); return o }
	tests := []struct {
		name    string
		o       Options
		wantErr string
	}{
		{"ok", ok, ""},
		{"https with path", with(func(o *Options) { o.BaseURL = "https://h/tei/" }), ""},
		{"no scheme", with(func(o *Options) { o.BaseURL = "tei:8080" }), "scheme"},
		{"ftp", with(func(o *Options) { o.BaseURL = "ftp://tei" }), "scheme"},
		{"empty URL", with(func(o *Options) { o.BaseURL = "" }), "scheme"},
		{"no model", with(func(o *Options) { o.Model = "" }), "Model is required"},
		{"negative batch", with(func(o *Options) { o.BatchSize = -1 }), "BatchSize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, e1 := NewEmbedder(tt.o)
			_, e2 := NewNLI(tt.o)
			_, e3 := NewReranker(tt.o)
			for i, err := range []error{e1, e2, e3} {
				if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
					t.Errorf("constructor %d: err %v, want %q", i, err, tt.wantErr)
				}
			}
		})
	}
	if _, err := NewEmbedder(with(func(o *Options) { o.Dim = -3 })); err == nil || !strings.Contains(err.Error(), "Dim") {
		t.Errorf("negative Dim: err %v", err)
	}
	for _, tmp := range []float64{-1, math.Inf(1), math.NaN()} {
		if _, err := NewNLI(with(func(o *Options) { o.Temperature = tmp })); err == nil || !strings.Contains(err.Error(), "Temperature") {
			t.Errorf("Temperature %v: err %v", tmp, err)
		}
	}
	for name, lm := range map[string]map[string]string{
		"bad relation":      {"entailment": "yes", "contradiction": models.Refutes},
		"one relation":      {"a": models.Neutral, "b": models.Neutral},
		"case-insensitive":  {"Entailment": models.Supports, "entailment": models.Refutes},
		"fine with 2 kinds": {"entailment": models.Supports, "not_entailment": models.Neutral},
	} {
		_, err := NewNLI(with(func(o *Options) { o.LabelMap = lm }))
		if (err == nil) != (name == "fine with 2 kinds") {
			t.Errorf("LabelMap %s: err %v", name, err)
		}
	}
}

func TestEmbedContract(t *testing.T) {
	t.Parallel()
	f, srv := newFakeTEI(t)
	f.apiKey = "sekret"
	m := metrics.New()
	e, err := NewEmbedder(Options{BaseURL: srv.URL + "/", Model: "BAAI/bge-small-en-v1.5", APIKey: "sekret", BatchSize: 3, HTTP: testHTTP(m, "embed", 5*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if e.Model() != "tei:BAAI/bge-small-en-v1.5" || e.Dim() != 0 {
		t.Fatalf("Model %q Dim %d before the first call", e.Model(), e.Dim())
	}
	texts := []string{"alpha", "a banana", "", "cat sat on a mat", "x", "papaya salad", "the end"}
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		want := fakeVector(texts[i], true)
		if models.Cosine(v, want) < 0.999999 || math.Abs(norm(v)-1) > 1e-6 {
			t.Errorf("vector %d for %q = %v, want %v", i, texts[i], v, want)
		}
	}
	if e.Dim() != 4 {
		t.Fatalf("Dim() = %d after the first answer, want 4", e.Dim())
	}
	// The dimension is not known yet: the first text goes alone to learn
	// it, so that no answer is bounded by a guessed dimension.
	if got := fmt.Sprint(f.seen("/embed")); got != "[1 3 3]" {
		t.Fatalf("batches %s, want [1 3 3]", got)
	}
	if got := metricValue(t, m, "evidencefleet_model_batch_size", map[string]string{"backend": "tei", "capability": "embed"}); got != 3 {
		t.Fatalf("batch-size samples %v, want 3", got)
	}
	if got := metricValue(t, m, "evidencefleet_model_requests_total", map[string]string{"outcome": "ok"}); got != 3 {
		t.Fatalf("ok requests %v, want 3", got)
	}

	// empty input: no request
	vecs, err = e.Embed(ctx, nil)
	if err != nil || len(vecs) != 0 || len(f.seen("/embed")) != 3 {
		t.Fatalf("empty input: %v %v, requests %v", vecs, err, f.seen("/embed"))
	}
	// the learned dimension is enforced from then on
	f.answer = func(w http.ResponseWriter, _ string, n int) bool {
		raw(w, "["+strings.Repeat("[0.1,0.2,0.3,0.4,0.5],", n-1)+"[0.1,0.2,0.3,0.4,0.5]]")
		return true
	}
	if _, err := e.Embed(ctx, []string{"a"}); !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), "dimension 5, want 4") {
		t.Fatalf("err = %v, want a dimension mismatch", err)
	}
}

func norm(v []float32) float64 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	return math.Sqrt(ss)
}

func TestEmbedNormalisesAndProbes(t *testing.T) {
	t.Parallel()
	f, srv := newFakeTEI(t)
	f.answer = func(w http.ResponseWriter, _ string, n int) bool {
		raw(w, "["+strings.TrimSuffix(strings.Repeat("[3,4],", n), ",")+"]")
		return true
	}
	e, err := NewEmbedder(Options{BaseURL: srv.URL, Model: "m", HTTP: testHTTP(nil, "embed", 5*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	d, err := e.Probe(ctx)
	if err != nil || d != 2 || e.Dim() != 2 {
		t.Fatalf("Probe = %d, %v; Dim %d; want 2", d, err, e.Dim())
	}
	vecs, err := e.Embed(ctx, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vecs {
		if math.Abs(float64(v[0])-0.6) > 1e-6 || math.Abs(float64(v[1])-0.8) > 1e-6 {
			t.Fatalf("vector %v, want [0.6 0.8]", v)
		}
	}
	if got := fmt.Sprint(f.seen("/embed")); got != "[1 2]" {
		t.Fatalf("batches %s, want the probe then the call", got)
	}
	if d, err := e.Probe(ctx); err != nil || d != 2 || len(f.seen("/embed")) != 2 {
		t.Fatalf("second Probe made a request or failed: %d %v", d, err)
	}
}

func TestEmbedBadResponses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
		dim              int
	}{
		{"too few vectors", `[[1,0,0]]`, "1 vectors for 2 texts", 3},
		{"too many vectors", `[[1,0,0],[0,1,0],[0,0,1]]`, "answer of more than 2 items for a batch of 2 embeddings", 3},
		{"mixed dimensions", `[[1,0,0],[0,1]]`, "vector 1 has dimension 2, vector 0 has 3", 3},
		{"configured dimension", `[[1,0,0],[0,1,0]]`, "dimension 3, want 384", 384},
		{"dimension not known yet: the first text goes alone", `[[1,0,0],[0,1,0]]`, "answer of more than 1 item for one embedding", 0},
		{"empty vector", `[[],[]]`, "vector 0 is empty", 3},
		{"null component", `[[1,null,0],[0,1,0]]`, "not a number: null", 3},
		{"string component", `[[1,"NaN",0],[0,1,0]]`, `not a number: "NaN"`, 3},
		{"beyond float32", `[[1,1e39,0],[0,1,0]]`, "not a finite float32", 3},
		{"zero vector", `[[0,0,0],[0,1,0]]`, "norm 0", 3},
		{"not JSON", `<html>502 Bad Gateway</html>`, "decoding the JSON answer", 3},
		{"object", `{"embeddings":[[1]]}`, "cannot unmarshal object", 3},
		{"null", `null`, "the answer is JSON null", 3},
		{"OpenAI shape", `{"data":[{"embedding":[1,0]}]}`, "cannot unmarshal object", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeTEI(t)
			f.answer = func(w http.ResponseWriter, _ string, _ int) bool { raw(w, tt.body); return true }
			m := metrics.New()
			e, err := NewEmbedder(Options{BaseURL: srv.URL, Model: "m", Dim: tt.dim, HTTP: testHTTP(m, "embed", 5*time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Embed(ctx, []string{"a", "b"})
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrBadResponse mentioning %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "/embed") {
				t.Fatalf("err %q does not name the endpoint", err)
			}
			if e.Dim() != tt.dim {
				t.Fatalf("Dim %d after a bad answer, want %d", e.Dim(), tt.dim)
			}
			if got := metricValue(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": "bad_response"}); got != 1 {
				t.Fatalf("bad_response errors %v, want 1", got)
			}
		})
	}
}

func TestNLIContract(t *testing.T) {
	t.Parallel()
	f, srv := newFakeTEI(t)
	m := metrics.New()
	n, err := NewNLI(Options{BaseURL: srv.URL, Model: "cross-encoder/nli-deberta-v3-small", BatchSize: 2, HTTP: testHTTP(m, "nli", 5*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if n.Model() != "tei:cross-encoder/nli-deberta-v3-small" {
		t.Fatalf("Model %q", n.Model())
	}
	pairs := []models.Pair{
		{Premise: "The sky is blue today.", Hypothesis: "sky is blue"},
		{Premise: "The sky is blue today.", Hypothesis: "the sky is not blue"},
		{Premise: "Cats purr.", Hypothesis: "dogs bark"},
	}
	got, err := n.Judge(ctx, pairs)
	if err != nil {
		t.Fatal(err)
	}
	want := []models.Judgement{{Label: models.Supports, Confidence: 0.90}, {Label: models.Refutes, Confidence: 0.85}, {Label: models.Neutral, Confidence: 0.70}}
	if len(got) != len(want) {
		t.Fatalf("%d judgements for %d pairs", len(got), len(pairs))
	}
	for i := range want {
		if got[i].Label != want[i].Label || math.Abs(got[i].Confidence-want[i].Confidence) > 1e-6 {
			t.Errorf("pair %d: %+v, want %+v", i, got[i], want[i])
		}
		if d := got[i].Distribution; math.Abs(d.Supports+d.Refutes+d.Neutral-1) > 1e-9 || math.Abs(max(d.Supports, d.Refutes, d.Neutral)-got[i].Confidence) > 1e-9 {
			t.Errorf("pair %d: distribution %+v does not sum to 1 with the top class's confidence %v", i, d, got[i].Confidence)
		}
	}
	if s := fmt.Sprint(f.seen("/predict")); s != "[2 1]" {
		t.Fatalf("batches %s, want [2 1]", s)
	}
	if j, err := n.Judge(ctx, nil); err != nil || len(j) != 0 || len(f.seen("/predict")) != 2 {
		t.Fatalf("empty input: %v %v", j, err)
	}
}

func TestNLILabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		labels [3]string // entailment, contradiction, neutral as the model spells them
		lm     map[string]string
	}{
		{"lower case", [3]string{"entailment", "contradiction", "neutral"}, nil},
		{"upper case", [3]string{"ENTAILMENT", "CONTRADICTION", "NEUTRAL"}, nil},
		{"title case", [3]string{"Entailment", "Contradiction", "Neutral"}, nil},
		{"LABEL_n", [3]string{"LABEL_1", "LABEL_0", "LABEL_2"}, map[string]string{"label_0": models.Refutes, "LABEL_1": models.Supports, "Label_2": models.Neutral}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeTEI(t)
			f.labels = tt.labels
			n, err := NewNLI(Options{BaseURL: srv.URL, Model: "m", LabelMap: tt.lm, HTTP: testHTTP(nil, "nli", 5*time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := n.Judge(ctx, []models.Pair{{Premise: "a b", Hypothesis: "a b"}, {Premise: "x", Hypothesis: "not x"}})
			if err != nil {
				t.Fatal(err)
			}
			if got[0].Label != models.Supports || got[1].Label != models.Refutes {
				t.Fatalf("judgements %+v, want supports then refutes", got)
			}
		})
	}
}

func TestNLITemperature(t *testing.T) {
	t.Parallel()
	for _, temp := range []float64{0.5, 1, 2, 4} {
		t.Run(fmt.Sprint(temp), func(t *testing.T) {
			_, srv := newFakeTEI(t)
			n, err := NewNLI(Options{BaseURL: srv.URL, Model: "m", Temperature: temp, HTTP: testHTTP(nil, "nli", 5*time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := n.Judge(ctx, []models.Pair{{Premise: "a b", Hypothesis: "a b"}})
			if err != nil {
				t.Fatal(err)
			}
			p := fakeProbs("a b", "a b")
			var sum float64
			for _, x := range p {
				sum += math.Pow(float64(float32(x)), 1/temp)
			}
			want := math.Pow(float64(float32(p[0])), 1/temp) / sum
			if got[0].Label != models.Supports || math.Abs(got[0].Confidence-want) > 1e-6 {
				t.Fatalf("T=%v: %+v, want supports %.6f", temp, got[0], want)
			}
		})
	}
}

func TestNLIShapes(t *testing.T) {
	t.Parallel()
	single := `[{"score":0.9,"label":"entailment"},{"score":0.07,"label":"neutral"},{"score":0.03,"label":"contradiction"}]`
	tests := []struct {
		name  string
		pairs int
		body  string
		want  string // "" → success with supports 0.9
	}{
		{"batch of one", 1, "[" + single + "]", ""},
		{"flat list for one pair", 1, single, ""},
		{"flat list for two pairs", 2, single, "a single prediction list for 2 pairs"},
		{"too few lists", 2, "[" + single + "]", "1 prediction lists for 2 pairs"},
		{"too many lists", 1, "[" + single + "," + single + "]", "2 prediction lists for 1 pairs"},
		{"missing label", 1, `[[{"score":0.9,"label":"entailment"},{"score":0.1,"label":"neutral"}]]`, `no label for "refutes"`},
		{"unknown label", 1, `[[{"score":0.9,"label":"entailment"},{"score":0.05,"label":"neutral"},{"score":0.05,"label":"maybe"}]]`, `unknown label "maybe"`},
		{"duplicate label", 1, `[[{"score":0.5,"label":"entailment"},{"score":0.4,"label":"Entailment"},{"score":0.1,"label":"neutral"}]]`, "appears twice"},
		{"score above 1", 1, `[[{"score":1.5,"label":"entailment"},{"score":0.07,"label":"neutral"},{"score":0.03,"label":"contradiction"}]]`, "outside [0,1]"},
		{"negative score", 1, `[[{"score":-0.1,"label":"entailment"},{"score":0.07,"label":"neutral"},{"score":0.03,"label":"contradiction"}]]`, "outside [0,1]"},
		{"null score", 1, `[[{"score":null,"label":"entailment"},{"score":0.07,"label":"neutral"},{"score":0.03,"label":"contradiction"}]]`, "has no score"},
		{"string score", 1, `[[{"score":"NaN","label":"entailment"},{"score":0.07,"label":"neutral"},{"score":0.03,"label":"contradiction"}]]`, "cannot unmarshal string"},
		{"no label field", 1, `[[{"score":0.9},{"score":0.07,"label":"neutral"},{"score":0.03,"label":"contradiction"}]]`, "no label"},
		{"all zero", 1, `[[{"score":0,"label":"entailment"},{"score":0,"label":"neutral"},{"score":0,"label":"contradiction"}]]`, "sum to 0"},
		{"not JSON", 1, `Internal Server Error`, "decoding the JSON answer"},
		{"object", 1, `{"predictions":[]}`, "want a JSON array"},
		{"null", 1, `null`, "the answer is JSON null"},
		{"empty array", 1, `[]`, "0 prediction lists for 1 pairs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeTEI(t)
			f.answer = func(w http.ResponseWriter, _ string, _ int) bool { raw(w, tt.body); return true }
			m := metrics.New()
			n, err := NewNLI(Options{BaseURL: srv.URL, Model: "m", HTTP: testHTTP(m, "nli", 5*time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			pairs := make([]models.Pair, tt.pairs)
			got, err := n.Judge(ctx, pairs)
			if tt.want == "" {
				if err != nil || len(got) != 1 || got[0].Label != models.Supports || math.Abs(got[0].Confidence-0.9) > 1e-9 {
					t.Fatalf("got %+v, %v; want supports 0.9", got, err)
				}
				return
			}
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrBadResponse mentioning %q", err, tt.want)
			}
			if got := metricValue(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": "bad_response"}); got != 1 {
				t.Fatalf("bad_response errors %v, want 1", got)
			}
		})
	}
}

func TestRerankContract(t *testing.T) {
	t.Parallel()
	f, srv := newFakeTEI(t)
	f.apiKey = "k"
	m := metrics.New()
	r, err := NewReranker(Options{BaseURL: srv.URL, Model: "BAAI/bge-reranker-base", APIKey: "k", BatchSize: 2, HTTP: testHTTP(m, "rerank", 5*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Model() != "tei:BAAI/bge-reranker-base" {
		t.Fatalf("Model %q", r.Model())
	}
	query := "deep learning models"
	docs := []string{"cooking pasta", "deep learning is a subset of machine learning", "models of trains", "learning to cook", "deep sea"}
	got, err := r.Rerank(ctx, query, docs)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		if want := float64(fakeRelevance(query, d)); math.Abs(got[i]-want) > 1e-6 {
			t.Errorf("doc %d %q: score %v, want %v", i, d, got[i], want)
		}
	}
	if s := fmt.Sprint(f.seen("/rerank")); s != "[2 2 1]" {
		t.Fatalf("batches %s, want [2 2 1]", s)
	}
	if best := models.TopK(got, 1, 0); best[0] != 1 {
		t.Fatalf("best document %d, want 1", best[0])
	}
	if s, err := r.Rerank(ctx, query, nil); err != nil || len(s) != 0 || len(f.seen("/rerank")) != 3 {
		t.Fatalf("empty input: %v %v", s, err)
	}
}

func TestRerankBadResponses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
	}{
		{"index out of range", `[{"index":0,"score":0.9},{"index":2,"score":0.1}]`, "index 2 outside [0,2)"},
		{"negative index", `[{"index":-1,"score":0.9},{"index":0,"score":0.1}]`, "index -1 outside"},
		{"duplicate index", `[{"index":1,"score":0.9},{"index":1,"score":0.1}]`, "index 1 appears twice"},
		{"missing result", `[{"index":1,"score":0.9}]`, "1 results for 2 documents"},
		{"extra result", `[{"index":1,"score":0.9},{"index":0,"score":0.1},{"index":0,"score":0.1}]`, "answer of more than 2 items for a rerank of 2 documents"},
		{"null score", `[{"index":1,"score":null},{"index":0,"score":0.1}]`, "has no score"},
		{"string score", `[{"index":1,"score":"NaN"},{"index":0,"score":0.1}]`, "cannot unmarshal string"},
		{"no index", `[{"score":0.9},{"index":0,"score":0.1}]`, "has no index"},
		{"fractional index", `[{"index":0.5,"score":0.9},{"index":0,"score":0.1}]`, "cannot unmarshal number 0.5"},
		{"jina shape", `{"results":[{"index":0,"relevance_score":0.9}]}`, "cannot unmarshal object"},
		{"not JSON", `oops`, "decoding the JSON answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeTEI(t)
			f.answer = func(w http.ResponseWriter, _ string, _ int) bool { raw(w, tt.body); return true }
			r, err := NewReranker(Options{BaseURL: srv.URL, Model: "m", HTTP: testHTTP(nil, "rerank", 5*time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Rerank(ctx, "q", []string{"a", "b"})
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrBadResponse mentioning %q", err, tt.want)
			}
		})
	}
}

// call runs one capability against base and reports the error.
type call struct {
	name, path string
	run        func(base string, m *metrics.Metrics, timeout time.Duration) error
}

var calls = []call{
	{"embed", "/embed", func(base string, m *metrics.Metrics, to time.Duration) error {
		// The fake's dimension, so both texts go in one request.
		e, err := NewEmbedder(Options{BaseURL: base, Model: "m", Dim: 4, HTTP: testHTTP(m, "embed", to)})
		if err != nil {
			return err
		}
		_, err = e.Embed(ctx, []string{"a", "b"})
		return err
	}},
	{"nli", "/predict", func(base string, m *metrics.Metrics, to time.Duration) error {
		n, err := NewNLI(Options{BaseURL: base, Model: "m", HTTP: testHTTP(m, "nli", to)})
		if err != nil {
			return err
		}
		_, err = n.Judge(ctx, []models.Pair{{Premise: "a", Hypothesis: "a"}})
		return err
	}},
	{"rerank", "/rerank", func(base string, m *metrics.Metrics, to time.Duration) error {
		r, err := NewReranker(Options{BaseURL: base, Model: "m", HTTP: testHTTP(m, "rerank", to)})
		if err != nil {
			return err
		}
		_, err = r.Rerank(ctx, "q", []string{"a", "b"})
		return err
	}},
}

func TestTransportFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		statuses []int // the server's answers in order; 200 = the normal answer
		header   map[string]string
		body     string
		want     error
		wantHits int
		wantMsg  string
		kind     string
	}{
		{"429 then ok", []int{429, 200}, map[string]string{"Retry-After": "0"}, `{"error":"Model is overloaded","error_type":"overloaded"}`, nil, 2, "", "rate_limited"},
		{"429 Retry-After above cap", []int{429, 200}, map[string]string{"Retry-After": "120"}, `{"error":"Model is overloaded","error_type":"overloaded"}`, remoteerr.ErrUnavailable, 1, "Model is overloaded", "rate_limited"},
		{"424 backend error then ok", []int{424, 200}, nil, `{"error":"Inference failed","error_type":"backend"}`, nil, 2, "", "server_error"},
		{"500s exhaust retries", []int{500}, nil, `{"error":"CUDA out of memory","error_type":"backend"}`, remoteerr.ErrUnavailable, 3, "CUDA out of memory", "server_error"},
		{"503 unhealthy", []int{503}, nil, `{"error":"unhealthy","error_type":"unhealthy"}`, remoteerr.ErrUnavailable, 3, "unhealthy", "server_error"},
		{"422 tokenizer", []int{422}, nil, `{"error":"Input validation error: inputs must have less than 512 tokens","error_type":"validation"}`, remoteerr.ErrRejected, 1, "inputs must have less than 512 tokens", "rejected"},
		{"401", []int{401}, nil, ``, remoteerr.ErrRejected, 1, "status 401", "rejected"},
	}
	for _, c := range calls {
		for _, tt := range tests {
			t.Run(c.name+"/"+tt.name, func(t *testing.T) {
				f, srv := newFakeTEI(t)
				var hits atomic.Int32
				f.answer = func(w http.ResponseWriter, path string, _ int) bool {
					if path != c.path {
						t.Errorf("path %s, want %s", path, c.path)
					}
					i := int(hits.Add(1)) - 1
					st := tt.statuses[min(i, len(tt.statuses)-1)]
					if st == 200 {
						return false
					}
					for k, v := range tt.header {
						w.Header().Set(k, v)
					}
					w.WriteHeader(st)
					_, _ = w.Write([]byte(tt.body))
					return true
				}
				m := metrics.New()
				err := c.run(srv.URL, m, 5*time.Second)
				if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
					t.Fatalf("err = %v, want %v", err, tt.want)
				}
				if err != nil && !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("err %q does not mention %q", err, tt.wantMsg)
				}
				if int(hits.Load()) != tt.wantHits {
					t.Fatalf("server hits %d, want %d", hits.Load(), tt.wantHits)
				}
				if got := metricValue(t, m, "evidencefleet_model_errors_total", map[string]string{"backend": "tei", "capability": c.name, "kind": tt.kind}); got < 1 {
					t.Fatalf("no %s error counted", tt.kind)
				}
			})
		}
		t.Run(c.name+"/timeout", func(t *testing.T) {
			f, srv := newFakeTEI(t)
			var hits atomic.Int32
			f.answer = func(w http.ResponseWriter, _ string, _ int) bool {
				hits.Add(1)
				<-f.t.Context().Done() // never answers in time; released by the client's timeout
				return true
			}
			m := metrics.New()
			err := c.run(srv.URL, m, 20*time.Millisecond)
			if !errors.Is(err, remoteerr.ErrUnavailable) || !strings.Contains(err.Error(), "timeout") {
				t.Fatalf("err = %v, want ErrUnavailable after timeouts", err)
			}
			// The client counts its attempts; the server may not have taken
			// a request in before its 20 ms ran out on a loaded machine.
			var herr *httpx.Error
			if !errors.As(err, &herr) || herr.Attempts != 3 || hits.Load() < 1 || hits.Load() > 3 {
				t.Fatalf("err %v, %d requests served; want 3 attempts", err, hits.Load())
			}
		})
		t.Run(c.name+"/batch too large", func(t *testing.T) {
			f, srv := newFakeTEI(t)
			f.maxBatch = 1
			err := c.run(srv.URL, nil, 5*time.Second)
			if c.name == "nli" { // one pair fits
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, remoteerr.ErrRejected) || !strings.Contains(err.Error(), "maximum allowed batch size 1") {
				t.Fatalf("err = %v, want ErrRejected quoting TEI", err)
			}
		})
	}
}

func TestEmbedConcurrentCallsLearnOneDim(t *testing.T) {
	t.Parallel()
	f, srv := newFakeTEI(t)
	e, err := NewEmbedder(Options{BaseURL: srv.URL, Model: "m", BatchSize: 2, HTTP: testHTTP(nil, "embed", 5*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	const callers = 8
	errs := make(chan error, callers)
	for i := 0; i < callers; i++ {
		go func() {
			vecs, err := e.Embed(ctx, []string{"a", "bb", "ccc"})
			if err == nil && len(vecs) != 3 {
				err = fmt.Errorf("%d vectors", len(vecs))
			}
			errs <- err
		}()
	}
	for i := 0; i < callers; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if e.Dim() != 4 || len(f.seen("/embed")) != 2*callers {
		t.Fatalf("Dim %d after %d requests, want 4 after %d", e.Dim(), len(f.seen("/embed")), 2*callers)
	}
}
