package migrations_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/evidencefleet/evidencefleet/migrations"
)

// migratedTo returns a fresh database with River's migrations and the
// evidence schema up to version, and the provider that migrates it on.
func migratedTo(t *testing.T, version int64) (*pgxpool.Pool, *goose.Provider) {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, emptyDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	rm, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rm.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { _ = db.Close() })
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.UpTo(ctx, version); err != nil {
		t.Fatal(err)
	}
	return pool, provider
}

// oldGraph writes rows as the fleet wrote them before 00019.
type oldGraph struct {
	t    *testing.T
	pool *pgxpool.Pool
}

func (g oldGraph) id(sql string, args ...any) int64 {
	g.t.Helper()
	var id int64
	if err := g.pool.QueryRow(context.Background(), sql, args...).Scan(&id); err != nil {
		g.t.Fatalf("%s: %v", sql, err)
	}
	return id
}

func (g oldGraph) task() int64 {
	return g.id(`INSERT INTO tasks (hypothesis) VALUES ('h') RETURNING id`)
}

func (g oldGraph) page(url string) int64 {
	return g.id(`INSERT INTO pages (url, domain) VALUES ($1, 'example.org') RETURNING id`, url)
}

// target registers a target of the task, extracted to page (0: not yet).
func (g oldGraph) target(task int64, kind, value string, page int64) int64 {
	if page == 0 {
		return g.id(`INSERT INTO targets (task_id, kind, value) VALUES ($1, $2, $3) RETURNING id`, task, kind, value)
	}
	return g.id(`INSERT INTO targets (task_id, kind, value, status, page_id) VALUES ($1, $2, $3, 'extracted', $4) RETURNING id`,
		task, kind, value, page)
}

func (g oldGraph) taskPage(task, page int64, reason string, depth int, source *int64) {
	g.t.Helper()
	if _, err := g.pool.Exec(context.Background(), `INSERT INTO task_pages (task_id, page_id, reason, depth, source_page_id)
		VALUES ($1, $2, $3, $4, $5)`, task, page, reason, depth, source); err != nil {
		g.t.Fatal(err)
	}
}

// TestTargetOriginBackfill checks 00019 on a graph written before it:
// targets become a person's or a query's (with the query when the task has
// only one), task pages take the retrieval context of the target that
// brought them, the most direct when several did; citations stay
// citations; the new checks refuse what the closed sets leave out; down
// gives back the reasons 'target' and 'citation'.
func TestTargetOriginBackfill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, provider := migratedTo(t, 17)
	g := oldGraph{t: t, pool: pool}
	one, two := g.task(), g.task()
	user, found, paper, cited, both, hand := g.page("https://e.org/user"), g.page("https://e.org/found"), g.page("https://doi.org/10.1/p"),
		g.page("https://doi.org/10.1/c"), g.page("https://doi.org/10.1/both"), g.page("https://e.org/hand")
	query := g.target(one, "query", "sea ice", 0)
	userT := g.target(one, "url", "https://e.org/user", user)
	foundT := g.target(one, "url", "https://e.org/found", found)
	paperT := g.target(one, "doi", "10.1/p", paper)
	bothT := g.target(one, "url", "https://doi.org/10.1/both", both)
	// A result of the query not extracted yet: only its job says it is one.
	pendingT := g.target(one, "url", "https://e.org/pending", 0)
	g.id(`INSERT INTO river_job (kind, args, queue, priority, max_attempts, state)
		VALUES ('target_queue', $1::jsonb, 'target', 1, 8, 'available') RETURNING id`,
		`{"task_id": `+itoa(one)+`, "target": {"kind": "url", "value": "https://e.org/pending"}, "depth": 1}`)
	g.taskPage(one, user, "target", 0, nil)
	g.taskPage(one, found, "target", 1, nil)
	g.taskPage(one, paper, "target", 0, nil)
	g.taskPage(one, cited, "citation", 1, &paper)
	g.taskPage(one, both, "citation", 1, &paper) // the citation graph came first, then a person's url target
	g.taskPage(one, hand, "target", 0, nil)      // written by hand: no target
	// Two queries: which one found the result is not recorded.
	g.target(two, "query", "first", 0)
	g.target(two, "query", "second", 0)
	twoFound := g.page("https://e.org/two")
	twoFoundT := g.target(two, "url", "https://e.org/two", twoFound)
	g.taskPage(two, twoFound, "target", 1, nil)

	if _, err := provider.UpTo(ctx, 19); err != nil {
		t.Fatal(err)
	}
	type origin struct {
		via    string
		source *int64
	}
	for tid, want := range map[int64]origin{userT: {"user", nil}, foundT: {"query", &query}, paperT: {"user", nil}, bothT: {"user", nil},
		pendingT: {"query", &query}, query: {"user", nil}, twoFoundT: {"query", nil}} {
		var got origin
		if err := pool.QueryRow(ctx, `SELECT via, source_target_id FROM targets WHERE id = $1`, tid).Scan(&got.via, &got.source); err != nil {
			t.Fatal(err)
		}
		if got.via != want.via || deref64(got.source) != deref64(want.source) {
			t.Errorf("target %d: via %s from %s, want via %s from %s", tid, got.via, deref64(got.source), want.via, deref64(want.source))
		}
	}
	type taskPageRow struct {
		reason         string
		depth          int
		target, source *int64
	}
	for _, p := range []struct {
		task, page int64
		want       taskPageRow
	}{
		{one, user, taskPageRow{"url_target", 0, &userT, nil}},
		{one, found, taskPageRow{"search_query", 1, &foundT, nil}},
		{one, paper, taskPageRow{"doi_target", 0, &paperT, nil}},
		{one, cited, taskPageRow{"citation", 1, nil, &paper}},
		{one, both, taskPageRow{"url_target", 0, &bothT, nil}},
		{one, hand, taskPageRow{"url_target", 0, nil, nil}},
		{two, twoFound, taskPageRow{"search_query", 1, &twoFoundT, nil}},
	} {
		var got taskPageRow
		if err := pool.QueryRow(ctx, `SELECT reason, depth, target_id, source_page_id FROM task_pages WHERE task_id = $1 AND page_id = $2`,
			p.task, p.page).Scan(&got.reason, &got.depth, &got.target, &got.source); err != nil {
			t.Fatal(err)
		}
		w := p.want
		if got.reason != w.reason || got.depth != w.depth || deref64(got.target) != deref64(w.target) || deref64(got.source) != deref64(w.source) {
			t.Errorf("task page %d of task %d: %s at %d, target %s, source %s; want %s at %d, target %s, source %s", p.page, p.task,
				got.reason, got.depth, deref64(got.target), deref64(got.source), w.reason, w.depth, deref64(w.target), deref64(w.source))
		}
	}
	for _, refused := range []string{
		`INSERT INTO task_pages (task_id, page_id, reason) VALUES (` + itoa(two) + `, ` + itoa(user) + `, 'target')`,
		`INSERT INTO task_pages (task_id, page_id, reason) VALUES (` + itoa(two) + `, ` + itoa(user) + `, 'citation')`,
		`INSERT INTO task_pages (task_id, page_id) VALUES (` + itoa(two) + `, ` + itoa(user) + `)`,
		`INSERT INTO targets (task_id, kind, value, via) VALUES (` + itoa(two) + `, 'url', 'https://e.org/x', 'link')`,
		`INSERT INTO targets (task_id, kind, value, source_target_id) VALUES (` + itoa(two) + `, 'url', 'https://e.org/y', ` + itoa(query) + `)`,
	} {
		if _, err := pool.Exec(ctx, refused); err == nil {
			t.Errorf("accepted after 00019: %s", refused)
		}
	}

	if _, err := provider.DownTo(ctx, 17); err != nil {
		t.Fatal(err)
	}
	var reasons []string
	rows, err := pool.Query(ctx, `SELECT reason FROM task_pages WHERE task_id = $1 ORDER BY page_id`, one)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			t.Fatal(err)
		}
		reasons = append(reasons, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"target", "target", "target", "citation", "target", "target"}; !slices.Equal(reasons, want) {
		t.Errorf("reasons after down: %v, want %v", reasons, want)
	}
}

func deref64(p *int64) string {
	if p == nil {
		return "<nil>"
	}
	return itoa(*p)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
