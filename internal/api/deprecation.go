package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// Deprecation is how an operation leaves the API (CHANGELOG.md, "Versions
// and deprecation"): from Since it is deprecated (marked so in the
// document), and from Sunset, at the earliest 6 months later, it may be
// gone. Its answers say so meanwhile: Deprecation (RFC 9745), Sunset (RFC
// 8594) and a Link to what replaces it.
type Deprecation struct {
	Since  time.Time
	Sunset time.Time
	Link   string // the changelog entry or the operation that replaces it
}

// deprecationKey holds an operation's Deprecation in its Metadata.
const deprecationKey = "evidencefleet.deprecation"

// deprecate marks op deprecated by d.
func deprecate(op *huma.Operation, d Deprecation) {
	op.Deprecated = true
	if op.Metadata == nil {
		op.Metadata = map[string]any{}
	}
	op.Metadata[deprecationKey] = d
	op.Description += "\n\nDeprecated since " + d.Since.UTC().Format(time.DateOnly) + "; removed at the earliest on " +
		d.Sunset.UTC().Format(time.DateOnly) + ". See " + d.Link + "."
}

// announceDeprecation is the /v1 middleware that puts a deprecated
// operation's Deprecation, Sunset and Link headers on each of its
// answers.
func announceDeprecation(ctx huma.Context, next func(huma.Context)) {
	if d, ok := ctx.Operation().Metadata[deprecationKey].(Deprecation); ok {
		ctx.SetHeader("Deprecation", "@"+strconv.FormatInt(d.Since.Unix(), 10))
		ctx.SetHeader("Sunset", d.Sunset.UTC().Format(http.TimeFormat))
		ctx.SetHeader("Link", "<"+d.Link+`>; rel="deprecation"`)
	}
	next(ctx)
}
