package bench

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestArmsReadTheSameFragments: through the stamped arm's pool PairFragments
// is the store's own query (levels found); through the unstamped arm's, the
// same rows without the domains join (levels empty). Both count their reads.
func TestArmsReadTheSameFragments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	sp, err := loadPool("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadTask(ctx, pool, builtin.NewHashEmbedder(64), sp, taskSpec{
		Claims: 5, Fragments: 60, Related: 4, Domains: 5, FragsPerPage: 10, DomainPrefix: "s", Seed: 1}); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	rows, err := pool.Query(ctx, `SELECT id FROM fragments ORDER BY id`)
	if err == nil {
		for rows.Next() {
			var id int64
			if err = rows.Scan(&id); err != nil {
				break
			}
			ids = append(ids, id)
		}
		rows.Close()
	}
	if err != nil || len(ids) != 60 {
		t.Fatalf("fragment ids: %v (%d)", err, len(ids))
	}
	read := func(unstamped bool) []store.PairFragmentsRow {
		db := &armDB{Pool: pool, unstamped: unstamped}
		got, err := store.NewStore(db).PairFragments(ctx, store.PairFragmentsParams{TaskID: 1, Ids: ids})
		if err != nil {
			t.Fatalf("PairFragments (unstamped %v): %v", unstamped, err)
		}
		if n := db.reads.Load(); n != 1 {
			t.Errorf("unstamped %v: %d reads counted, want 1", unstamped, n)
		}
		slices.SortFunc(got, func(a, b store.PairFragmentsRow) int { return int(a.ID - b.ID) })
		return got
	}
	stamped, unstamped := read(false), read(true)
	if len(stamped) != len(ids) || len(unstamped) != len(ids) {
		t.Fatalf("%d and %d rows for %d fragments", len(stamped), len(unstamped), len(ids))
	}
	for i, s := range stamped {
		u := unstamped[i]
		if s.ID != u.ID || s.Text != u.Text {
			t.Errorf("row %d: stamped %d %q, unstamped %d %q", i, s.ID, s.Text, u.ID, u.Text)
		}
		if s.TrustLevel == "" || s.Category == "" || u.TrustLevel != "" || u.Category != "" {
			t.Errorf("fragment %d: stamped level %q/%q, unstamped %q/%q; want levels in the stamped arm only",
				s.ID, s.TrustLevel, s.Category, u.TrustLevel, u.Category)
		}
	}
}

// TestUnstampedPairFragmentsRefusesAnotherShape: a PairFragments that no
// longer reads the levels through the one join is refused, not half
// rewritten.
func TestUnstampedPairFragmentsRefusesAnotherShape(t *testing.T) {
	t.Parallel()
	for _, sql := range []string{
		"-- name: PairFragments :many\nSELECT f.id, f.text FROM fragments f WHERE f.id = ANY($1::bigint[])\n",
		"-- name: PairFragments :many\nSELECT f.id, f.text, COALESCE(d.trust_level, '')::text, COALESCE(d.category, '')::text, d.site\n" +
			"FROM fragments f JOIN pages p ON p.id = f.page_id\nLEFT JOIN domains d ON d.domain = p.domain\n",
		"-- name: Other :many\nSELECT 1\n",
	} {
		if out, err := unstampedPairFragments(sql); err == nil || !strings.Contains(err.Error(), "PairFragments") {
			t.Errorf("%q: rewritten to %q (%v), want an error", sql, out, err)
		}
	}
}
