package httpx

import (
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/failsafe-go/failsafe-go/circuitbreaker"

	"github.com/evidencefleet/evidencefleet/internal/cost"
)

// Defaults of Options fields left zero.
const (
	DefaultTimeout         = 30 * time.Second
	DefaultMaxRetries      = 4
	DefaultBaseBackoff     = 250 * time.Millisecond
	DefaultMaxBackoff      = 10 * time.Second
	DefaultMaxConcurrency  = 4
	DefaultBreakerFailures = 5
	DefaultBreakerCooldown = 30 * time.Second
	DefaultMaxRetryAfter   = 60 * time.Second
	// snippetBytes bounds the error-body excerpt put into error messages.
	snippetBytes = 200
)

// Options configures a Client. Zero numeric fields take the defaults above;
// a negative MaxRetries means no retries.
type Options struct {
	Backend    string        // metric label and error prefix: "openai", "tei", "jina"
	Capability string        // metric label and error prefix: "embed", "nli", "rerank", "llm"
	Timeout    time.Duration // per attempt, including reading the body of a 2xx answer
	MaxRetries int           // retries after the first attempt for retryable failures
	// BaseBackoff and MaxBackoff shape the exponential backoff with full
	// jitter: before retry n (0-based) the client waits a uniformly random
	// time in [0, min(MaxBackoff, BaseBackoff·2ⁿ)).
	BaseBackoff, MaxBackoff time.Duration
	MaxConcurrency          int           // attempts in flight per Client; waiting for a slot honours ctx
	BreakerFailures         int           // consecutive failed attempts that open the breaker
	BreakerCooldown         time.Duration // open → half-open after this
	// MaxRetryAfter caps an honoured Retry-After; a larger one makes the
	// request give up at once with ErrUnavailable.
	MaxRetryAfter time.Duration
	Observer      Observer          // nil: NoObserver
	Transport     http.RoundTripper // nil: a clone of http.DefaultTransport
	// Call is what every request handed to the transport counts as in the
	// job's cost meter (cost.From of the request's context): a model call
	// (the zero value) or an academic API call.
	Call cost.Call

	// Test hooks; nil means math/rand and sleeping the planned wait.
	rand    func() float64
	waitFor func(planned time.Duration) time.Duration // the wait slept before a retry
}

// State is the circuit breaker's state; its String is "closed", "open" or
// "half-open".
type State = circuitbreaker.State

// Breaker states.
const (
	Closed   = circuitbreaker.ClosedState   // requests flow
	Open     = circuitbreaker.OpenState     // requests fail fast
	HalfOpen = circuitbreaker.HalfOpenState // one probe at a time
)

// withDefaults returns o with its zero fields set to their defaults.
func (o Options) withDefaults() Options {
	if o.Observer == nil {
		o.Observer = NoObserver
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	} else if o.MaxRetries < 0 {
		o.MaxRetries = 0
	}
	if o.BaseBackoff <= 0 {
		o.BaseBackoff = DefaultBaseBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	o.MaxBackoff = max(o.MaxBackoff, o.BaseBackoff)
	if o.MaxConcurrency <= 0 {
		o.MaxConcurrency = DefaultMaxConcurrency
	}
	if o.BreakerFailures <= 0 {
		o.BreakerFailures = DefaultBreakerFailures
	}
	if o.BreakerCooldown <= 0 {
		o.BreakerCooldown = DefaultBreakerCooldown
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if o.Transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = o.MaxConcurrency
		o.Transport = t
	}
	if o.rand == nil {
		o.rand = rand.Float64
	}
	if o.waitFor == nil {
		o.waitFor = func(d time.Duration) time.Duration { return d }
	}
	return o
}
