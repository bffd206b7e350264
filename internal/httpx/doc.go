// Package httpx is the resilient HTTP client shared by the model backends
// (OpenAI-compatible, TEI, Jina-style), the scholarly-metadata clients
// (internal/academic) and the search backend: per-attempt timeouts, bounded
// concurrency, retries with exponential backoff and full jitter that honour
// Retry-After, a consecutive-failure circuit breaker, errors that wrap the
// error kinds of internal/remoteerr (remoteerr.ErrUnavailable,
// remoteerr.ErrRejected, remoteerr.ErrBadResponse) and carry a retry hint
// (remoteerr.RetryAfterer), and a report of every attempt to an Observer
// (observer.go; internal/metrics turns it into Prometheus series).
//
// Every 2xx answer is read within a Bound computed from its request
// (bounds.go: the batch's embeddings, the chat answer's max_tokens, the
// labels or documents scored): the byte past it stops the reading with
// remoteerr.ErrBadResponse naming the bound, and answers are decoded as a
// stream (DecodeJSON), never read whole first.
//
// Retryable failures are connection errors, per-attempt timeouts and the
// statuses 408, 424 (TEI's backend error), 429, 500, 502, 503 and 504. Other
// 4xx answers are not retried and wrap remoteerr.ErrRejected; other non-2xx
// answers are not retried and wrap remoteerr.ErrUnavailable. A request whose
// context the caller cancelled returns the context error (wrapped), never
// ErrUnavailable.
//
// # Composition
//
// The resilience is failsafe-go's: a retry policy runs the attempts, and
// each attempt holds a permit of a bulkhead (MaxConcurrency; the permit is
// held until the answer's body is closed, which failsafe-go's bulkhead
// policy, releasing it when the attempt returns, would not do) and a permit
// of a count-based circuit breaker. This package keeps what the library does
// not do: classifying answers into remoteerr kinds (classify.go), honouring
// Retry-After (remoteerr.ParseRetryAfter) and a full-jitter backoff through
// the retry policy's delay function, giving up early when the wait is past
// MaxRetryAfter or the context's deadline, bounded reading of answers, and
// the errors.
//
// The breaker counts failed attempts: an attempt that ends in a retryable
// failure (or a non-retryable 5xx) is recorded as a failure, one that reaches
// a healthy server (2xx, or a 4xx rejection) as a success. BreakerFailures
// failures in a row open it; while it is open every attempt fails fast with
// ErrUnavailable ("circuit open", RetryIn the rest of the cooldown) without
// touching the network. After BreakerCooldown it is half-open: one probe
// attempt at a time goes through; its success closes the breaker, its
// failure opens it again. An attempt that says nothing about the server (the
// caller's context ended, the body could not be replayed) is not recorded,
// except when it was the half-open probe: failsafe-go's breaker takes a
// probe's permit back only with a recorded outcome, so a cancelled probe
// counts as a failure and the breaker stays open for another cooldown
// (the former hand-written breaker went back to half-open).
//
// failsafe-go's retry policy and breaker run on the wall clock: the
// breaker's cooldown is real time, and so is the wait between retries (the
// tests shrink the slept wait with a hook and keep the planned one).
package httpx
