// Package apiserver assembles the API process (`worker api`): the /v1 HTTP
// API (internal/api) and the MCP server's streamable HTTP transport at
// /mcp, both checking organization tokens against api_tokens
// (internal/apitoken), River UI under /riverui/ for operators (a login
// form that opens a session tied to the operator token, or a bearer
// operator token; same-origin writes only, internal/browsersafe), the
// reviewers' console under /ui/ for an organization's people
// (internal/console, its login opening the same kind of session), and
// /healthz and /readyz. It inserts jobs with an insert-only River client;
// the workers of the fleet do them.
package apiserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"riverqueue.com/riverui"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/belief"
	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/console"
	"github.com/evidencefleet/evidencefleet/internal/fleet"
	"github.com/evidencefleet/evidencefleet/internal/mcpserver"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/internal/verification"
	"github.com/evidencefleet/evidencefleet/migrations"
	"github.com/evidencefleet/evidencefleet/store"
)

// Options configure a Server.
type Options struct {
	Logger  *slog.Logger
	Rate    float64 // requests per second per token (0: no limit)
	Burst   int
	RiverUI bool // serve River UI under /riverui/ to operators
	// Console: serve the reviewers' console under /ui/ (internal/console).
	Console bool
	// SessionTTL is how long a browser login lasts (8h when 0).
	SessionTTL time.Duration
	// TrustProxy: X-Forwarded-Proto and X-Forwarded-Host stand for the
	// request's scheme and host on River UI (api.Options.TrustProxy).
	TrustProxy bool
	Events     api.EventOptions
	// Failures bound each client address's refused tokens (none when its
	// Rate is 0).
	Failures api.FailureLimits
	// Auth bounds the token store's memory of refused secrets (defaults
	// when zero).
	Auth apitoken.AuthOptions
	// Metrics holds the process's collectors (a new set when nil); its
	// registry is served by MetricsHandler.
	Metrics *metrics.Metrics
}

// Server is the API process's handler on one pool.
type Server struct {
	handler http.Handler
	ui      *riverui.Handler
	metrics *metrics.Metrics
}

// New builds the handler on pool. Start it before serving (River UI's
// background work) with Start.
func New(pool *pgxpool.Pool, opts Options) (*Server, error) {
	if opts.Metrics == nil {
		opts.Metrics = metrics.New()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	st := store.NewStore(pool)
	svc := service.New(st, client)
	tokens := apitoken.NewAuthenticatorWith(st, opts.Auth)
	s := &Server{metrics: opts.Metrics}
	fails := api.NewFailures(opts.Failures)
	browserSessions := sessions{st: st, tokens: tokens, ttl: cmp.Or(opts.SessionTTL, DefaultSessionTTL)}
	apiOpts := api.Options{Service: svc, Authenticate: Authenticate(tokens), Logger: opts.Logger, Metrics: opts.Metrics,
		Limits: &sharedLimits{st: st, rate: opts.Rate, burst: opts.Burst},
		MCP:    mcpserver.HTTPHandler(svc, MCPVerifier(tokens)), Events: opts.Events,
		Failures: opts.Failures, FailureGate: fails, TokenLive: tokens.Live, TrustProxy: opts.TrustProxy}
	if opts.Console {
		apiOpts.Console = console.Handler(console.Options{Service: svc, Authenticate: Authenticate(tokens), Sessions: browserSessions,
			Failures: fails, Logger: opts.Logger, TrustProxy: opts.TrustProxy, RiverUI: opts.RiverUI})
	}
	if opts.RiverUI {
		s.ui, err = riverui.NewHandler(&riverui.HandlerOpts{Endpoints: riverui.NewEndpoints(client, nil), Logger: opts.Logger, Prefix: "/riverui"})
		if err != nil {
			return nil, fmt.Errorf("river UI: %w", err)
		}
		apiOpts.RiverUI = s.ui
		apiOpts.Sessions = browserSessions
	}
	mux := http.NewServeMux()
	mux.Handle("/", api.Handler(apiOpts))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := pool.Ping(ctx); err != nil {
			http.Error(w, "not ready: database unreachable", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	s.handler = mux
	return s, nil
}

// Start starts River UI's background work (none without it); it stops
// with ctx.
func (s *Server) Start(ctx context.Context) error {
	if s.ui == nil {
		return nil
	}
	if err := s.ui.Start(ctx); err != nil {
		return fmt.Errorf("start river UI: %w", err)
	}
	return nil
}

// Handler is the process's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// MetricsHandler serves the process's metrics (evidencefleet_api_*, the
// pool's round trips) in the Prometheus format: GET /metrics.
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.Registry, promhttp.HandlerOpts{}))
	return mux
}

// Authenticate checks bearer secrets against the token store for the API.
func Authenticate(a *apitoken.Authenticator) api.Authenticate {
	return func(ctx context.Context, secret string) (api.Caller, error) {
		p, err := a.Authenticate(ctx, secret)
		if errors.Is(err, apitoken.ErrInvalidToken) {
			return api.Caller{}, api.ErrUnauthenticated
		}
		if err != nil {
			return api.Caller{}, err
		}
		return api.Caller{TokenID: p.TokenID, Org: p.Org, Operator: p.Operator()}, nil
	}
}

// DefaultSessionTTL is how long a River UI login lasts unless configured.
const DefaultSessionTTL = 8 * time.Hour

// sessions keeps browser sessions in browser_sessions (internal/apitoken):
// River UI's, which serves operators only (api checks the caller), and the
// console's.
type sessions struct {
	st     *store.Store
	tokens *apitoken.Authenticator
	ttl    time.Duration
}

func (s sessions) Open(ctx context.Context, tokenID int64) (string, time.Time, error) {
	secret, expires, err := apitoken.OpenSession(ctx, s.st, tokenID, s.ttl)
	if errors.Is(err, apitoken.ErrTokenNotLive) {
		return "", time.Time{}, api.ErrUnauthenticated
	}
	return secret, expires, err
}

func (s sessions) Caller(ctx context.Context, secret string) (api.Caller, error) {
	p, err := s.tokens.AuthenticateSession(ctx, secret)
	if errors.Is(err, apitoken.ErrInvalidSession) {
		return api.Caller{}, api.ErrUnauthenticated
	}
	if err != nil {
		return api.Caller{}, err
	}
	return api.Caller{TokenID: p.TokenID, Org: p.Org, Operator: p.Operator(), Name: p.Name}, nil
}

func (s sessions) Close(ctx context.Context, secret string) error {
	return apitoken.CloseSession(ctx, s.st, secret)
}

// MCPVerifier checks bearer secrets for the MCP transport: an
// organization's token acts for its organization (TokenInfo.UserID); an
// operator's is refused, as on /v1. A request whose token the API's rate
// check verified already (api.AuthenticatedCaller) is not looked up again.
func MCPVerifier(a *apitoken.Authenticator) auth.TokenVerifier {
	return func(ctx context.Context, secret string, _ *http.Request) (*auth.TokenInfo, error) {
		caller, ok := api.AuthenticatedCaller(ctx)
		if !ok {
			var err error
			if caller, err = Authenticate(a)(ctx, secret); err != nil {
				if errors.Is(err, api.ErrUnauthenticated) {
					return nil, auth.ErrInvalidToken
				}
				return nil, errors.New("the token store cannot be reached; retry later") // the cause stays out of the answer
			}
		}
		if caller.Operator {
			return nil, fmt.Errorf("%w: an operator token does not act for an organization", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{UserID: caller.Org, Extra: map[string]any{mcpserver.TokenIDKey: caller.TokenID}}, nil
	}
}

// Run serves the API process on cfg.APIAddr until ctx ends, then drains
// requests for up to cfg.ShutdownTimeout.
func Run(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	m := metrics.New()
	pool, err := fleet.NewPool(ctx, cfg, m)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := migrations.Check(ctx, pool); err != nil {
		return store.ExplainDB(err)
	}
	proxies, err := cfg.TrustedProxies()
	if err != nil {
		return err
	}
	streamsDone := make(chan struct{})
	s, err := New(pool, Options{Logger: log, Rate: cfg.APIRate, Burst: cfg.APIBurst, RiverUI: cfg.APIRiverUI, Console: cfg.APIConsole,
		SessionTTL: cfg.APISessionTTL, TrustProxy: cfg.APITrustProxy,
		Events:   api.EventOptions{Shutdown: streamsDone, Lease: cfg.APIStreamLease, Recheck: cfg.APIStreamRecheck},
		Failures: api.FailureLimits{Rate: cfg.APIAuthFailures, Burst: cfg.APIAuthBurst, TrustedProxies: proxies}, Metrics: m})
	if err != nil {
		return err
	}
	uiCtx, stopUI := context.WithCancel(ctx)
	defer stopUI()
	if err := s.Start(uiCtx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.APIAddr)
	if err != nil {
		return fmt.Errorf("EVF_API_ADDR %s: %w", cfg.APIAddr, err)
	}
	// No WriteTimeout: the task event stream is long-lived (its own
	// bound is api.EventOptions.MaxDuration); reads are bounded.
	// Requests carry the belief numbers (EVF_BELIEF_*) and the trust quorum
	// (EVF_TRUST_QUORUM_ORGS) that the store's
	// recomputations read (feedback, links).
	base := verification.WithQuorum(belief.WithParams(context.WithoutCancel(ctx), cfg.Belief.Params()), cfg.TrustQuorumOrgs)
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
		BaseContext: func(net.Listener) context.Context { return base }}
	srv.RegisterOnShutdown(func() { close(streamsDone) })
	// /metrics on an address of its own (EVF_API_METRICS_ADDR), so that
	// the API's port serves only the API.
	if cfg.APIMetricsAddr != "" {
		opsLn, err := net.Listen("tcp", cfg.APIMetricsAddr)
		if err != nil {
			return fmt.Errorf("EVF_API_METRICS_ADDR %s: %w", cfg.APIMetricsAddr, err)
		}
		ops := &http.Server{Handler: s.MetricsHandler(), ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = ops.Serve(opsLn) }()
		defer ops.Close()
		log.Info("api: metrics", "addr", opsLn.Addr().String())
	}
	log.Info("api: serving", "addr", ln.Addr().String(), "openapi", "/v1/openapi.json", "river_ui", cfg.APIRiverUI, "console", cfg.APIConsole)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("api server: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	return srv.Shutdown(shutdown)
}
