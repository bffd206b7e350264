package api

import (
	"fmt"
	"net/http"
	"net/http/httptest"

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
	rec := httptest.NewRecorder()
	Handler(Options{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/openapi.json", nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("openapi document: status %d", rec.Code)
	}
	return rec.Body.Bytes(), nil
}
