package warc

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
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
