package httpx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// Client sends requests to one model backend. It is safe for concurrent use.
type Client struct {
	o       Options
	hc      *http.Client
	slots   bulkhead.Bulkhead[*http.Response]
	breaker circuitbreaker.CircuitBreaker[*http.Response]
	retries failsafe.Executor[*http.Response]
}

// New returns a Client with o's zero fields set to their defaults.
func New(o Options) *Client {
	o = o.withDefaults()
	o.Observer.PrepareModel(o.Backend, o.Capability)
	retry := retrypolicy.NewBuilder[*http.Response]().
		HandleIf(func(_ *http.Response, err error) bool { f := asFailure(err); return f != nil && f.retryable }).
		AbortIf(func(_ *http.Response, err error) bool { f := asFailure(err); return f != nil && f.giveUp != "" }).
		WithMaxRetries(o.MaxRetries).
		WithDelayFunc(func(exec failsafe.ExecutionAttempt[*http.Response]) time.Duration {
			if f := asFailure(exec.LastError()); f != nil {
				return o.waitFor(f.wait)
			}
			return 0
		}).
		ReturnLastFailure().
		Build()
	return &Client{
		o:     o,
		hc:    &http.Client{Transport: o.Transport, CheckRedirect: keepCredentialsOnHost},
		slots: bulkhead.New[*http.Response](uint(o.MaxConcurrency)),
		breaker: circuitbreaker.NewBuilder[*http.Response]().
			WithFailureThreshold(uint(o.BreakerFailures)).
			WithSuccessThreshold(1).
			WithDelay(o.BreakerCooldown).
			Build(),
		retries: failsafe.With(retry),
	}
}

// Backend returns the backend label the client was configured with.
func (c *Client) Backend() string { return c.o.Backend }

// Capability returns the capability label the client was configured with.
func (c *Client) Capability() string { return c.o.Capability }

// Observer returns the observer the client reports to (NoObserver when
// none was given).
func (c *Client) Observer() Observer { return c.o.Observer }

// Breaker reports the circuit breaker's state; an open breaker whose cooldown
// has passed reports HalfOpen.
func (c *Client) Breaker() State {
	if s := c.breaker.State(); s != Open || c.breaker.RemainingDelay() > 0 {
		return s
	}
	return HalfOpen
}

// cooldownLeft is how long the open breaker still fails fast (at least 1 ms
// when open, 0 otherwise).
func (c *Client) cooldownLeft() time.Duration {
	if !c.breaker.IsOpen() {
		return 0
	}
	return max(c.breaker.RemainingDelay(), time.Millisecond)
}

// Do sends req with retries and returns the 2xx response, whose body the
// caller must close (closing also frees the concurrency slot; the per-attempt
// Timeout keeps running while the body is read). Every other outcome is an
// *Error and a nil response. Do satisfies go-openai's HTTPDoer.
//
// A request with a body is retried only if req.GetBody is set (as
// http.NewRequest does for bytes and strings readers).
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	hasBody := req.Body != nil && req.Body != http.NoBody
	replayable := !hasBody || req.GetBody != nil
	var (
		sends   int            // requests handed to the transport
		last    *failure       // the latest failed attempt
		lastErr error          // the latest attempt's error
		got     *http.Response // the 2xx answer, if an attempt had one
	)
	run := func() (*http.Response, error) {
		n := sends
		resp, err := c.attempt(ctx, req, n, &sends)
		lastErr = err
		if f := asFailure(err); f != nil {
			last = f
			c.plan(ctx, f, n)
		} else if err == nil {
			got = resp
		}
		return resp, err
	}
	var resp *http.Response
	var err error
	if replayable {
		resp, err = c.retries.WithContext(ctx).Get(run)
	} else {
		resp, err = run()
	}
	if err == nil {
		return resp, nil
	}
	if got != nil { // the caller's cancellation overtook the answer
		_ = got.Body.Close()
	}
	if hasBody && sends == 0 { // http.Client.Do closes the bodies it is given
		_ = req.Body.Close()
	}
	e := &Error{Backend: c.o.Backend, Capability: c.o.Capability, Path: req.URL.Path, Attempts: sends}
	if last != nil {
		e.Status, e.Message, e.Reason = last.status, last.message, last.reason
	}
	cur := asFailure(err)
	switch {
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		c.o.Observer.ModelError(c.o.Backend, c.o.Capability, "canceled")
		e.Err, e.Reason = ctx.Err(), "context ended"
		if asFailure(lastErr) != nil {
			e.Reason = "context ended while waiting to retry"
		}
	case errors.Is(err, errCircuitOpen):
		e.Err, e.Reason, e.RetryIn = remoteerr.ErrUnavailable, "circuit open", c.cooldownLeft()
	case cur == nil: // the body could not be replayed
		e.Err, e.Reason = remoteerr.ErrRejected, err.Error()
	case !cur.retryable:
		e.Err = cur.sentinel
	case !replayable || sends > c.o.MaxRetries:
		e.Err, e.RetryIn = remoteerr.ErrUnavailable, max(cur.retryAfter, c.cooldownLeft())
		if !replayable && c.o.MaxRetries > 0 {
			e.Reason += " (body not replayable, no retry)"
		}
	default:
		e.Err, e.Reason, e.RetryIn = remoteerr.ErrUnavailable, cur.giveUp, cur.retryIn
	}
	return nil, e
}

// attempt makes attempt n (0-based) under a bulkhead permit and a breaker
// permit, and records its outcome in the breaker. It returns the 2xx
// response, or a *failure, or another error when no attempt could be made
// (the caller's context ended, errCircuitOpen, the body cannot be replayed).
// It counts in *sends every request handed to the transport.
func (c *Client) attempt(ctx context.Context, req *http.Request, n int, sends *int) (*http.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.slots.AcquirePermit(ctx); err != nil { // only ctx's error
		return nil, err
	}
	var once sync.Once
	release := func() { once.Do(c.slots.ReleasePermit) }
	if !c.breaker.TryAcquirePermit() {
		release()
		c.o.Observer.ModelError(c.o.Backend, c.o.Capability, "circuit_open")
		return nil, errCircuitOpen
	}
	probe := c.breaker.IsHalfOpen()
	actx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	stop := context.AfterFunc(actx, release)
	finish := func() { cancel(); stop(); release() }

	r := req.Clone(actx)
	if n > 0 && req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			finish()
			c.unrecorded(probe)
			return nil, fmt.Errorf("replaying the request body: %w", err)
		}
		r.Body = body
	}
	start := time.Now()
	*sends++
	cost.From(ctx).Request(c.o.Call)
	resp, err := c.hc.Do(r)
	secs := time.Since(start).Seconds()
	if err != nil {
		finish()
		c.o.Observer.ModelRequest(c.o.Backend, c.o.Capability, "error", secs)
		if ctx.Err() != nil {
			c.unrecorded(probe)
			return nil, ctx.Err()
		}
		f := &failure{kind: "connection", retryable: true, breaker: true, retryAfter: -1, sentinel: remoteerr.ErrUnavailable,
			reason: "connection: " + shortNetErr(err)}
		var ne net.Error
		if errors.Is(actx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			f.kind, f.reason = "timeout", fmt.Sprintf("timeout after %s", c.o.Timeout)
		}
		c.o.Observer.ModelError(c.o.Backend, c.o.Capability, f.kind)
		c.breaker.RecordFailure()
		return nil, f
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		c.o.Observer.ModelRequest(c.o.Backend, c.o.Capability, "ok", secs)
		c.breaker.RecordSuccess()
		resp.Body = &releasingBody{ReadCloser: resp.Body, done: finish}
		return resp, nil
	}
	f := classify(resp)
	finish()
	c.o.Observer.ModelRequest(c.o.Backend, c.o.Capability, "error", secs)
	c.o.Observer.ModelError(c.o.Backend, c.o.Capability, f.kind)
	if f.breaker {
		c.breaker.RecordFailure()
	} else {
		c.breaker.RecordSuccess()
	}
	return nil, f
}

// unrecorded ends an attempt that says nothing about the server's health.
// The breaker is left as it is, but a half-open probe's permit comes back
// only with a recorded outcome: a failure, as nothing proved the server well.
func (c *Client) unrecorded(probe bool) {
	if probe {
		c.breaker.RecordFailure()
	}
}

// releasingBody ends the attempt (cancels its context, frees the concurrency
// slot) when the caller closes the body.
type releasingBody struct {
	io.ReadCloser
	done func()
}

// Close closes the body and ends the attempt.
func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.done()
	return err
}
