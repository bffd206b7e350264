package jina

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/evidencefleet/evidencefleet/internal/harness/hostiletest"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// Answers bounded by their request (issue 24, point 5). The tests that
// measure allocation run alone (no t.Parallel): runtime.MemStats.TotalAlloc
// counts the whole process, so it is a strict upper bound of the heap the
// call grew, the fake server's writes included.

// docs returns n documents of the given text, numbered.
func docs(n int, text string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i) + " " + text
	}
	return out
}

// A rerank answer of 64 MiB of valid-looking results for 32 documents, or
// of one result padded to 64 MiB: before, either was read whole into memory
// (then refused as "larger than 67108864 bytes"); now the reading stops at
// the bound of the 32 documents and their texts (vLLM echoes them), which
// the error names: no more results than documents, no more bytes than they
// can need.
func TestRerankAnswerOf64MiBRefusedAtTheDocumentsBound(t *testing.T) {
	const body = 64<<20 + 1<<10
	for _, tc := range []struct{ name, prefix, filler, want string }{
		{"64 MiB of results", `{"model":"m","usage":{"total_tokens":10},"results":[`,
			`{"index":0,"relevance_score":0.5,"document":{"text":"0 a"}},`,
			"answer of more than 32 items for a rerank of 32 documents with their texts"},
		{"a result padded to 64 MiB", `{"model":"m","usage":{"total_tokens":10},"results":[{"index":0,"relevance_score":0.5`, " ",
			"answer over 26.4 KiB for a rerank of 32 documents with their texts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFake(t, "/v1/rerank")
			f.answer = func(w http.ResponseWriter, n int) bool {
				w.Header().Set("Content-Type", "application/json")
				block := bytes.Repeat([]byte(tc.filler), (64<<10)/len(tc.filler))
				if _, err := w.Write([]byte(tc.prefix)); err != nil {
					return true
				}
				for left := body; left > 0; left -= len(block) {
					if _, err := w.Write(block); err != nil {
						return true
					}
				}
				_, _ = w.Write([]byte(`}]}`))
				return true
			}
			m := metrics.New()
			r, err := New(Options{BaseURL: srv.URL, Model: "m", HTTP: testHTTP(m, 5*time.Second)})
			if err != nil {
				t.Fatal(err)
			}
			alloc := hostiletest.Allocated(func() { _, err = r.Rerank(ctx, "sea level", docs(32, "a document")) })
			t.Logf("%s: allocated %s while answering a %s body; error: %v", tc.name, hostiletest.MiB(alloc), hostiletest.MiB(body), err)
			if !errors.Is(err, remoteerr.ErrBadResponse) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadResponse naming %q", err, tc.want)
			}
			if alloc > 4<<20 {
				t.Errorf("allocated %s refusing the answer, want at most 4 MiB", hostiletest.MiB(alloc))
			}
			if got := metricValue(t, m, "evidencefleet_model_errors_total", map[string]string{"kind": "bad_response"}); got != 1 {
				t.Errorf("bad_response errors %v, want 1", got)
			}
		})
	}
}

// asciiJSON is s as a JSON string the way Python's json.dumps writes it by
// default (ensure_ascii): every non-ASCII character as \uXXXX, beyond the
// BMP as a surrogate pair — the widest spelling a server may echo.
func asciiJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r > 0x7e:
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// A vLLM answer echoing 32 documents of 2 KiB of accented, CJK and emoji
// text, each escaped as Python does (up to three times its UTF-8 size),
// stays within its bound.
func TestRerankEchoingEscapedDocumentsPasses(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("Élévation du niveau de la mer 海面上昇 🌊 ", 60)[:2048]
	text = strings.ToValidUTF8(text, "")
	in := docs(32, text)
	f, srv := newFake(t, "/v1/rerank")
	var size atomic.Int64
	f.answer = func(w http.ResponseWriter, n int) bool {
		var b strings.Builder
		b.WriteString(`{"id":"rerank-1","model":"m","usage":{"total_tokens":9000},"results":[`)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `{"index": %d, "document": {"text": %s, "multi_modal": null}, "relevance_score": 0.%d}`, i, asciiJSON(in[i]), 9-i%10)
		}
		b.WriteString(`]}`)
		size.Store(int64(b.Len()))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(b.String()))
		return true
	}
	r, err := New(Options{BaseURL: srv.URL, Model: "m", HTTP: testHTTP(nil, 5*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	scores, err := r.Rerank(ctx, "sea level", in)
	if err != nil || len(scores) != 32 {
		t.Fatalf("Rerank = %d scores, %v; want 32", len(scores), err)
	}
	t.Logf("an answer of %s for 32 documents of %d bytes passed", hostiletest.MiB(uint64(size.Load())), len(in[0]))
}
