package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/humatest"
)

// TestDeprecatedOperationsSaySo: a deprecated operation is marked so in
// the document, and its answers carry Deprecation, Sunset and Link;
// another operation's carry none.
func TestDeprecatedOperationsSaySo(t *testing.T) {
	t.Parallel()
	_, api := humatest.New(t)
	api.UseMiddleware(announceDeprecation)
	since := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	old := huma.Operation{OperationID: "old", Method: http.MethodGet, Path: "/old"}
	deprecate(&old, Deprecation{Since: since, Sunset: since.AddDate(0, 6, 0), Link: "/v1/docs#new"})
	answer := func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }
	huma.Register(api, old, answer)
	huma.Register(api, huma.Operation{OperationID: "new", Method: http.MethodGet, Path: "/new"}, answer)

	resp := api.Get("/old")
	for header, want := range map[string]string{
		"Deprecation": "@1796083200",
		"Sunset":      "Tue, 01 Jun 2027 00:00:00 GMT",
		"Link":        `</v1/docs#new>; rel="deprecation"`,
	} {
		if got := resp.Header().Get(header); got != want {
			t.Errorf("%s: %q, want %q", header, got, want)
		}
	}
	if got := api.Get("/new").Header().Get("Deprecation"); got != "" {
		t.Errorf("an operation not deprecated answers Deprecation %q", got)
	}
	op := api.OpenAPI().Paths["/old"].Get
	if !op.Deprecated || !strings.Contains(op.Description, "2027-06-01") {
		t.Errorf("the document: deprecated %v, description %q", op.Deprecated, op.Description)
	}
}
