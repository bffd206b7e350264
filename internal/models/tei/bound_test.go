package tei

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
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

// texts returns n distinct short texts.
func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "text " + strconv.Itoa(i)
	}
	return out
}

// embed32 embeds 32 texts in 1024 dimensions.
func embed32(base string, m *metrics.Metrics) error {
	e, err := NewEmbedder(Options{BaseURL: base, Model: "m", Dim: 1024, HTTP: testHTTP(m, "embed", 5*time.Second)})
	if err != nil {
		return err
	}
	_, err = e.Embed(ctx, texts(32))
	return err
}

// rerank32 reranks 32 documents.
func rerank32(base string, m *metrics.Metrics) error {
	r, err := NewReranker(Options{BaseURL: base, Model: "m", HTTP: testHTTP(m, "rerank", 5*time.Second)})
	if err != nil {
		return err
	}
	_, err = r.Rerank(ctx, "query", texts(32))
	return err
}

// A TEI server answering 64 MiB of valid-looking JSON to each endpoint,
// through the production client: before, every answer was read whole into
// memory up to 64 MiB (then refused as "larger than 67108864 bytes"); now
// the reading stops at the bound of the request (its batch, dimension,
// labels, documents: its bytes, its items no more than the inputs, each no
// larger than one can be), which the error names.
func TestAnswerOf64MiBRefusedAtTheRequestBound(t *testing.T) {
	const body = 64<<20 + 1<<10
	cases := []struct {
		name, path, prefix, filler, suffix, want string
		call                                     func(base string, m *metrics.Metrics) error
	}{
		{"embed, 64 MiB of vectors", "/embed", `[`, "[-0.0123456789012345,0.5],", `[0.5]]`,
			"answer of more than 32 items for a batch of 32 embeddings of 1024 dimensions", embed32},
		{"embed, one vector of 64 MiB", "/embed", `[[`, "-0.0123456789012345,", `0.5]]`,
			"answer with an item over 48.2 KiB for a batch of 32 embeddings of 1024 dimensions", embed32},
		{"embed, dimension not known yet", "/embed", `[[`, "-0.0123456789012345,", `0.5]]`,
			"answer with an item over 384.2 KiB for one embedding (dimension not known yet, at most 8192 assumed)", func(base string, m *metrics.Metrics) error {
				e, err := NewEmbedder(Options{BaseURL: base, Model: "m", HTTP: testHTTP(m, "embed", 5*time.Second)})
				if err != nil {
					return err
				}
				_, err = e.Embed(ctx, texts(32))
				return err
			}},
		{"predict", "/predict", `[[`, `{"score":0.001,"label":"neutral"},`, `{"score":0.9,"label":"entailment"}]]`,
			"answer over 39.3 KiB for predictions of 3 labels for a batch of 32 inputs", func(base string, m *metrics.Metrics) error {
				n, err := NewNLI(Options{BaseURL: base, Model: "m", HTTP: testHTTP(m, "nli", 5*time.Second)})
				if err != nil {
					return err
				}
				pairs := make([]models.Pair, 32)
				for i := range pairs {
					pairs[i] = models.Pair{Premise: "premise " + strconv.Itoa(i), Hypothesis: "hypothesis"}
				}
				_, err = n.Judge(ctx, pairs)
				return err
			}},
		{"rerank, 64 MiB of results", "/rerank", `[`, `{"index":0,"score":0.5},`, `{"index":1,"score":0.1}]`,
			"answer of more than 32 items for a rerank of 32 documents", rerank32},
		{"rerank, a result padded to 64 MiB", "/rerank", `[{"index":0,"score":0.5`, " ", `}]`,
			"answer over 20 KiB for a rerank of 32 documents", rerank32},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFakeTEI(t)
			f.answer = func(w http.ResponseWriter, path string, _ int) bool {
				if path != tc.path {
					t.Errorf("path %s, want %s", path, tc.path)
				}
				hostiletest.WritePadded(w, tc.prefix, tc.filler, tc.suffix, body)
				return true
			}
			m := metrics.New()
			var err error
			alloc := hostiletest.Allocated(func() { err = tc.call(srv.URL, m) })
			t.Logf("%s: allocated %s while answering a %s body; error: %v", tc.name, hostiletest.MiB(alloc), hostiletest.MiB(body), err)
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadResponse naming %q", err, tc.want)
			}
			if alloc > 8<<20 {
				t.Errorf("allocated %s refusing the answer, want at most 8 MiB", hostiletest.MiB(alloc))
			}
			if got := metricValue(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": "bad_response"}); got != 1 {
				t.Errorf("bad_response errors %v, want 1", got)
			}
		})
	}
}

// vectorsAnswer is /embed's answer of n vectors of dim components, each
// printed with 17 significant digits (as a client printing float64 would):
// wider than TEI's own float32 output.
func vectorsAnswer(n, dim int) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		for j := range dim {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(-0.012345678901234567-float64(i*dim+j)*1e-9, 'g', 17, 64))
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.Bytes()
}

// Normal answers at the largest default batch (EVF_EMBED_BATCH 0 = 64) and
// the widest dimension assumed stay within their bounds, the dimension
// configured or learned, and their allocation follows the answer's size.
func TestLargestNormalEmbeddingsPass(t *testing.T) {
	for _, tc := range []struct {
		name string
		dim  int // configured; 0 learns UnknownDim from the first text
	}{
		{"64 × 1024, configured", 1024},
		{"64 × 8192, learned", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dim := tc.dim
			if dim == 0 {
				dim = 8192
			}
			f, srv := newFakeTEI(t)
			f.maxBatch = 64 // --max-client-batch-size 64
			// The answers are built before the measurement: only the
			// client's reading is counted (and the server's writes).
			bodies := map[int][]byte{1: vectorsAnswer(1, dim), 63: vectorsAnswer(63, dim), 64: vectorsAnswer(64, dim)}
			var answered atomic.Int64
			f.answer = func(w http.ResponseWriter, _ string, n int) bool {
				answered.Add(int64(len(bodies[n])))
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(bodies[n])
				return true
			}
			e, err := NewEmbedder(Options{BaseURL: srv.URL, Model: "m", BatchSize: 64, Dim: tc.dim, HTTP: testHTTP(nil, "embed", 30*time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			var vecs [][]float32
			alloc := hostiletest.Allocated(func() { vecs, err = e.Embed(ctx, texts(64)) })
			if err != nil {
				t.Fatal(err)
			}
			if len(vecs) != 64 || len(vecs[63]) != dim || e.Dim() != dim {
				t.Fatalf("%d vectors of %d, Dim %d; want 64 of %d", len(vecs), len(vecs[63]), e.Dim(), dim)
			}
			t.Logf("%s: batches %v, answers of %s in all, allocated %s", tc.name, f.seen("/embed"), hostiletest.MiB(uint64(answered.Load())), hostiletest.MiB(alloc))
			// Decoded one vector at a time: the raw answer is never held
			// whole beside the vectors (float64 while checked, then float32).
			if limit := 2*uint64(answered.Load()) + 8<<20; alloc > limit {
				t.Errorf("allocated %s reading answers of %s, want at most %s", hostiletest.MiB(alloc), hostiletest.MiB(uint64(answered.Load())), hostiletest.MiB(limit))
			}
		})
	}
}
