package api

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/swaggest/swgui"
	"github.com/swaggest/swgui/v5emb"
)

// docsPage is the API's documentation at /v1/docs/ (and /v1/docs, which
// the mux sends there): Swagger UI rendering /v1/openapi.json, its script
// and styles served from assets built into the binary, so it works
// without internet (no CDN, no validator badge), and its "Try it out"
// sends requests to this API with the token given under Authorize.
func docsPage() http.Handler {
	return v5emb.NewWithConfig(swgui.Config{HideCurl: false})(Title, "/v1/openapi.json", "/v1/docs/")
}

// Document is the API's OpenAPI document as /v1/openapi.json serves it,
// made without a database (for client generators and linters: `worker
// api openapi`).
func Document() ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, "/v1/openapi.json", nil)
	if err != nil {
		return nil, err
	}
	var w documentWriter
	Handler(Options{}).ServeHTTP(&w, req)
	if w.status != 0 && w.status != http.StatusOK {
		return nil, fmt.Errorf("openapi document: status %d", w.status)
	}
	return w.body.Bytes(), nil
}

// documentWriter keeps what Document's request was answered.
type documentWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *documentWriter) Header() http.Header {
	if w.header == nil {
		w.header = http.Header{}
	}
	return w.header
}
func (w *documentWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *documentWriter) WriteHeader(status int)      { w.status = status }
