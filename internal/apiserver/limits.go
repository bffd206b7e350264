package apiserver

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/evidencefleet/evidencefleet/store"
)

// sharedLimits keeps each token's request rate and open event streams in
// Postgres (api_rate_buckets, api_event_streams: migration 00028), so that
// every API replica enforces one bound: N replicas allow what one does.
// Each request costs one statement on the database clock; opening a stream
// one short transaction.
type sharedLimits struct {
	st    *store.Store
	rate  float64
	burst int
}

// releaseTimeout bounds the statement that closes a stream's row after
// its request has ended.
const releaseTimeout = 10 * time.Second

// Allow takes one request of key's bucket; when none is left, wait is how
// long until one is.
func (l *sharedLimits) Allow(ctx context.Context, key string) (time.Duration, bool, error) {
	if l.rate <= 0 {
		return 0, true, nil
	}
	r, err := l.st.TakeAPIRequest(ctx, store.TakeAPIRequestParams{Key: key, Rate: l.rate, Burst: float64(max(l.burst, 1))})
	if err != nil {
		return 0, false, fmt.Errorf("request rate of %s: %w", key, err)
	}
	if r.Taken {
		return 0, true, nil
	}
	wait := time.Duration(math.Ceil((1 - r.Tokens) / l.rate * float64(time.Second)))
	return max(wait, time.Millisecond), false, nil
}

// OpenStream records one more open stream of key unless it holds most;
// release closes it (its row goes), whatever became of ctx.
func (l *sharedLimits) OpenStream(ctx context.Context, key string, most int, lifetime time.Duration) (func(), bool, error) {
	id, ok, err := l.st.OpenAPIStream(ctx, key, most, lifetime)
	if err != nil || !ok {
		return nil, ok, err
	}
	return func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer cancel()
		_ = l.st.CloseAPIStream(rctx, id) // a row left behind stops counting at its expiry
	}, true, nil
}
