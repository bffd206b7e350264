// Package api is the fleet's versioned HTTP API for other programs
// (ARCHITECTURE.md §5.7): the operations of internal/service as JSON over
// HTTP under /v1, described by an OpenAPI 3.1 document at /v1/openapi.json
// that huma derives from the handlers themselves, so the two cannot drift.
//
// Every /v1 operation needs an organization's bearer token: the token
// decides the organization, and another organization's task, claim or edge
// is 404 exactly as one that does not exist. Operator tokens reach only the
// operator's pages (River UI under /riverui/), never an organization's
// rows. Request bodies are bounded (413), lists are pages with a cursor,
// and each token has a request rate (429 with Retry-After).
package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/metrics"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/internal/version"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// Caller is who a bearer token stands for.
type Caller struct {
	TokenID  int64
	Org      string // empty for an operator
	Operator bool
	Name     string // the token's name; set for a browser session's caller
}

// ErrUnauthenticated is what an Authenticate returns for a malformed,
// unknown or revoked token.
var ErrUnauthenticated = errors.New("invalid or revoked token")

// Authenticate resolves a bearer token's secret to its caller, or
// ErrUnauthenticated; any other error is the token store's failure.
type Authenticate func(ctx context.Context, secret string) (Caller, error)

// Limiter keeps each token's request rate and open event streams, by key
// ("token:<id>"); an error is its store's failure.
type Limiter interface {
	// Allow takes one request of the key's budget, if one is left.
	Allow(ctx context.Context, key string) (Allowance, error)
	// OpenStream records one more open event stream of the key, a lease
	// of the given length, unless it holds most already.
	OpenStream(ctx context.Context, key string, most int, lease time.Duration) (slot StreamSlot, ok bool, err error)
}

// Allowance is what Allow took of a key's request budget (a token bucket).
type Allowance struct {
	Taken bool          // the request may go on
	Wait  time.Duration // when not taken, until one request is left
	Left  float64       // requests left after this one (fractions refill)
	Burst int           // the most the budget holds; 0 when there is no limit
	Rate  float64       // requests per second it refills at
}

// StreamSlot is one open event stream's place among its token's.
type StreamSlot interface {
	// Renew extends the slot's lease by its length from now: false when
	// the lease lapsed already (the slot may be another stream's now).
	Renew(ctx context.Context) (bool, error)
	// Release gives the slot up, whatever became of the request.
	Release()
}

// Options configure a Handler.
type Options struct {
	Service      *service.Service
	Authenticate Authenticate
	Logger       *slog.Logger
	// Rate is each token's sustained request rate per second and Burst
	// its burst; Rate 0 turns the limit off. They bound this process
	// alone unless Limits is set.
	Rate  float64
	Burst int
	// Limits, when set, keeps the request rates and open event streams
	// instead of this process's own counters: the API server shares them
	// in Postgres among its replicas.
	Limits Limiter
	// Failures bound the refused tokens of each client address (none
	// when its Rate is 0).
	Failures FailureLimits
	// FailureGate, when set, keeps those refusals instead of one made from
	// Failures: the process's other surfaces (the console) share it.
	FailureGate *Failures
	// TokenLive, when set, is asked every Events.Recheck whether an open
	// event stream's token is still live; the stream ends when it is not
	// (revoked or expired).
	TokenLive func(ctx context.Context, tokenID int64) (bool, error)
	// RiverUI, when set, is served under /riverui/ to operators only,
	// behind the browser guard (internal/browsersafe).
	RiverUI http.Handler
	// Sessions, when set, lets an operator's browser log in to River UI
	// with a form (/riverui/login) that sets a session cookie.
	Sessions Sessions
	// Console, when set, is the reviewers' console (internal/console),
	// served under /ui/; / sends a browser there.
	Console http.Handler
	// TrustProxy: the API is behind a proxy that sets X-Forwarded-Proto
	// and X-Forwarded-Host, which then stand for the request's scheme and
	// host (browser surfaces' origin check, Secure cookies).
	TrustProxy bool
	// MCP, when set, is the MCP server's streamable HTTP handler, served at
	// /mcp; it checks bearer tokens itself.
	MCP http.Handler
	// Events tunes the task event stream; zero values take the defaults.
	Events EventOptions
	// Metrics, when set, counts the requests answered, their latency and
	// the open event streams (evidencefleet_api_*).
	Metrics *metrics.Metrics
}

// Title and Version name the API in its OpenAPI document.
const (
	Title   = "evidencefleet API"
	Version = "1.0.0"
)

// Handler is the API's HTTP handler: /v1 (with /v1/openapi.json and the
// documentation at /v1/docs), /riverui/ and /mcp when configured.
func Handler(opts Options) http.Handler {
	if opts.Logger == nil {
		opts.Logger = discardLogger()
	}
	opts.Logger = slog.New(requestIDLogs{opts.Logger.Handler()})
	mux := http.NewServeMux()
	if opts.Limits == nil {
		opts.Limits = newLocalLimits(opts.Rate, opts.Burst)
	}
	fails := opts.FailureGate
	if fails == nil {
		fails = NewFailures(opts.Failures)
	}
	newAPI(mux, opts, fails)
	mux.Handle("GET /v1/docs/", docsPage())
	if opts.RiverUI != nil {
		mux.Handle("/riverui/", opts.Metrics.InstrumentAPI("riverui", operatorSurface(opts, fails, opts.RiverUI)))
	}
	if opts.Console != nil {
		mux.Handle("/ui/", opts.Metrics.InstrumentAPI("console", opts.Console))
		mux.Handle("GET /{$}", http.RedirectHandler("/ui/", http.StatusSeeOther))
	}
	if opts.MCP != nil {
		mcp := opts.Metrics.InstrumentAPI("mcp", limitMCP(opts, fails, opts.MCP))
		mux.Handle("/mcp", mcp)
		mux.Handle("/mcp/", mcp)
	}
	return outer(mux, opts.Logger)
}

// jsonFormat is huma's JSON format, but a request body holding text that
// is not valid UTF-8 or a lone surrogate escape is refused (400) naming its
// field (jobs.CheckJSONText: "claims[2]: lone surrogate"), where
// encoding/json would hand the operation U+FFFD in its place. Every /v1
// body is decoded here.
var jsonFormat = huma.Format{
	Marshal: huma.DefaultJSONFormat.Marshal,
	Unmarshal: func(data []byte, v any) error {
		if err := jobs.CheckJSONText(data); err != nil {
			return err
		}
		return huma.DefaultJSONFormat.Unmarshal(data, v)
	},
}

// discardLogger is the logger of Options without one.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// newAPI registers every /v1 operation on mux and returns the huma API
// (its OpenAPI document is the one served).
func newAPI(mux *http.ServeMux, opts Options, fails *Failures) huma.API {
	cfg := huma.DefaultConfig(Title, Version)
	cfg.OpenAPIPath = "/v1/openapi"
	cfg.DocsPath = "" // served from embedded assets instead (docsPage)
	cfg.SchemasPath = "/v1/schemas"
	cfg.Info.Description = "The evidencefleet service API: tasks, claims, targets, status, evidence of record with exact spans, citation checks and reviewer feedback, for one organization per token. Built by worker " + version.String() + "."
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", Description: "An organization token made by `enqueue org token create --org ORG`."},
	}
	cfg.Security = []map[string][]string{{"bearer": {}}}
	cfg.Servers = []*huma.Server{{URL: "/", Description: "The address this document is served from."}}
	cfg.Formats = map[string]huma.Format{"application/json": jsonFormat, "json": jsonFormat}
	api := humago.New(mux, cfg)
	g := &guard{opts: opts, api: api, failures: fails}
	api.UseMiddleware(measure(opts.Metrics), announceDeprecation, g.middleware)
	h := &handlers{svc: opts.Service, log: opts.Logger, events: opts.Events.withDefaults(), limits: opts.Limits, metrics: opts.Metrics,
		tokenLive: opts.TokenLive}
	h.register(api)
	registerProblemPages(api)
	documentOnlyTheirErrors(api)
	return api
}
