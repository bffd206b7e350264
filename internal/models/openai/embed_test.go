package openaibackend

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// embedCall is one request the fake embeddings server received.
type embedCall struct {
	N     int
	Input []string
}

// embedServer serves POST /v1/embeddings, checks every request against the
// documented shape (input array, model, encoding_format "float", nothing
// else) and hands it to reply.
func embedServer(t *testing.T, model string, reply func(w http.ResponseWriter, c embedCall)) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		call := embedCall{N: n}
		mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			t.Errorf("request %s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
			apiError(w, http.StatusNotFound, "404 page not found")
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q, want application/json", ct)
		}
		body, _ := io.ReadAll(r.Body)
		var req map[string]json.RawMessage
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request body is not a JSON object: %s", body)
			return
		}
		for k := range req {
			if !slices.Contains([]string{"input", "model", "encoding_format"}, k) {
				t.Errorf("request has unexpected field %q: %s", k, body)
			}
		}
		var m, format string
		_ = json.Unmarshal(req["model"], &m)
		_ = json.Unmarshal(req["encoding_format"], &format)
		if m != model || format != "float" {
			t.Errorf("model %q encoding_format %q, want %q and float: %s", m, format, model, body)
		}
		if err := json.Unmarshal(req["input"], &call.Input); err != nil || len(call.Input) == 0 {
			t.Errorf("input %s, want a non-empty array of strings", req["input"])
		}
		reply(w, call)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// vecFor is the fake model: a deterministic, non-zero vector of dim
// components that depends on text.
func vecFor(text string, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32((int(text[i%len(text)])+7*i)%13 + 1)
	}
	return v
}

// embeddingList is the documented list object: data entries carry index i
// and vecs[i], listed in the order given (nil: in index order).
func embeddingList(vecs []any, order []int, promptTokens int) []byte {
	if order == nil {
		for i := range vecs {
			order = append(order, i)
		}
	}
	data := []any{}
	for _, i := range order {
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vecs[i]})
	}
	b, _ := json.Marshal(map[string]any{
		"object": "list", "data": data, "model": "served-model",
		"usage": map[string]any{"prompt_tokens": promptTokens, "total_tokens": promptTokens},
	})
	return b
}

// vecsFor returns vecFor of every input, as JSON-ready values.
func vecsFor(input []string, dim int) []any {
	out := make([]any, len(input))
	for i, s := range input {
		out[i] = vecFor(s, dim)
	}
	return out
}

// unit returns v scaled to unit length, in float64.
func unit(v []float32) []float64 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x) / math.Sqrt(ss)
	}
	return out
}

func TestEmbedMatchesByIndexBatchesAndNormalises(t *testing.T) {
	t.Parallel()
	const dim = 8
	texts := []string{"alpha", "beta gamma", "", "delta", "epsilon zeta eta", "  ", "theta"}
	var mu sync.Mutex
	var seen []string
	srv := embedServer(t, "nomic-embed-text", func(w http.ResponseWriter, c embedCall) {
		mu.Lock()
		seen = append(seen, c.Input...)
		mu.Unlock()
		// Answer in reverse order: the client must match by "index".
		order := make([]int, len(c.Input))
		for i := range order {
			order[i] = len(c.Input) - 1 - i
		}
		writeJSON(w, embeddingList(vecsFor(c.Input, dim), order, 3*len(c.Input)))
	})
	m := metrics.New()
	e, err := NewEmbedder(Options{BaseURL: srv.URL + "/v1", Model: "nomic-embed-text", BatchSize: 2, Dim: dim, Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Model(), "openai:nomic-embed-text"; got != want {
		t.Errorf("Model() = %q, want %q", got, want)
	}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vs), len(texts))
	}
	for i, text := range texts {
		if len(vs[i]) != dim {
			t.Fatalf("text %d: dimension %d, want %d", i, len(vs[i]), dim)
		}
		if strings.TrimSpace(text) == "" {
			for _, x := range vs[i] {
				if x != 0 {
					t.Errorf("blank text %d: got %v, want the zero vector", i, vs[i])
					break
				}
			}
			continue
		}
		want := unit(vecFor(text, dim))
		for k := range want {
			if math.Abs(float64(vs[i][k])-want[k]) > 1e-6 {
				t.Fatalf("text %d (%q): got %v, want %v (matched by index?)", i, text, vs[i], want)
			}
		}
	}
	slices.Sort(seen)
	if want := []string{"alpha", "beta gamma", "delta", "epsilon zeta eta", "theta"}; !slices.Equal(seen, want) {
		t.Errorf("server embedded %q, want the non-blank texts %q", seen, want)
	}
	// 5 non-blank texts in batches of 2: 3 requests.
	if got := metricValue(t, m, "evidencefleet_model_batch_size", map[string]string{"backend": "openai", "capability": "embed"}); got != 3 {
		t.Errorf("batch observations %v, want 3", got)
	}
	if got := metricValue(t, m, "evidencefleet_model_tokens_total", map[string]string{"backend": "openai", "capability": "embed", "type": "prompt"}); got != 15 {
		t.Errorf("prompt tokens %v, want 15 (3 per text)", got)
	}
	if vs, err := e.Embed(context.Background(), nil); err != nil || len(vs) != 0 {
		t.Errorf("Embed(nil) = %v, %v; want no vectors, no error", vs, err)
	}
}

func TestEmbedLearnsDimensionThenEnforcesIt(t *testing.T) {
	t.Parallel()
	dim := 6
	var mu sync.Mutex
	srv := embedServer(t, "m", func(w http.ResponseWriter, c embedCall) {
		mu.Lock()
		d := dim
		mu.Unlock()
		writeJSON(w, embeddingList(vecsFor(c.Input, d), nil, 1))
	})
	e, err := NewEmbedder(Options{BaseURL: srv.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 0 {
		t.Errorf("Dim() before any answer = %d, want 0", e.Dim())
	}
	if _, err := e.Embed(context.Background(), []string{" "}); !errors.Is(err, remoteerr.ErrRejected) {
		t.Errorf("only blank texts with unknown dimension: err %v, want ErrRejected", err)
	}
	if _, err := e.Embed(context.Background(), []string{"one", "two"}); err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 6 {
		t.Errorf("Dim() after the first answer = %d, want 6", e.Dim())
	}
	mu.Lock()
	dim = 4
	mu.Unlock()
	_, err = e.Embed(context.Background(), []string{"three"})
	if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), "dimension 4, want 6") {
		t.Errorf("changed dimension: err %v, want ErrBadResponse naming 4 and 6", err)
	}
}

// float32Base64 is the base64 encoding of v as little-endian float32s, the
// shape servers send for encoding_format "base64".
func float32Base64(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestEmbedRejectsGarbage(t *testing.T) {
	t.Parallel()
	const dim = 4
	ok := func(in []string) []any { return vecsFor(in, dim) }
	cases := []struct {
		name  string
		reply func(w http.ResponseWriter, in []string)
		want  string
	}{
		{"too few vectors", func(w http.ResponseWriter, in []string) {
			writeJSON(w, embeddingList(ok(in)[:1], nil, 1))
		}, "1 embeddings for 2 inputs"},
		{"too many vectors", func(w http.ResponseWriter, in []string) {
			writeJSON(w, embeddingList(append(ok(in), vecFor("x", dim)), nil, 1))
		}, "3 embeddings for 2 inputs"},
		{"duplicate index", func(w http.ResponseWriter, in []string) {
			writeJSON(w, embeddingList(ok(in), []int{1, 1}, 1))
		}, "index 1 appears twice"},
		{"index out of range", func(w http.ResponseWriter, in []string) {
			b := strings.Replace(string(embeddingList(ok(in), nil, 1)), `"index":1`, `"index":2`, 1)
			writeJSON(w, []byte(b))
		}, "index 2 outside [0,2)"},
		{"wrong dimension", func(w http.ResponseWriter, in []string) {
			writeJSON(w, embeddingList(vecsFor(in, dim+1), nil, 1))
		}, "dimension 5, want 4"},
		{"mixed dimensions", func(w http.ResponseWriter, in []string) {
			writeJSON(w, embeddingList([]any{vecFor(in[0], dim), vecFor(in[1], dim-1)}, nil, 1))
		}, "mixed dimensions"},
		{"empty vector", func(w http.ResponseWriter, in []string) {
			writeJSON(w, embeddingList([]any{vecFor(in[0], dim), []float32{}}, nil, 1))
		}, "embedding 1 is empty"},
		{"all-zero vector", func(w http.ResponseWriter, in []string) {
			writeJSON(w, embeddingList([]any{vecFor(in[0], dim), make([]float32, dim)}, nil, 1))
		}, "all 4 components are zero"},
		{"NaN literal (Python json.dumps)", func(w http.ResponseWriter, in []string) {
			b := strings.Replace(string(embeddingList(ok(in), nil, 1)), `"embedding":[`, `"embedding":[NaN,`, 1)
			writeJSON(w, []byte(b))
		}, "decoding the answer"},
		{"base64 string instead of floats", func(w http.ResponseWriter, in []string) {
			writeJSON(w, embeddingList([]any{float32Base64(vecFor(in[0], dim)), float32Base64(vecFor(in[1], dim))}, nil, 1))
		}, "decoding the answer"},
		{"not JSON", func(w http.ResponseWriter, in []string) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><body>Bad gateway</body></html>"))
		}, "decoding the answer"},
		{"truncated body", func(w http.ResponseWriter, in []string) {
			b := embeddingList(ok(in), nil, 1)
			writeJSON(w, b[:len(b)/2])
		}, "decoding the answer"},
		{"no data", func(w http.ResponseWriter, in []string) {
			writeJSON(w, []byte(`{"object":"list","data":[],"model":"m","usage":{"prompt_tokens":0,"total_tokens":0}}`))
		}, "0 embeddings for 2 inputs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := embedServer(t, "m", func(w http.ResponseWriter, c embedCall) { tc.reply(w, c.Input) })
			m := metrics.New()
			e, err := NewEmbedder(Options{BaseURL: srv.URL + "/v1", Model: "m", Dim: dim, Observer: m})
			if err != nil {
				t.Fatal(err)
			}
			vs, err := e.Embed(context.Background(), []string{"first text", "second text"})
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Embed = %v, %v; want ErrBadResponse containing %q", vs, err, tc.want)
			}
			if got := metricValue(t, m, "evidencefleet_model_errors_total", map[string]string{"backend": "openai", "capability": "embed", "kind": "bad_response"}); got != 1 {
				t.Errorf("bad_response errors %v, want 1", got)
			}
		})
	}
}

func TestEmbedStatusesAndTransport(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status   int
		sentinel error
		want     string
	}{
		{http.StatusTooManyRequests, remoteerr.ErrUnavailable, "status 429"},
		{http.StatusInternalServerError, remoteerr.ErrUnavailable, "status 500"},
		{http.StatusServiceUnavailable, remoteerr.ErrUnavailable, "status 503"},
		{http.StatusBadRequest, remoteerr.ErrRejected, `status 400: "input must not be empty"`},
		{http.StatusUnauthorized, remoteerr.ErrRejected, "status 401"},
		{http.StatusNotFound, remoteerr.ErrRejected, "/v1"},
	}
	for _, tc := range cases {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			srv := embedServer(t, "m", func(w http.ResponseWriter, c embedCall) {
				apiError(w, tc.status, "input must not be empty")
			})
			e, err := NewEmbedder(Options{BaseURL: srv.URL + "/v1", Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Embed(context.Background(), []string{"x"})
			if !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %v containing %q", err, tc.sentinel, tc.want)
			}
		})
	}
}

// hangingServer answers nothing until the request's context ends.
func hangingServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestEmbedTimeoutRefusedAndCancel(t *testing.T) {
	t.Parallel()
	hang := hangingServer(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	t.Run("client timeout is unavailable", func(t *testing.T) {
		e, err := NewEmbedder(Options{BaseURL: hang.URL + "/v1", Model: "m", HTTP: &http.Client{Timeout: 20 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Embed(context.Background(), []string{"x"})
		if !errors.Is(err, remoteerr.ErrUnavailable) {
			t.Errorf("err %v, want ErrUnavailable", err)
		}
	})
	t.Run("connection refused is unavailable", func(t *testing.T) {
		e, err := NewEmbedder(Options{BaseURL: closedURL + "/v1", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Embed(context.Background(), []string{"x"})
		if !errors.Is(err, remoteerr.ErrUnavailable) {
			t.Errorf("err %v, want ErrUnavailable", err)
		}
	})
	t.Run("caller's deadline is the context error, not a sentinel", func(t *testing.T) {
		e, err := NewEmbedder(Options{BaseURL: hang.URL + "/v1", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, err = e.Embed(ctx, []string{"x"})
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, remoteerr.ErrUnavailable) {
			t.Errorf("err %v, want context.DeadlineExceeded and no ErrUnavailable", err)
		}
	})
	t.Run("cancelled context sends nothing", func(t *testing.T) {
		e, err := NewEmbedder(Options{BaseURL: closedURL + "/v1", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := e.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
	})
}
