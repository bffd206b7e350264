package errs

import (
	"time"
)

// Error is the fleet's one typed failure: an error of a known row of the
// error table (Kind), with how long a waiting row asks to wait (0: the
// table's, or the server's hint). Workers return one (Fail, Wait) when
// they know what happened; the sentinels above, the clients' errors
// (remoteerr's kinds, crawl's, search's) and the job contract's ArgsError
// name their row themselves (Classified), so the worker middleware reads
// every failure one way: KindOf.
type Error struct {
	Kind Failure
	Err  error
	Wait time.Duration
}

func (e *Error) Error() string             { return e.Err.Error() }
func (e *Error) Unwrap() error             { return e.Err }
func (e *Error) Failure() Failure          { return e.Kind }
func (e *Error) RetryAfter() time.Duration { return e.Wait }

// Fail marks err as a failure of kind k.
func Fail(k Failure, err error) error { return &Error{Kind: k, Err: err} }

// Wait marks err, why a job cannot go on yet, as a failure of kind k (a
// row whose outcome is to snooze) asking to wait d.
func Wait(k Failure, d time.Duration, err error) error { return &Error{Kind: k, Err: err, Wait: d} }

// Classified is an error that names its row of the error table.
type Classified interface {
	error
	Failure() Failure
}

// KindOf is the row of the first error in err's tree that names one, or
// DataRefusedFailure for data Postgres refuses, or Transient: anything
// else (the network, a deadlock, a garbage answer) is worth another
// attempt.
func KindOf(err error) Failure {
	if f := named(err); f != "" {
		return f
	}
	if DataRefused(err) {
		return DataRefusedFailure
	}
	return Transient
}

// named is the first row named in err's tree (depth first, as errors.As
// walks it); "" when none is.
func named(err error) Failure {
	for err != nil {
		if c, ok := err.(Classified); ok && c.Failure() != "" {
			return c.Failure()
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if f := named(e); f != "" {
					return f
				}
			}
			return ""
		default:
			return ""
		}
	}
	return ""
}

// kind is a sentinel error that names its row.
type kind struct {
	msg     string
	failure Failure
}

func (k *kind) Error() string    { return k.msg }
func (k *kind) Failure() Failure { return k.failure }

// Sentinel is a sentinel error of row f: compared with errors.Is, read by
// KindOf.
func Sentinel(msg string, f Failure) error { return &kind{msg: msg, failure: f} }
