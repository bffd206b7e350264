package api

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"golang.org/x/time/rate"
)

// guard is the middleware every /v1 operation goes through: the client
// address's refused tokens (429 with Retry-After, before anything else),
// the bearer token (401), an organisation's and not an operator's (403),
// and the token's request rate (429 with Retry-After).
type guard struct {
	opts     Options
	api      huma.API
	failures *failures
}

// tooManyFailures is the answer to an address past its refused tokens.
const tooManyFailures = "too many invalid tokens from this address; retry after the Retry-After seconds"

type callerKey struct{}

// callerOf is the caller the guard let through.
func callerOf(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

func (g *guard) middleware(ctx huma.Context, next func(huma.Context)) {
	r, _ := humago.Unwrap(ctx)
	if wait, refused := g.failures.refused(r); refused {
		ctx.SetHeader("Retry-After", retryAfter(wait))
		_ = huma.WriteErr(g.api, ctx, http.StatusTooManyRequests, tooManyFailures)
		return
	}
	caller, status, msg := g.check(ctx.Context(), ctx.Header("Authorization"))
	if status != 0 {
		if status == http.StatusUnauthorized {
			if _, given := bearer(ctx.Header("Authorization")); given {
				g.failures.failed(r)
			}
			ctx.SetHeader("WWW-Authenticate", `Bearer realm="evidencefleet"`)
		}
		_ = huma.WriteErr(g.api, ctx, status, msg)
		return
	}
	if caller.Operator {
		_ = huma.WriteErr(g.api, ctx, http.StatusForbidden, "an operator token does not act for an organisation; use an organisation token (enqueue org token create --org ORG)")
		return
	}
	if status, retry, msg := takeRequest(ctx.Context(), g.opts, caller.TokenID); status != 0 {
		if retry != "" {
			ctx.SetHeader("Retry-After", retry)
		}
		_ = huma.WriteErr(g.api, ctx, status, msg)
		return
	}
	next(huma.WithValue(ctx, callerKey{}, caller))
}

// check authenticates an Authorization header: the caller, or the status
// and message to answer with. The secret never reaches a log line.
func (g *guard) check(ctx context.Context, header string) (Caller, int, string) {
	secret, ok := bearer(header)
	if !ok {
		return Caller{}, http.StatusUnauthorized, "a bearer token is required (Authorization: Bearer TOKEN)"
	}
	return g.authenticate(ctx, secret)
}

// bearer is the secret of an Authorization: Bearer header.
func bearer(header string) (string, bool) {
	scheme, secret, ok := strings.Cut(header, " ")
	secret = strings.TrimSpace(secret)
	return secret, ok && strings.EqualFold(scheme, "Bearer") && secret != ""
}

func (g *guard) authenticate(ctx context.Context, secret string) (Caller, int, string) {
	caller, err := g.opts.Authenticate(ctx, secret)
	switch {
	case errors.Is(err, ErrUnauthenticated):
		return Caller{}, http.StatusUnauthorized, "the bearer token is not valid, was revoked or has expired"
	case err != nil:
		g.opts.Logger.Error("api: token check failed", "err", err)
		return Caller{}, http.StatusServiceUnavailable, "the token store cannot be reached; retry later"
	}
	return caller, 0, ""
}

// tokenKey is the key of a token's request budget and open streams: the
// /v1 routes and /mcp share it.
func tokenKey(id int64) string { return "token:" + strconv.FormatInt(id, 10) }

// retryAfter is a Retry-After value: whole seconds, at least 1.
func retryAfter(wait time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(wait.Seconds()))))
}

// takeRequest takes one request of the token's budget: status 0 when it
// may go on, else 429 (with the Retry-After value) or 503 when the budget
// cannot be read, and the message to answer with.
func takeRequest(ctx context.Context, opts Options, tokenID int64) (status int, retry, msg string) {
	wait, ok, err := opts.Limits.Allow(ctx, tokenKey(tokenID))
	switch {
	case err != nil:
		opts.Logger.Error("api: rate check failed", "err", err)
		return http.StatusServiceUnavailable, "", "the request rate cannot be checked; retry later"
	case !ok:
		return http.StatusTooManyRequests, retryAfter(wait), "request rate of this token exceeded; retry after the Retry-After seconds"
	}
	return 0, "", ""
}

// AuthenticatedCaller is the caller whose token the API checked for this
// request already (the MCP transport's verifier reads it instead of
// checking the token a second time).
func AuthenticatedCaller(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// limitMCP gives the requests to h (the MCP transport, which checks
// tokens itself) the request rate of their token: a request with a valid
// token is counted against it (429 with Retry-After past it) and goes on
// with its caller in its context (AuthenticatedCaller); one without goes
// on to h, which refuses it. Keyed by the token's id, like /v1, so that a
// flood of made-up secrets makes no state.
func limitMCP(opts Options, fails *failures, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wait, refused := fails.refused(r); refused {
			w.Header().Set("Retry-After", retryAfter(wait))
			http.Error(w, tooManyFailures, http.StatusTooManyRequests)
			return
		}
		if secret, ok := bearer(r.Header.Get("Authorization")); ok {
			caller, err := opts.Authenticate(r.Context(), secret)
			if errors.Is(err, ErrUnauthenticated) {
				fails.failed(r) // h refuses it (its second look is the token store's negative cache)
			}
			if err == nil {
				if status, retry, msg := takeRequest(r.Context(), opts, caller.TokenID); status != 0 {
					if retry != "" {
						w.Header().Set("Retry-After", retry)
					}
					http.Error(w, msg, status)
					return
				}
				r = r.WithContext(context.WithValue(r.Context(), callerKey{}, caller))
			}
		}
		h.ServeHTTP(w, r)
	})
}

// localLimits is the Limiter of a Handler given none: this process's own
// token buckets and stream counts.
type localLimits struct {
	buckets *limiters
	streams openStreams
}

func newLocalLimits(perSecond float64, burst int) *localLimits {
	return &localLimits{buckets: newLimiters(perSecond, burst)}
}

func (l *localLimits) Allow(_ context.Context, key string) (time.Duration, bool, error) {
	wait, ok := l.buckets.allow(key)
	return wait, ok, nil
}

func (l *localLimits) OpenStream(_ context.Context, key string, most int, _ time.Duration) (StreamSlot, bool, error) {
	if !l.streams.take(key, most) {
		return nil, false, nil
	}
	return localSlot(func() { l.streams.give(key) }), true, nil
}

// localSlot is a stream slot of this process: it lives as long as the
// process, so there is no lease to renew.
type localSlot func()

func (localSlot) Renew(context.Context) (bool, error) { return true, nil }
func (s localSlot) Release()                          { s() }

// limiters holds one token bucket per token. The map is bounded: past
// maxLimiters tokens it starts afresh (a burst more for each, never fewer).
type limiters struct {
	mu    sync.Mutex
	rate  rate.Limit
	burst int
	by    map[string]*rate.Limiter
}

const maxLimiters = 10000

func newLimiters(perSecond float64, burst int) *limiters {
	if burst < 1 {
		burst = 1
	}
	return &limiters{rate: rate.Limit(perSecond), burst: burst, by: map[string]*rate.Limiter{}}
}

// allow takes one request of the key's budget: false with the wait until
// the next is allowed when there is none left.
func (l *limiters) allow(key string) (time.Duration, bool) {
	if l.rate <= 0 {
		return 0, true
	}
	l.mu.Lock()
	lim, ok := l.by[key]
	if !ok {
		if len(l.by) >= maxLimiters {
			clear(l.by)
		}
		lim = rate.NewLimiter(l.rate, l.burst)
		l.by[key] = lim
	}
	l.mu.Unlock()
	now := time.Now()
	r := lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}
