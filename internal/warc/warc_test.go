package warc

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestRecordedHeader: a capture keeps a response's headers but the
// hop-by-hop, encoding and cookie ones, none with a line break, at most
// MaxRecordedHeaderBytes of them, and FormatHeader's lines read back.
func TestRecordedHeader(t *testing.T) {
	t.Parallel()
	h := http.Header{"Content-Type": {"text/html"}, "Set-Cookie": {"s=1"}, "Content-Encoding": {"gzip"}, "Connection": {"close"},
		"A-Split": {"a\r\nInjected: yes", "fine"}, "Etag": {`"v1"`}}
	for i := range 2000 {
		h.Add("X-Padding", fmt.Sprintf("%04d %s", i, strings.Repeat("p", 40)))
	}
	got := RecordedHeader(h)
	text := FormatHeader(got)
	if len(text) > MaxRecordedHeaderBytes {
		t.Errorf("%d bytes of headers kept, more than %d", len(text), MaxRecordedHeaderBytes)
	}
	for _, gone := range []string{"Set-Cookie", "Content-Encoding", "Connection", "Injected"} {
		if strings.Contains(text, gone) {
			t.Errorf("the kept headers have %s", gone)
		}
	}
	if got.Get("Content-Type") != "text/html" || got.Get("Etag") != `"v1"` || got.Get("A-Split") != "fine" || len(got.Values("X-Padding")) == 0 {
		t.Errorf("kept %v", got)
	}
	if back := ParseHeader(text); !reflect.DeepEqual(back, got) {
		t.Errorf("FormatHeader's lines read back as %d headers, want %d", len(back), len(got))
	}
}

// TestRequestRecord: a capture whose request was recorded is written as
// its response record, then a request record concurrent to it holding the
// GET it answered (request line, Host, its headers but credentials and
// cookies); the index line is still the response's.
func TestRequestRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.warc.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	ww, err := NewWriter(f, "test", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	c := Capture{URL: "https://example.org/a/b?c=1", Date: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Status: 200,
		Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<p>hi</p>"),
		Request: RecordedRequest(http.Header{"User-Agent": {"evidencefleet"}, "Accept-Encoding": {"gzip"}, "Cookie": {"s=1"}, "Authorization": {"Bearer x"}})}
	w, err := ww.Write(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewFileReader(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var types []string
	var responseID, concurrent, request string
	for {
		next, err := r.Next()
		if err != nil {
			break
		}
		rec, offset := next.WarcRecord, next.Offset
		types = append(types, rec.Type().String())
		switch rec.Type().String() {
		case "response":
			responseID = rec.WarcHeader().Get("WARC-Record-ID")
			if offset != w.Offset {
				t.Errorf("the response is at %d, Written says %d", offset, w.Offset)
			}
		case "request":
			concurrent = rec.WarcHeader().Get("WARC-Concurrent-To")
			rd, err := rec.Block().RawBytes()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rd)
			request = string(b)
		}
		rec.Close()
	}
	if strings.Join(types, ",") != "warcinfo,response,request" {
		t.Fatalf("records %v, want warcinfo, response, request", types)
	}
	if concurrent == "" || concurrent != responseID {
		t.Errorf("the request is concurrent to %q, the response is %q", concurrent, responseID)
	}
	want := "GET /a/b?c=1 HTTP/1.1\r\nHost: example.org\r\nAccept-Encoding: gzip\r\nUser-Agent: evidencefleet\r\n\r\n"
	if request != want {
		t.Errorf("the request record holds %q, want %q", request, want)
	}
}
