package api

import (
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
