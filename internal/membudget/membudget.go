// Package membudget admits a worker's page work by the bytes it may hold:
// a weighted semaphore (golang.org/x/sync/semaphore) over a budget derived
// from the process's memory limit (Plan), of which each page takes its
// estimate (pageproc: the body and what parsing and processing it may hold)
// before it is parsed and gives it back when its work is done. Any mix of
// pages then holds at most the budget, however many target jobs run.
package membudget

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// ErrPageTooLarge is returned for a page whose estimate is over the most a
// page may hold (Budget.PageMax): its text is the target failure reason.
var ErrPageTooLarge = errors.New("page_memory")

// Budget is a worker's byte budget for page work. A nil *Budget admits
// everything at once.
type Budget struct {
	sem     *semaphore.Weighted
	size    int64
	pageMax int64
	held    atomic.Int64 // bytes the admitted pages hold
	waiting atomic.Int64 // pages waiting for admission
}

// New returns a budget of size bytes of which one page may ask at most
// pageMax (0: no per-page maximum). A page asking more than size but no
// more than pageMax gets all of size: it waits for the others and runs
// alone.
func New(size, pageMax int64) *Budget {
	size = max(size, 1)
	return &Budget{sem: semaphore.NewWeighted(size), size: size, pageMax: pageMax}
}

// Size is the budget in bytes.
func (b *Budget) Size() int64 { return b.size }

// PageMax is the most one page may ask (0: no maximum).
func (b *Budget) PageMax() int64 { return b.pageMax }

// Held is what the admitted pages hold now.
func (b *Budget) Held() int64 { return b.held.Load() }

// Waiting is how many pages wait for admission now.
func (b *Budget) Waiting() int { return int(b.waiting.Load()) }

// Hold returns a new admission for one page's work; Release it when the
// work is done.
func (b *Budget) Hold() *Hold { return &Hold{b: b} }

// Hold is one page's admission: what it took of the budget.
type Hold struct {
	b    *Budget
	held int64
}

// Admit waits until n bytes of the budget are free and takes them for the
// page: all of the budget when n is more (the page then runs alone). It
// returns an error wrapping ErrPageTooLarge at once for an n over the per-page
// maximum, ctx's error when ctx ends while it waits (taking nothing), and
// an error when the page was already admitted: a page asks once, for all
// it needs, so that no page holds part of the budget while it waits for
// more. On a nil Hold or one of a nil Budget it takes nothing.
func (h *Hold) Admit(ctx context.Context, n int64) error {
	if h == nil || h.b == nil {
		return nil
	}
	if h.held > 0 {
		return fmt.Errorf("membudget: page already admitted with %s", MiB(h.held))
	}
	b := h.b
	if b.pageMax > 0 && n > b.pageMax {
		return fmt.Errorf("%w: the page would hold about %s, more than the %s a page may (EVF_FETCH_MAX_BYTES, EVF_PAGE_MAX_ELEMENTS)",
			ErrPageTooLarge, MiB(n), MiB(b.pageMax))
	}
	n = min(max(n, 1), b.size)
	b.waiting.Add(1)
	err := b.sem.Acquire(ctx, n)
	b.waiting.Add(-1)
	if err != nil {
		return err
	}
	h.held = n
	b.held.Add(n)
	return nil
}

// Held is what the page holds of the budget (0 before Admit or after
// Release).
func (h *Hold) Held() int64 {
	if h == nil {
		return 0
	}
	return h.held
}

// Release gives back what the page took; it may be called more than once.
func (h *Hold) Release() {
	if h == nil || h.held == 0 {
		return
	}
	h.b.held.Add(-h.held)
	h.b.sem.Release(h.held)
	h.held = 0
}

// MiB renders n bytes in MiB.
func MiB(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
