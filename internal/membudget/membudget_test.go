package membudget_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/membudget"
)

// admitAsync admits n bytes for a new page in a goroutine; the channel
// gets Admit's error.
func admitAsync(ctx context.Context, b *membudget.Budget, n int64) (*membudget.Hold, <-chan error) {
	h := b.Hold()
	done := make(chan error, 1)
	go func() { done <- h.Admit(ctx, n) }()
	return h, done
}

// untilWaiting returns once want pages wait for admission, and fails the
// test if the page of done is admitted (or fails) first.
func untilWaiting(t *testing.T, b *membudget.Budget, want int, done <-chan error) {
	t.Helper()
	for b.Waiting() < want {
		select {
		case err := <-done:
			t.Fatalf("the page did not wait while the budget was held: Admit returned %v", err)
		default:
			runtime.Gosched()
		}
	}
}

// TestAdmitWaitsWhileTheBudgetIsHeld: a page whose bytes are not free
// waits, and is admitted once the page holding them releases them, not
// before.
func TestAdmitWaitsWhileTheBudgetIsHeld(t *testing.T) {
	t.Parallel()
	b := membudget.New(100, 0)
	first := b.Hold()
	if err := first.Admit(t.Context(), 60); err != nil {
		t.Fatal(err)
	}
	var released atomic.Bool
	second, done := admitAsync(t.Context(), b, 60)
	untilWaiting(t, b, 1, done)
	released.Store(true)
	first.Release()
	if err := <-done; err != nil {
		t.Fatalf("second page: %v", err)
	}
	if !released.Load() {
		t.Fatal("second page admitted before the first released its bytes")
	}
	if second.Held() != 60 || b.Held() != 60 {
		t.Fatalf("second page holds %d, the budget %d; want 60 and 60", second.Held(), b.Held())
	}
	second.Release()
	second.Release() // twice is harmless
	if b.Held() != 0 {
		t.Fatalf("budget holds %d after every release, want 0", b.Held())
	}
}

// TestAdmitEndsWithTheContext: a page waiting for admission when its
// job's context ends gets the context's error and takes nothing.
func TestAdmitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	b := membudget.New(100, 0)
	first := b.Hold()
	if err := first.Admit(t.Context(), 100); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	second, done := admitAsync(ctx, b, 10)
	untilWaiting(t, b, 1, done)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Admit returned %v, want context.Canceled", err)
	}
	if second.Held() != 0 || b.Held() != 100 {
		t.Fatalf("cancelled page holds %d, the budget %d; want 0 and 100", second.Held(), b.Held())
	}
	first.Release()
	third := b.Hold()
	if err := third.Admit(t.Context(), 100); err != nil { // all of it is free again
		t.Fatal(err)
	}
}

// TestPageOverTheBudgetRunsAlone: a page asking more than the whole
// budget (but within the per-page maximum) does not wait for ever: it
// waits for the pages holding bytes, then takes all of the budget, and the
// next page waits for it.
func TestPageOverTheBudgetRunsAlone(t *testing.T) {
	t.Parallel()
	b := membudget.New(100, 500)
	small := b.Hold()
	if err := small.Admit(t.Context(), 10); err != nil {
		t.Fatal(err)
	}
	big, done := admitAsync(t.Context(), b, 400)
	untilWaiting(t, b, 1, done)
	small.Release()
	if err := <-done; err != nil {
		t.Fatalf("page over the budget: %v", err)
	}
	if big.Held() != 100 {
		t.Fatalf("page over the budget holds %d, want all of it (100)", big.Held())
	}
	next, done := admitAsync(t.Context(), b, 1)
	untilWaiting(t, b, 1, done)
	big.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	next.Release()
}

// TestPageOverThePageMaxIsRefused: a page asking more than a page may is
// refused at once with ErrPageTooLarge naming both figures, even while
// the budget is taken; it holds nothing.
func TestPageOverThePageMaxIsRefused(t *testing.T) {
	t.Parallel()
	b := membudget.New(100<<20, 200<<20)
	taken := b.Hold()
	if err := taken.Admit(t.Context(), 100<<20); err != nil {
		t.Fatal(err)
	}
	h := b.Hold()
	err := h.Admit(t.Context(), 300<<20)
	if !errors.Is(err, membudget.ErrPageTooLarge) || !strings.Contains(err.Error(), "300.0 MiB") || !strings.Contains(err.Error(), "200.0 MiB") {
		t.Fatalf("Admit returned %v, want page_memory naming 300.0 MiB and 200.0 MiB", err)
	}
	if h.Held() != 0 || b.Waiting() != 0 {
		t.Fatalf("refused page holds %d, %d pages waiting; want 0 and 0", h.Held(), b.Waiting())
	}
}

// TestAPageAsksOnce: a second Admit of one page fails instead of holding
// part of the budget while it waits for more; a nil budget admits all.
func TestAPageAsksOnce(t *testing.T) {
	t.Parallel()
	h := membudget.New(100, 0).Hold()
	if err := h.Admit(t.Context(), 10); err != nil {
		t.Fatal(err)
	}
	if err := h.Admit(t.Context(), 10); err == nil {
		t.Fatal("a second Admit succeeded")
	}
	var none *membudget.Budget
	nh := none.Hold()
	if err := nh.Admit(t.Context(), 1<<40); err != nil || nh.Held() != 0 {
		t.Fatalf("nil budget: %v, holds %d; want nil and 0", err, nh.Held())
	}
	nh.Release()
}
