package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/evidencefleet/evidencefleet/internal/harness/repodata"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

func TestBoundedReader(t *testing.T) {
	t.Parallel()
	b := Bound{Bytes: 10, What: "a test"}
	// Exactly the bound: read to EOF.
	got, err := io.ReadAll(NewBoundedReader(strings.NewReader("0123456789"), b))
	if err != nil || string(got) != "0123456789" {
		t.Fatalf("10 bytes within 10: %q, %v", got, err)
	}
	// One byte more: the first 10 are handed out, then the error.
	br := NewBoundedReader(iotest.OneByteReader(strings.NewReader("0123456789X")), b)
	got, err = io.ReadAll(br)
	var tl *TooLargeError
	if string(got) != "0123456789" || !errors.As(err, &tl) || !errors.Is(err, remoteerr.ErrBadResponse) || br.TooLarge() == nil {
		t.Fatalf("11 bytes within 10: %q, %v", got, err)
	}
	if err.Error() != "answer over 10 bytes for a test" || string(br.Head()) != "0123456789" || br.ReadErr() != nil {
		t.Fatalf("error %q, head %q, read error %v", err, br.Head(), br.ReadErr())
	}
	if n, err := br.Read(make([]byte, 4)); n != 0 || !errors.As(err, &tl) {
		t.Fatalf("read after the bound: %d, %v", n, err)
	}
	// A failing reader is told apart from a bound.
	cut := errors.New("connection reset")
	br = NewBoundedReader(io.MultiReader(strings.NewReader("01"), iotest.ErrReader(cut)), b)
	if _, err := io.ReadAll(br); !errors.Is(err, cut) || !errors.Is(br.ReadErr(), cut) || br.TooLarge() != nil {
		t.Fatalf("cut body: %v, read error %v", err, br.ReadErr())
	}
}

func TestFormatBytesAndBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		b    Bound
		want string
	}{
		{Bound{Bytes: 999, What: "x"}, "999 bytes for x"},
		{Bound{Bytes: 20 << 10, What: "x"}, "20 KiB for x"},
		{EmbeddingsBound(32, 1024), "1.5 MiB for a batch of 32 embeddings of 1024 dimensions"},
		{EmbeddingsBound(64, 0), "24 MiB for a batch of 64 embeddings (dimension not known yet, at most 8192 assumed)"},
		{EmbeddingsBound(1, 0), "400.2 KiB for one embedding (dimension not known yet, at most 8192 assumed)"},
		{ChatBound(4096), "272 KiB for a chat answer of at most 4096 tokens"},
		{PredictionsBound(32, 3, 13), "39.3 KiB for predictions of 3 labels for a batch of 32 inputs"},
		{RanksBound(make([]string, 32), false), "20 KiB for a rerank of 32 documents"},
	} {
		if got := tc.b.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.b, got, tc.want)
		}
	}
}

// The widest answers the bounds allow for fit in them: OpenAI's
// pretty-printed embeddings (Python's indent=4 even) of 24-character
// numbers, and a rerank echoing documents every byte of which is escaped.
func TestWidestAnswersFitTheirBounds(t *testing.T) {
	t.Parallel()
	const n, dim = 8, 512
	v := make([]json.Number, dim)
	for i := range v {
		v[i] = "-2.2250738585072014e-308"
	}
	data := make([]any, n)
	for i := range data {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
	}
	for _, indent := range []string{"", "  ", "    "} {
		body, _ := json.MarshalIndent(map[string]any{"object": "list", "data": data, "model": strings.Repeat("m", 200),
			"usage": map[string]int{"prompt_tokens": 1 << 20, "total_tokens": 1 << 20}}, "", indent)
		if b := EmbeddingsBound(n, dim); int64(len(body)) > b.Bytes {
			t.Errorf("embeddings indented by %q: %d bytes over %s", indent, len(body), b)
		}
	}
	docs := []string{strings.Repeat("\x01", 300), "", "short"}
	results := make([]any, len(docs))
	for i, d := range docs {
		results[i] = map[string]any{"index": i, "relevance_score": -1.2345678901234567e-300, "document": map[string]string{"text": d}}
	}
	body, _ := json.MarshalIndent(map[string]any{"id": "rerank-1", "model": "m", "results": results,
		"usage": map[string]int{"total_tokens": 1 << 20}}, "", "    ")
	if b := RanksBound(docs, true); int64(len(body)) > b.Bytes {
		t.Errorf("rerank echoing escaped texts: %d bytes over %s", len(body), b)
	}
}

func TestBoundInContext(t *testing.T) {
	t.Parallel()
	if _, ok := BoundOf(context.Background()); ok {
		t.Fatal("a bound in a bare context")
	}
	b := ChatBound(256)
	if got, ok := BoundOf(WithBound(context.Background(), b)); !ok || got != b {
		t.Fatalf("BoundOf = %v, %v; want %v", got, ok, b)
	}
}

// page is an answer of the shape the clients read: an object with a list.
type page struct {
	Next    *int            `json:"next"`
	Data    []item          `json:"data"`
	Results *[]item         `json:"results"`
	Meta    struct{ N int } `json:"meta"`
	Name    string          // no tag: matched by the field name
	Skipped string          `json:"-"`
}

type item struct {
	ID    string   `json:"id"`
	Score *float64 `json:"score"`
}

// DecodeJSON decodes what encoding/json decodes, the same way, and refuses
// what it refuses, plus null and trailing data.
func TestDecodeJSONAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"next": 3, "data": [{"id": "a", "score": 0.5}, {"id": "b"}], "results": [{"id": "c"}], "meta": {"N": 2}, "Name": "x"}`,
		`{"DATA": [{"id": "a"}], "name": "folded", "unknown": {"deep": [1, 2, {"x": null}]}, "-": "no"}`,
		`{"data": null, "results": null}`,
		`{"data": [], "results": []}`,
		`{"data": [{"id": "a"}], "data": [{"id": "b"}, {"id": "c"}]}`,
		`  {"data": [{"id": 5}]}`,
		`{"data": {"id": "a"}}`,
		`{"data": [{"id": "a"}`,
		`{"next": "x"}`,
		"{\n  \"data\" :\t[ {\"id\": \"a  \\\"  b\\\\\" } ],\r\n \"Name\": \"x \\n\\t  y\"\n}\n",
		`{"data": [{"id": "\\"}, {"id": "  \"  "}]}`,
	} {
		var want, got page
		werr := json.Unmarshal([]byte(in), &want)
		gerr := DecodeJSON(strings.NewReader(in), Bound{}, &got)
		if (werr == nil) != (gerr == nil) || (werr == nil && !reflect.DeepEqual(got, want)) {
			t.Errorf("%s:\n DecodeJSON %+v, %v\n Unmarshal  %+v, %v", in, got, gerr, want, werr)
		}
	}
	for _, in := range []string{`[[1, 2], [3]]`, `[]`, `[[1, "x"]]`, `{"a": 1}`, `[[1]`, `[[1 2]]`, "[[1\n\n2]]", `[[tr ue]]`} {
		var want, got [][]int
		werr := json.Unmarshal([]byte(in), &want)
		gerr := DecodeJSON(strings.NewReader(in), Bound{}, &got)
		if (werr == nil) != (gerr == nil) || (werr == nil && !reflect.DeepEqual(got, want)) {
			t.Errorf("%s: DecodeJSON %v, %v; Unmarshal %v, %v", in, got, gerr, want, werr)
		}
	}
	var raw json.RawMessage
	if err := DecodeJSON(strings.NewReader(` [1, {"a": 2}] `), Bound{}, &raw); err != nil || string(raw) != `[1, {"a": 2}]` {
		t.Errorf("RawMessage: %s, %v", raw, err)
	}
	for _, in := range []string{`null`, ` null `, `{"data": []} {}`, `[1] ]`, ``} {
		var p []int
		if err := DecodeJSON(strings.NewReader(in), Bound{}, &p); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// The recorded Semantic Scholar pages decode as encoding/json decodes them.
func TestDecodeJSONRecordedPages(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(repodata.Path(t, append(repodata.S2Fixtures, "Paper.json")...))
	if err != nil {
		t.Fatal(err)
	}
	var want, got map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if err := DecodeJSON(bytes.NewReader(raw), Bound{}, &got); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Paper.json decoded differently: %v", err)
	}
	type paper struct {
		Title     string `json:"title"`
		Citations []struct {
			PaperID string `json:"paperId"`
			Title   string `json:"title"`
		} `json:"citations"`
	}
	var wp, gp paper
	_ = json.Unmarshal(raw, &wp)
	if err := DecodeJSON(bytes.NewReader(raw), Bound{}, &gp); err != nil || !reflect.DeepEqual(gp, wp) || len(gp.Citations) != 100 {
		t.Fatalf("Paper.json as a struct: %d citations, %v", len(gp.Citations), err)
	}
}

// A list's raw text is never held whole: decoding 16 MiB of items whose
// decoded form is small allocates a small part of it (a whole-value decoder
// buffers all 16 MiB).
func TestDecodeJSONStreamsLists(t *testing.T) {
	pad := strings.Repeat("x", 16<<10)
	var b bytes.Buffer
	b.WriteString(`[`)
	for i := range 1024 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"%d","skip":"%s"}`, i, pad)
	}
	b.WriteString(`]`)
	list := b.Bytes()
	object := append(append([]byte(`{"meta":{"N":1},"data":`), list...), '}')
	for _, tc := range []struct {
		name string
		body []byte
		out  func() any
		n    func(any) int
	}{
		{"top-level array", list, func() any { return &[]item{} }, func(v any) int { return len(*v.(*[]item)) }},
		{"array field", object, func() any { return &page{} }, func(v any) int { return len(v.(*page).Data) }},
	} {
		out := tc.out()
		var err error
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err = DecodeJSON(bytes.NewReader(tc.body), Bound{}, out)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes decoded with %d bytes allocated", tc.name, len(tc.body), alloc)
		if err != nil || tc.n(out) != 1024 {
			t.Fatalf("%s: %d items, %v", tc.name, tc.n(out), err)
		}
		if alloc > 4<<20 {
			t.Errorf("%s: allocated %d bytes for 16 MiB of input, want at most 4 MiB", tc.name, alloc)
		}
	}
}

// A list longer than the request's limit is refused as soon as its next
// element starts, whatever its bytes; lists inside the elements are the
// elements' own.
func TestDecodeJSONBoundsListItems(t *testing.T) {
	t.Parallel()
	b := Bound{Bytes: 1 << 20, Items: 2, What: "a page of 2 things"}
	var tl *TooLargeError
	var ints []int
	if err := DecodeJSON(strings.NewReader(`[1,2,3]`), b, &ints); !errors.As(err, &tl) || !errors.Is(err, remoteerr.ErrBadResponse) ||
		err.Error() != "answer of more than 2 items for a page of 2 things" {
		t.Errorf("3 items within 2: %v", err)
	}
	var p page
	if err := DecodeJSON(strings.NewReader(`{"data":[{},{},{}]}`), b, &p); !errors.As(err, &tl) {
		t.Errorf("a field of 3 items within 2: %v", err)
	}
	var nested [][]int
	if err := DecodeJSON(strings.NewReader(`[[1,2,3,4],[5]]`), b, &nested); err != nil || len(nested[0]) != 4 {
		t.Errorf("2 items of their own lengths: %v, %v", nested, err)
	}
	if err := DecodeJSON(strings.NewReader(`{"data":[{"id":"a"},{"id":"b"}],"results":[{"id":"c"}]}`), b, &p); err != nil || len(p.Data) != 2 {
		t.Errorf("2 items within 2: %+v, %v", p, err)
	}
}

func TestSqueezeSpace(t *testing.T) { // not parallel: it measures allocation
	in := "{\n    \"a\":  [1,\n        2],\t\"b\": \"  x \\\"  y \\\\\",  \"c\":\"\"  }  \n"
	want := "{ \"a\": [1, 2], \"b\": \"  x \\\"  y \\\\\", \"c\":\"\" } "
	for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in))} {
		got, err := io.ReadAll(SqueezeSpace(r))
		if err != nil || string(got) != want {
			t.Errorf("squeezed %q, %v; want %q", got, err, want)
		}
	}
	// 16 MiB of padding cost a decoder nothing.
	padded := io.MultiReader(strings.NewReader(`{"a": [1,`), strings.NewReader(strings.Repeat(" ", 16<<20)), strings.NewReader(`2]}`))
	var v struct{ A []int }
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := DecodeJSON(padded, Bound{}, &v)
	runtime.ReadMemStats(&after)
	if err != nil || len(v.A) != 2 || after.TotalAlloc-before.TotalAlloc > 1<<20 {
		t.Errorf("padded: %v, %v, %d bytes allocated", v, err, after.TotalAlloc-before.TotalAlloc)
	}
}
