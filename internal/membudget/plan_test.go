package membudget_test

import (
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/membudget"
)

// TestDeriveFromTheMemoryLimit: the budget is half of what the heap may
// take less the reserve, the same for the chart's ingest group whether
// the limit is its GOMEMLIMIT (224 MiB) or its pod's (256 MiB, of which
// the heap takes 7/8); a setting wins; no limit admits every target job.
func TestDeriveFromTheMemoryLimit(t *testing.T) {
	t.Parallel()
	ingest := membudget.Settings{TargetJobs: 4, MaxBodyBytes: 5 << 20, PageMax: 69 << 20}
	reserve := int64(membudget.BaseReserve + 4*(5<<20))
	for _, tc := range []struct {
		name   string
		s      membudget.Settings
		lim    membudget.Limit
		budget int64
		says   string
	}{
		{"GOMEMLIMIT", ingest, membudget.Limit{Bytes: 224 << 20, Source: "GOMEMLIMIT"}, 112<<20 - reserve, "memory limit 224.0 MiB (GOMEMLIMIT)"},
		{"cgroup", ingest, membudget.Limit{Bytes: 256 << 20, Source: "/sys/fs/cgroup/memory.max", Cgroup: true}, 112<<20 - reserve, "224.0 MiB (7/8 of it)"},
		{"small pod", ingest, membudget.Limit{Bytes: 128 << 20, Source: "GOMEMLIMIT"}, membudget.MinBudget, "runs alone"},
		{"set", membudget.Settings{BudgetMB: 300, TargetJobs: 4, MaxBodyBytes: 5 << 20, PageMax: 69 << 20},
			membudget.Limit{Bytes: 224 << 20, Source: "GOMEMLIMIT"}, 300 << 20, "EVF_PAGE_MEMORY_BUDGET_MB"},
		{"no limit", ingest, membudget.Limit{}, 4 * 69 << 20, "no memory limit known"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := membudget.Derive(tc.s, tc.lim)
			if p.Budget != tc.budget || p.PageMax != tc.s.PageMax {
				t.Errorf("budget %d, page max %d; want %d, %d", p.Budget, p.PageMax, tc.budget, tc.s.PageMax)
			}
			if s := p.String(); !strings.Contains(s, tc.says) {
				t.Errorf("%q does not say %q", s, tc.says)
			}
			if b := p.New(); b.Size() != p.Budget || b.PageMax() != p.PageMax {
				t.Errorf("New: size %d, page max %d", b.Size(), b.PageMax())
			}
		})
	}
}
