// Package clock holds small helpers about waiting.
package clock

import (
	"context"
	"time"
)

// Sleep waits d or until ctx ends, and returns ctx's error in that case
// (also when d <= 0 and ctx has already ended).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
