package fleet

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestSourceStats: domains per level and flagged, and the audit rows per
// action and source (the base pairs at 0 until the first).
func TestSourceStats(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO domains (domain, trust_level, flagged_at) VALUES
		('a.example.org', 'LOW', NULL), ('b.example.org', 'LOW', now()), ('c.example.org', 'BLOCKED', NULL), ('d.gov', 'GOVERNMENT', NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO domain_level_changes (domain, old_level, new_level, source, reason, set_by, action) VALUES
		('a.example.org', 'UNVERIFIED', 'LOW', 'verification', 'r', 'source verification', 'promote'),
		('c.example.org', 'UNVERIFIED', 'BLOCKED', 'verification', 'r', 'source verification', 'block'),
		('b.example.org', 'LOW', 'LOW', 'verification', 'r', 'source verification', 'flag'),
		('c.example.org', 'BLOCKED', 'UNVERIFIED', 'reviewer', 'r', 'ana', 'unblock'),
		('c.example.org', 'UNVERIFIED', 'BLOCKED', 'reviewer', 'r', 'ana', 'block')`); err != nil {
		t.Fatal(err)
	}
	s := newSourceStats(store.New(pool), 15*time.Second, slog.New(slog.DiscardHandler))
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(s)
	want := `
# HELP evidencefleet_domains Domains per trust level of record, read from the database at most every EVF_QUEUE_STATS_TTL.
# TYPE evidencefleet_domains gauge
evidencefleet_domains{level="ACADEMIC"} 0
evidencefleet_domains{level="BLOCKED"} 1
evidencefleet_domains{level="GOVERNMENT"} 1
evidencefleet_domains{level="LOW"} 2
evidencefleet_domains{level="PRIMARY"} 0
evidencefleet_domains{level="TRUSTED"} 0
evidencefleet_domains{level="UNVERIFIED"} 0
# HELP evidencefleet_domains_flagged Domains source verification flagged for a person (vouched-for domains over a block line).
# TYPE evidencefleet_domains_flagged gauge
evidencefleet_domains_flagged 1
# HELP evidencefleet_domain_changes_total Changes of domains' standing per action (promote, block, flag, set, unblock, clear) and source (verification, reviewer, policy), from the audit table.
# TYPE evidencefleet_domain_changes_total counter
evidencefleet_domain_changes_total{action="block",source="reviewer"} 1
evidencefleet_domain_changes_total{action="block",source="verification"} 1
evidencefleet_domain_changes_total{action="clear",source="policy"} 0
evidencefleet_domain_changes_total{action="flag",source="verification"} 1
evidencefleet_domain_changes_total{action="promote",source="verification"} 1
evidencefleet_domain_changes_total{action="set",source="reviewer"} 0
evidencefleet_domain_changes_total{action="unblock",source="reviewer"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "evidencefleet_domains", "evidencefleet_domains_flagged",
		"evidencefleet_domain_changes_total"); err != nil {
		t.Error(err)
	}
}
