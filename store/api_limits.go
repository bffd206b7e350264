package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// OpenAPIStream records one more open event stream of key, over by
// lifetime at the latest, unless key holds most live ones already
// (ok false): one transaction that serialises the key's opens
// (LockAPIStreams), forgets its streams that are over by their time and
// counts the rest, so that every API replica keeps one bound.
func (s *Store) OpenAPIStream(ctx context.Context, key string, most int, lifetime time.Duration) (id int64, ok bool, err error) {
	err = s.InTx(ctx, func(_ pgx.Tx, q *Queries) error {
		if err := q.LockAPIStreams(ctx, key); err != nil {
			return fmt.Errorf("lock the streams of %s: %w", key, err)
		}
		if err := q.DeleteExpiredAPIStreams(ctx, key); err != nil {
			return fmt.Errorf("forget the expired streams of %s: %w", key, err)
		}
		id, err = q.OpenAPIStream(ctx, OpenAPIStreamParams{Key: key, LifetimeS: lifetime.Seconds(), Most: int32(most)})
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return nil
		case err != nil:
			return fmt.Errorf("open a stream of %s: %w", key, err)
		}
		ok = true
		return nil
	})
	return id, ok, err
}
