package bench

import (
	"context"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
)

// TestLoadTaskKeepsExactSpans: the synthetic graph obeys the schema's
// promise that every fragment is an exact span of its page version, and has
// the shape asked for.
func TestLoadTaskKeepsExactSpans(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t)
	sp, err := loadPool("../../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	task, err := loadTask(ctx, pool, builtin.NewHashEmbedder(64), sp, taskSpec{
		Claims: 30, Fragments: 700, Related: 20, Domains: 12, FragsPerPage: 20, DomainPrefix: "t", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(task.ClaimIDs) != 30 || task.Fragments != 700 {
		t.Fatalf("loaded %d claims and %d fragments, want 30 and 700", len(task.ClaimIDs), task.Fragments)
	}
	var bad, total, embedded int
	err = pool.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE substring(v.content FROM f.start_char + 1 FOR f.end_char - f.start_char) <> f.text),
		       count(*), count(*) FILTER (WHERE length(f.embedding) = 4 * 64)
		FROM fragments f JOIN page_versions v ON v.id = f.page_version_id
		JOIN task_pages tp ON tp.page_version_id = v.id WHERE tp.task_id = $1`, task.ID).Scan(&bad, &total, &embedded)
	if err != nil {
		t.Fatal(err)
	}
	if bad != 0 || total != 700 || embedded != 700 {
		t.Errorf("%d of %d fragments are not their span; %d embedded", bad, total, embedded)
	}
}
