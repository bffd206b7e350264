package api

import (
	"context"
	"errors"
	"fmt"
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
// the bearer token (401), an organization's and not an operator's (403),
// and the token's request rate (429 with Retry-After).
type guard struct {
	opts     Options
	api      huma.API
	failures *Failures
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
	if isPublic(ctx.Operation()) {
		next(ctx)
		return
	}
	r, _ := humago.Unwrap(ctx)
	if wait, refused := g.failures.Refused(r); refused {
		ctx.SetHeader("Retry-After", retryAfter(wait))
		writeHumaProblem(ctx, newProblem(http.StatusTooManyRequests, codeTooManyInvalidTokens, tooManyFailures))
		return
	}
	caller, status, msg := g.check(ctx.Context(), ctx.Header("Authorization"))
	if status != 0 {
		if status == http.StatusUnauthorized {
			if _, given := bearer(ctx.Header("Authorization")); given {
				g.failures.Failed(r)
			}
			ctx.SetHeader("WWW-Authenticate", `Bearer realm="evidencefleet"`)
		}
		writeHumaProblem(ctx, newProblem(status, "", msg))
		return
	}
	if caller.Operator {
		writeHumaProblem(ctx, newProblem(http.StatusForbidden, "", "an operator token does not act for an organization; use an organization token (enqueue org token create --org ORG)"))
		return
	}
	if status, retry, msg := takeRequest(ctx.Context(), g.opts, caller.TokenID, ctx.SetHeader); status != 0 {
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
// cannot be read, and the message to answer with; header sets the
// answer's RateLimit headers.
func takeRequest(ctx context.Context, opts Options, tokenID int64, header func(key, value string)) (status int, retry, msg string) {
	a, err := opts.Limits.Allow(ctx, tokenKey(tokenID))
	if err != nil {
		opts.Logger.ErrorContext(ctx, "api: rate check failed", "err", err)
		return http.StatusServiceUnavailable, "", "the request rate cannot be checked; retry later"
	}
	setRateLimit(a, header)
	if !a.Taken {
		return http.StatusTooManyRequests, retryAfter(a.Wait), "request rate of this token exceeded; retry after the Retry-After seconds"
	}
	return 0, "", ""
}

// rateLimitPolicy names the one policy of RateLimit-Policy and RateLimit:
// each token's own request budget.
const rateLimitPolicy = `"token"`

// setRateLimit sets the IETF RateLimit-Policy and RateLimit headers
// (draft-ietf-httpapi-ratelimit-headers) of a token's budget: the policy
// is q requests per w seconds (a full bucket, and the time it takes to
// fill one), what is left r requests now, refilled in full in t seconds.
// Nothing is set without a limit.
func setRateLimit(a Allowance, header func(key, value string)) {
	if a.Burst <= 0 || a.Rate <= 0 {
		return
	}
	window := math.Ceil(float64(a.Burst) / a.Rate)
	left := max(0, math.Floor(a.Left))
	reset := math.Ceil(max(0, float64(a.Burst)-a.Left) / a.Rate)
	if !a.Taken {
		reset = max(reset, math.Ceil(a.Wait.Seconds()))
	}
	header("RateLimit-Policy", fmt.Sprintf("%s;q=%d;w=%.0f", rateLimitPolicy, a.Burst, window))
	header("RateLimit", fmt.Sprintf("%s;r=%.0f;t=%.0f", rateLimitPolicy, left, reset))
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
func limitMCP(opts Options, fails *Failures, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wait, refused := fails.Refused(r); refused {
			w.Header().Set("Retry-After", retryAfter(wait))
			writeProblem(w, newProblem(http.StatusTooManyRequests, codeTooManyInvalidTokens, tooManyFailures))
			return
		}
		if secret, ok := bearer(r.Header.Get("Authorization")); ok {
			caller, err := opts.Authenticate(r.Context(), secret)
			if errors.Is(err, ErrUnauthenticated) {
				fails.Failed(r) // h refuses it (its second look is the token store's negative cache)
			}
			if err == nil {
				if status, retry, msg := takeRequest(r.Context(), opts, caller.TokenID, w.Header().Set); status != 0 {
					if retry != "" {
						w.Header().Set("Retry-After", retry)
					}
					writeProblem(w, newProblem(status, "", msg))
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

func (l *localLimits) Allow(_ context.Context, key string) (Allowance, error) {
	return l.buckets.allow(key), nil
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

// allow takes one request of the key's budget, if one is left.
func (l *limiters) allow(key string) Allowance {
	if l.rate <= 0 {
		return Allowance{Taken: true}
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
	a := Allowance{Taken: true, Burst: l.burst, Rate: float64(l.rate)}
	r := lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		a.Taken, a.Wait = false, d
	}
	a.Left = lim.TokensAt(now)
	return a
}
