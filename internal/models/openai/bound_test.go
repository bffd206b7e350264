package openaibackend

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/hostiletest"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// Answers bounded by their request (issue 24, point 5). The tests that
// measure allocation run alone (no t.Parallel): runtime.MemStats.TotalAlloc
// counts the whole process, so it is a strict upper bound of the heap the
// call grew, the fake server's writes included.

// The case: a valid-looking embeddings list of 64 MiB of numbers for
// a batch of 64 texts, through the production Doer (httpx). Before, it was
// read whole into memory (64 MiB, then refused as "larger than 67108864
// bytes"); now the reading stops at the batch's bound, which the error
// names.
func TestEmbedAnswerOf64MiBRefusedAtTheBatchBound(t *testing.T) {
	const body = 64<<20 + 1<<10
	for _, tc := range []struct {
		name string
		dim  int
		want string // the bound in the error
		max  uint64 // allocation allowed while refusing
	}{
		{"dimension configured", 1024, "answer over 3 MiB for a batch of 64 embeddings of 1024 dimensions", 12 << 20},
		// The first text goes alone to learn the dimension: its answer is
		// bounded by one vector of the widest dimension assumed.
		{"dimension not known yet", 0, "answer over 400.2 KiB for one embedding (dimension not known yet, at most 8192 assumed)", 4 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := embedServer(t, "m", func(w http.ResponseWriter, c embedCall) {
				hostiletest.WritePadded(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[`,
					"-0.0123456789012345,", `0.5]}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`, body)
			})
			m := metrics.New()
			e, err := NewEmbedder(Options{BaseURL: srv.URL + "/v1", Model: "m", Dim: tc.dim, HTTP: resilient("embed", 2, m), Observer: m})
			if err != nil {
				t.Fatal(err)
			}
			texts := make([]string, 64)
			for i := range texts {
				texts[i] = "text " + strconv.Itoa(i)
			}
			var vs [][]float32
			alloc := hostiletest.Allocated(func() { vs, err = e.Embed(context.Background(), texts) })
			t.Logf("%s: allocated %s while answering a %s body; error: %v", tc.name, hostiletest.MiB(alloc), hostiletest.MiB(body), err)
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Embed = %d vectors, %v; want ErrBadResponse naming %q", len(vs), err, tc.want)
			}
			if alloc > tc.max {
				t.Errorf("allocated %s refusing the answer, want at most %s", hostiletest.MiB(alloc), hostiletest.MiB(tc.max))
			}
			if got := metricValue(t, m, "evidencefleet_model_errors_total", map[string]string{"capability": "embed", "kind": "bad_response"}); got != 1 {
				t.Errorf("bad_response errors %v, want 1", got)
			}
		})
	}
}

// paddedCompletion is a chat.completion whose content is content followed by
// white space up to size bytes of body: a model padding its JSON.
func paddedCompletion(w http.ResponseWriter, content string, size int) {
	quoted, _ := json.Marshal(content)
	prefix := `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":` +
		string(quoted[:len(quoted)-1])
	suffix := `"},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":4000,"total_tokens":4100}}`
	hostiletest.WritePadded(w, prefix, " ", suffix, size)
}

// A chat answer padded to 50 MiB: under the old 64 MiB cap it was read,
// decoded and, its padding trimmed, accepted. Now every chat answer is
// bounded by its max_tokens, and the padded one is refused as garbage naming
// the bound, for each use of the chat model.
func TestChatAnswerPaddedTo50MiBRefusedAtTheMaxTokensBound(t *testing.T) {
	const body = 50 << 20
	cases := []struct {
		name, content, want string
		call                func(o Options) error
	}{
		{"claims", claimsContent(claimJSON{"Sea level is rising.", "Sea level is rising.", 0.9}),
			"answer over 272 KiB for a chat answer of at most 4096 tokens", func(o Options) error {
				l, err := NewLLM(o)
				if err != nil {
					return err
				}
				_, err = l.ExtractClaims(context.Background(), models.ClaimRequest{URL: "https://example.org/", Text: "Sea level is rising.", MaxClaims: 3})
				return err
			}},
		{"relevance", `{"score": 7}`, "answer over 32 KiB for a chat answer of at most 256 tokens", func(o Options) error {
			l, err := NewLLM(o)
			if err != nil {
				return err
			}
			_, err = l.Relevance(context.Background(), "sea level", "Sea level is rising.")
			return err
		}},
		{"nli", `{"label": "entailment", "confidence": 0.9}`, "answer over 32 KiB for a chat answer of at most 256 tokens", func(o Options) error {
			n, err := NewNLI(o)
			if err != nil {
				return err
			}
			_, err = n.Judge(context.Background(), []models.Pair{{Premise: "Sea level is rising.", Hypothesis: "The sea rises."}})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := chatServer(t, chatWant{Model: "m"}, func(w http.ResponseWriter, c chatCall) { paddedCompletion(w, tc.content, body) })
			m := metrics.New()
			o := Options{BaseURL: srv.URL + "/v1", Model: "m", HTTP: resilient("llm", 2, m), Observer: m}
			var err error
			alloc := hostiletest.Allocated(func() { err = tc.call(o) })
			t.Logf("%s: allocated %s while answering a %s body; error: %v", tc.name, hostiletest.MiB(alloc), hostiletest.MiB(body), err)
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadResponse naming %q", err, tc.want)
			}
			if alloc > 4<<20 {
				t.Errorf("allocated %s refusing the answer, want at most 4 MiB", hostiletest.MiB(alloc))
			}
		})
	}
}

// prettyEmbeddings is an embeddings list of n vectors of dim components as
// OpenAI's API prints it: indented by two spaces per level (every number on
// its own line, 8 spaces in), the numbers with 17 significant digits.
func prettyEmbeddings(n, dim int) []byte {
	data := make([]map[string]any, n)
	for i := range data {
		v := make([]float64, dim)
		for j := range v {
			v[j] = -0.012345678901234567 - float64(i*dim+j)*1e-9
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
	}
	b, _ := json.MarshalIndent(map[string]any{"object": "list", "data": data, "model": "text-embedding-3-large",
		"usage": map[string]any{"prompt_tokens": n, "total_tokens": n}}, "", "  ")
	return b
}

// Normal answers at the largest default batch (EVF_EMBED_BATCH 0 = 64),
// pretty-printed as OpenAI's API prints them, stay within their bounds, the
// dimension configured (text-embedding-3-large's 3072) or learned (the
// widest assumed, 8192).
func TestLargestNormalEmbeddingsPass(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dim, cfg int
	}{
		{"64 × 3072, configured", 3072, 3072},
		{"64 × 8192, learned", 8192, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The answers are built before the measurement: only the
			// client's reading is counted (and the server's writes).
			bodies := map[int][]byte{}
			for _, n := range []int{1, 63, 64} {
				bodies[n] = prettyEmbeddings(n, tc.dim)
			}
			var mu sync.Mutex
			var batches []int
			srv := embedServer(t, "m", func(w http.ResponseWriter, c embedCall) {
				mu.Lock()
				batches = append(batches, len(c.Input))
				mu.Unlock()
				writeJSON(w, bodies[len(c.Input)])
			})
			// a patient client: under -race on a busy machine reading the
			// largest answer has taken longer than the usual 5 s
			e, err := NewEmbedder(Options{BaseURL: srv.URL + "/v1", Model: "m", BatchSize: 64, Dim: tc.cfg,
				HTTP: resilientWithin("embed", 2, nil, 2*time.Minute)})
			if err != nil {
				t.Fatal(err)
			}
			texts := make([]string, 64)
			for i := range texts {
				texts[i] = "text " + strconv.Itoa(i)
			}
			var vs [][]float32
			alloc := hostiletest.Allocated(func() { vs, err = e.Embed(context.Background(), texts) })
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != 64 || len(vs[63]) != tc.dim || e.Dim() != tc.dim {
				t.Fatalf("%d vectors of %d, Dim %d; want 64 of %d", len(vs), len(vs[63]), e.Dim(), tc.dim)
			}
			mu.Lock()
			defer mu.Unlock()
			t.Logf("%s: batches %v, answer of 64 vectors %s, allocated %s", tc.name, batches, hostiletest.MiB(uint64(len(bodies[64]))), hostiletest.MiB(alloc))
		})
	}
}
