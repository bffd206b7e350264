package membudget

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Limit is a process's memory limit and where it was found.
type Limit struct {
	Bytes  int64  // 0: none known
	Source string // GOMEMLIMIT, or the cgroup file it was read from
	Cgroup bool   // the container's limit, not the Go runtime's
}

// Heap is what the Go heap may take under the limit: GOMEMLIMIT, or 7/8 of
// a cgroup's limit (the rest holds the binary's resident pages and the
// runtime's own, as the chart sets GOMEMLIMIT).
func (l Limit) Heap() int64 {
	if l.Cgroup {
		return l.Bytes / 8 * 7
	}
	return l.Bytes
}

// cgroupFiles hold a container's memory limit: cgroup v2, then v1.
var cgroupFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// MemoryLimit is the process's memory limit: the Go runtime's (GOMEMLIMIT,
// as debug.SetMemoryLimit reports it) when set, else the cgroup's when
// one is set, else none.
func MemoryLimit() Limit {
	if n := debug.SetMemoryLimit(-1); n > 0 && n < math.MaxInt64 {
		return Limit{Bytes: n, Source: "GOMEMLIMIT"}
	}
	for _, f := range cgroupFiles {
		if n, ok := readCgroupLimit(f); ok {
			return Limit{Bytes: n, Source: f, Cgroup: true}
		}
	}
	return Limit{}
}

// readCgroupLimit reads a cgroup memory limit file: "max", or a figure of
// 2^62 or more (cgroup v1's "no limit"), is no limit.
func readCgroupLimit(path string) (int64, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil || n <= 0 || n >= 1<<62 {
		return 0, false
	}
	return n, true
}

// Settings are what a worker's budget depends on besides its memory limit.
type Settings struct {
	// BudgetMB is the budget as set (EVF_PAGE_MEMORY_BUDGET_MB); 0
	// derives it from the memory limit.
	BudgetMB int
	// TargetJobs is how many target_queue jobs run at once
	// (EVF_TARGET_WORKERS): each may hold a fetched body while it waits.
	TargetJobs int
	// MaxBodyBytes is the largest page body (EVF_FETCH_MAX_BYTES).
	MaxBodyBytes int64
	// PageMax is the most one page may hold (pageproc.MaxEstimate); 0:
	// no maximum.
	PageMax int64
}

// BaseReserve is the live heap of a worker of the ingest queues beside
// its pages: River, the connection pool, the built-in models the embed
// jobs load (about 16 MiB measured, idle after work), and the robots.txt
// cache at its bound (32 MiB, internal/crawl).
const BaseReserve = 48 << 20

// MinBudget is the least budget derived from a memory limit: a pod too
// small for it still parses pages, one at a time.
const MinBudget = 16 << 20

// Plan is a worker's page budget and how it was reached.
type Plan struct {
	Limit   Limit
	Reserve int64 // BaseReserve and the bodies of the target jobs waiting for admission
	Budget  int64 // bytes of page work admitted at once
	PageMax int64 // the most one page may hold; a page over it is refused
	// Set: the budget is EVF_PAGE_MEMORY_BUDGET_MB's.
	Set bool
}

// Derive works out the budget: BudgetMB when set; else half of what the
// heap may take under the memory limit (Limit.Heap), less the reserve
// (BaseReserve, and a body per target job: a fetched page waits for
// admission holding its body), at least MinBudget. Half: the garbage
// collector (GOGC=100) lets the heap grow to twice what is live before it
// collects, so live memory within half the limit keeps the heap under it
// at the collector's own pace, GOMEMLIMIT being the backstop, not the pace
// (at the limit the collector runs back to back and overshoots it). With
// no limit known: room for every target job's largest page (no page
// waits).
func Derive(s Settings, lim Limit) Plan {
	p := Plan{Limit: lim, PageMax: s.PageMax, Reserve: BaseReserve + int64(max(s.TargetJobs, 1))*s.MaxBodyBytes}
	switch {
	case s.BudgetMB > 0:
		p.Budget, p.Set = int64(s.BudgetMB)<<20, true
	case lim.Bytes > 0:
		p.Budget = max(lim.Heap()/2-p.Reserve, MinBudget)
	default:
		p.Budget = int64(max(s.TargetJobs, 1)) * max(s.PageMax, s.MaxBodyBytes)
	}
	return p
}

// Budget is a new budget of the plan.
func (p Plan) New() *Budget { return New(p.Budget, p.PageMax) }

// String says the budget, where it comes from, and what it bounds.
func (p Plan) String() string {
	var from string
	switch {
	case p.Set:
		from = "EVF_PAGE_MEMORY_BUDGET_MB"
	case p.Limit.Bytes > 0:
		heap := MiB(p.Limit.Heap())
		if p.Limit.Cgroup {
			heap += " (7/8 of it)"
		}
		from = fmt.Sprintf("memory limit %s (%s): half of the heap's %s, less a reserve of %s (the worker's own heap, %s, and a fetched body per target job)",
			MiB(p.Limit.Bytes), p.Limit.Source, heap, MiB(p.Reserve), MiB(BaseReserve))
	default:
		from = "no memory limit known (GOMEMLIMIT, cgroup): room for every target job's largest page"
	}
	s := fmt.Sprintf("page memory budget %s: %s", MiB(p.Budget), from)
	if p.PageMax > 0 {
		s += fmt.Sprintf("; the largest page the limits let through may hold %s", MiB(p.PageMax))
		if p.PageMax > p.Budget {
			s += ", more than the budget: such a page waits for the others and runs alone"
		} else {
			s += fmt.Sprintf(" (%.1f such pages at once)", float64(p.Budget)/float64(p.PageMax))
		}
	}
	return s
}

// Bound is the memory bound the plan gives a worker: its live heap within
// the reserve and the budget, and its heap, which the collector lets grow
// to twice what is live (GOGC=100), against the heap's limit.
func (p Plan) Bound() string {
	live := p.Reserve + p.Budget
	s := fmt.Sprintf("memory bound: live heap at most the reserve %s + the budget %s = %s; the heap, at twice that (GOGC=100), %s",
		MiB(p.Reserve), MiB(p.Budget), MiB(live), MiB(2*live))
	switch h := p.Limit.Heap(); {
	case h == 0:
		return s + "; no memory limit known to hold it to"
	case 2*live <= h:
		return s + fmt.Sprintf(", within the heap's limit of %s", MiB(h))
	default:
		return s + fmt.Sprintf(", over the heap's limit of %s: the collector runs at the limit", MiB(h))
	}
}
