package apiserver

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/api"
	"github.com/evidencefleet/evidencefleet/store"
)

// sharedLimits keeps each token's request rate and open event streams in
// Postgres (api_rate_buckets, api_event_streams: migration 00028), so that
// every API replica enforces one bound: N replicas allow what one does.
// Each request costs one statement on the database clock; opening a stream
// one short transaction, and an open stream one renewal of its lease every
// api.EventOptions.Recheck.
type sharedLimits struct {
	st    *store.Store
	rate  float64
	burst int
}

// releaseTimeout bounds the statement that closes a stream's row after
// its request has ended.
const releaseTimeout = 10 * time.Second

// Allow takes one request of key's bucket, if one is left.
func (l *sharedLimits) Allow(ctx context.Context, key string) (api.Allowance, error) {
	if l.rate <= 0 {
		return api.Allowance{Taken: true}, nil
	}
	burst := max(l.burst, 1)
	r, err := l.st.TakeAPIRequest(ctx, store.TakeAPIRequestParams{Key: key, Rate: l.rate, Burst: float64(burst)})
	if err != nil {
		return api.Allowance{}, fmt.Errorf("request rate of %s: %w", key, err)
	}
	a := api.Allowance{Taken: r.Taken, Left: r.Tokens, Burst: burst, Rate: l.rate}
	if !r.Taken {
		a.Wait = max(time.Duration(math.Ceil((1-r.Tokens)/l.rate*float64(time.Second))), time.Millisecond)
	}
	return a, nil
}

// OpenStream records one more open stream of key unless it holds most:
// its row is a lease of the given length that the stream renews (Renew)
// and closes (Release), whatever became of ctx. A process killed holding
// it leaves a row that stops counting when the lease lapses.
func (l *sharedLimits) OpenStream(ctx context.Context, key string, most int, lease time.Duration) (api.StreamSlot, bool, error) {
	id, ok, err := l.st.OpenAPIStream(ctx, key, most, lease)
	if err != nil || !ok {
		return nil, ok, err
	}
	return &streamSlot{st: l.st, id: id, lease: lease, ctx: ctx}, true, nil
}

// streamSlot is one api_event_streams row.
type streamSlot struct {
	st    *store.Store
	id    int64
	lease time.Duration
	ctx   context.Context // the request's, for Release's values
}

func (s *streamSlot) Renew(ctx context.Context) (bool, error) {
	_, err := s.st.RenewAPIStream(ctx, store.RenewAPIStreamParams{ID: s.id, LeaseS: s.lease.Seconds()})
	if store.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("renew stream %d: %w", s.id, err)
	}
	return true, nil
}

func (s *streamSlot) Release() {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), releaseTimeout)
	defer cancel()
	_ = s.st.CloseAPIStream(rctx, s.id) // a row left behind stops counting when its lease lapses
}
