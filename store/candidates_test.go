package store_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestRecallLeavesOutCommonTermsOnlyWithStatistics: a term in nearly every
// fragment is dropped from the recall query once ANALYZE has seen it, as long
// as the claim keeps MinTerms rarer terms; before that, or with the pruning
// off, every term is used.
func TestRecallLeavesOutCommonTermsOnlyWithStatistics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	var task, page, version int64
	err := pool.QueryRow(ctx, `
		WITH t AS (INSERT INTO tasks (hypothesis) VALUES ('h') RETURNING id),
		     p AS (INSERT INTO pages (url, domain) VALUES ('https://a.example/x', 'a.example') RETURNING id),
		     v AS (INSERT INTO page_versions (page_id, sha256, content) SELECT id, 'x', repeat('x', 100000) FROM p RETURNING id, page_id),
		     tp AS (INSERT INTO task_pages (task_id, page_id, page_version_id, reason) SELECT t.id, v.page_id, v.id, 'url_target' FROM t, v)
		SELECT t.id, v.page_id, v.id FROM t, v`).Scan(&task, &page, &version)
	if err != nil {
		t.Fatal(err)
	}
	const common = 60
	for i := 0; i <= common; i++ {
		text := fmt.Sprintf("The climate report number %d discusses the weather.", i)
		if i == common {
			text = "Glaciers shelter penguins that migrate."
		}
		if _, err := pool.Exec(ctx, `
			INSERT INTO fragments (page_id, page_version_id, start_char, end_char, text, embedding, embed_model)
			VALUES ($1, $2, $3, $3 + 50, $4, '\x3f800000', 'm')`, page, version, i*100, text); err != nil {
			t.Fatal(err)
		}
	}
	claim := []store.ClaimQuery{{ClaimID: 1, Text: "Climate change makes glaciers shelter penguins."}}
	q := store.New(pool)
	recall := func(lim store.Recall) int {
		t.Helper()
		got, err := q.RecallCandidates(ctx, task, claim, lim, "m", store.RecallThroughGraph)
		if err != nil {
			t.Fatal(err)
		}
		viaTask, err := q.RecallCandidates(ctx, task, claim, lim, "m", store.RecallThroughTask)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, viaTask) {
			t.Errorf("the two paths differ:\n graph %v\n task  %v", got, viaTask)
		}
		return len(got[1])
	}
	pruned := store.Recall{PerClaim: 200, MaxTermFreq: 0.05, MinTerms: 3}
	if n := recall(pruned); n != common+1 {
		t.Errorf("without statistics: %d candidates, want every fragment matching a term (%d)", n, common+1)
	}
	if _, err := pool.Exec(ctx, "ANALYZE fragments"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		lim  store.Recall
		want int
	}{
		{"common term dropped", pruned, 1},
		{"pruning off", store.Recall{PerClaim: 200, MaxTermFreq: 1, MinTerms: 3}, common + 1},
		{"too few rare terms keep the common one", store.Recall{PerClaim: 200, MaxTermFreq: 0.05, MinTerms: 6}, common + 1},
		{"per-claim limit", store.Recall{PerClaim: 10, MaxTermFreq: 1, MinTerms: 3}, 10},
	}
	for _, tt := range tests {
		if n := recall(tt.lim); n != tt.want {
			t.Errorf("%s: %d candidates, want %d", tt.name, n, tt.want)
		}
	}
}

// TestRecallPathsAgree: recall through the graph-wide index and through the
// task's own fragments return the same fragments with the same ranks in the
// same order, on a task beside another task's matching pages, with a page
// both tasks hold, a title that matches where the text does not, a site the
// claim comes from and a fragment embedded by another model.
func TestRecallPathsAgree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	var mine, other int64
	if err := pool.QueryRow(ctx, `WITH a AS (INSERT INTO tasks (hypothesis) VALUES ('a') RETURNING id),
		b AS (INSERT INTO tasks (hypothesis) VALUES ('b') RETURNING id) SELECT a.id, b.id FROM a, b`).Scan(&mine, &other); err != nil {
		t.Fatal(err)
	}
	type frag struct{ text, model string }
	pages := []struct {
		url, domain, title string
		tasks              []int64
		frags              []frag
	}{
		{"https://a.example/1", "a.example", "Arctic sea ice", []int64{mine}, []frag{
			{"Sea ice in the Arctic is thinning every decade.", "m"}, {"Polar bears hunt seals on the ice.", "m"},
			{"Nothing here matches at all.", "m"}, {"Glaciers retreat as oceans warm.", "x"}}},
		{"https://news.b.org/2", "news.b.org", "Glacier retreat", []int64{mine}, []frag{
			{"A story with no claim terms.", "m"}, {"Glaciers retreat quickly in the Alps.", "m"}}},
		{"https://www.origin.net/3", "www.origin.net", "Sea ice loss", []int64{mine}, []frag{{"Arctic sea ice thins.", "m"}}},
		{"https://shared.example/4", "shared.example", "Ocean heat", []int64{mine, other}, []frag{{"Oceans warm and sea ice melts.", "m"}}},
		{"https://c.example/5", "c.example", "Sea ice", []int64{other}, []frag{{"Arctic sea ice and polar bears and glaciers.", "m"}}},
	}
	for i, pg := range pages {
		var page, version int64
		if err := pool.QueryRow(ctx, `WITH p AS (INSERT INTO pages (url, domain, title) VALUES ($1, $2, $3) RETURNING id),
			v AS (INSERT INTO page_versions (page_id, sha256, content) SELECT id, $4, repeat('x', 1000) FROM p RETURNING id, page_id)
			SELECT page_id, id FROM v`, pg.url, pg.domain, pg.title, fmt.Sprint(i)).Scan(&page, &version); err != nil {
			t.Fatal(err)
		}
		for _, task := range pg.tasks {
			if _, err := pool.Exec(ctx, `INSERT INTO task_pages (task_id, page_id, page_version_id, reason) VALUES ($1, $2, $3, 'url_target')`,
				task, page, version); err != nil {
				t.Fatal(err)
			}
		}
		for j, f := range pg.frags {
			if _, err := pool.Exec(ctx, `INSERT INTO fragments (page_id, page_version_id, start_char, end_char, text, embedding, embed_model)
				VALUES ($1, $2, $3, $3 + 50, $4, '\x3f800000', $5)`, page, version, j*100, f.text, f.model); err != nil {
				t.Fatal(err)
			}
		}
	}
	claims := []store.ClaimQuery{
		{ClaimID: 1, Text: "Arctic sea ice is thinning.", ExcludeSite: "origin.net"},
		{ClaimID: 2, Text: "Glaciers retreat as the oceans warm."},
		{ClaimID: 3, Text: "Polar bears depend on sea ice.", ExcludeSite: "a.example"},
		{ClaimID: 4, Text: "Quantum chromodynamics."},
	}
	// the same claims three times over, in one call and one at a time:
	// through the task's term index, and reading the task once per call
	many := slices.Clone(claims)
	for k := 1; k <= 2; k++ {
		for _, c := range claims {
			c.ClaimID += int64(4 * k)
			many = append(many, c)
		}
	}
	q := store.New(pool)
	for _, lim := range []store.Recall{{PerClaim: 100, MaxTermFreq: 1, MinTerms: 3}, {PerClaim: 2, MaxTermFreq: 1, MinTerms: 3}} {
		graph, err := q.RecallCandidates(ctx, mine, many, lim, "m", store.RecallThroughGraph)
		if err != nil {
			t.Fatal(err)
		}
		task, err := q.RecallCandidates(ctx, mine, many, lim, "m", store.RecallThroughTask)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(graph, task) {
			t.Errorf("per claim %d: the paths differ:\n graph %v\n task  %v", lim.PerClaim, graph, task)
		}
		reading, err := q.RecallCandidates(ctx, mine, many, lim, "m", store.RecallReadingTask)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(graph, reading) {
			t.Errorf("per claim %d: the paths differ:\n graph   %v\n reading %v", lim.PerClaim, graph, reading)
		}
		for _, c := range many {
			one, err := q.RecallCandidates(ctx, mine, []store.ClaimQuery{c}, lim, "m", store.RecallThroughTask)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(one[c.ClaimID], graph[c.ClaimID]) {
				t.Errorf("per claim %d, claim %d alone through the task: %v, want %v", lim.PerClaim, c.ClaimID, one[c.ClaimID], graph[c.ClaimID])
			}
			read, err := q.RecallCandidates(ctx, mine, []store.ClaimQuery{c}, lim, "m", store.RecallReadingTask)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(read[c.ClaimID], graph[c.ClaimID]) {
				t.Errorf("per claim %d, claim %d alone reading the task: %v, want %v", lim.PerClaim, c.ClaimID, read[c.ClaimID], graph[c.ClaimID])
			}
		}
		// 1: a.example's two matching fragments and the one its title matches, and the shared page's; not
		// origin.net's (the claim's site), c.example's (the other task's) nor the fragment of model x.
		// 2: news.b.org's two (one by its title alone) and the shared page's. 3: origin.net's and the shared page's.
		if lim.PerClaim == 100 && (len(graph[1]) != 4 || len(graph[2]) != 3 || len(graph[3]) != 2 || len(graph[4]) != 0) {
			t.Errorf("candidates per claim: %d, %d, %d, %d; want 4, 3, 2, 0: %v", len(graph[1]), len(graph[2]), len(graph[3]), len(graph[4]), graph)
		}
	}
}

// TestTaskTermIndexFollowsTheTask: recall through the task's term index
// finds what the graph path finds as the task moves: a page that joins it
// later (with its work_version bumped, as every writer does) is found, a
// page version that left it and a fragment embedded with another model are
// not, though their term rows stay.
func TestTaskTermIndexFollowsTheTask(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	q := store.New(tx)
	var task int64
	if err := tx.QueryRow(ctx, `INSERT INTO tasks (hypothesis) VALUES ('h') RETURNING id`).Scan(&task); err != nil {
		t.Fatal(err)
	}
	addPage := func(url, title string, texts ...string) (page, version int64, frags []int64) {
		t.Helper()
		if err := tx.QueryRow(ctx, `WITH p AS (INSERT INTO pages (url, domain, title) VALUES ($1, 'd.example', $2) RETURNING id),
			v AS (INSERT INTO page_versions (page_id, sha256, content) SELECT id, $1, 'x' FROM p RETURNING id, page_id),
			l AS (INSERT INTO task_pages (task_id, page_id, page_version_id, reason) SELECT $3, page_id, id, 'url_target' FROM v)
			SELECT page_id, id FROM v`, url, title, task).Scan(&page, &version); err != nil {
			t.Fatal(err)
		}
		for i, text := range texts {
			var id int64
			if err := tx.QueryRow(ctx, `INSERT INTO fragments (page_id, page_version_id, start_char, end_char, text, embedding, embed_model)
				VALUES ($1, $2, $3, $3 + 50, $4, '\x3f800000', 'm') RETURNING id`, page, version, i*100, text).Scan(&id); err != nil {
				t.Fatal(err)
			}
			frags = append(frags, id)
		}
		if _, err := tx.Exec(ctx, `UPDATE tasks SET work_version = work_version + 1 WHERE id = $1`, task); err != nil {
			t.Fatal(err)
		}
		return page, version, frags
	}
	claim := []store.ClaimQuery{{ClaimID: 1, Text: "Glaciers retreat in the Alps."}}
	lim := store.Recall{PerClaim: 100, MaxTermFreq: 1, MinTerms: 3}
	recall := func(want ...int64) {
		t.Helper()
		viaTerms, err := q.RecallCandidates(ctx, task, claim, lim, "m", store.RecallThroughTask)
		if err != nil {
			t.Fatal(err)
		}
		graph, err := q.RecallCandidates(ctx, task, claim, lim, "m", store.RecallThroughGraph)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range viaTerms[1] {
			got = append(got, r.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) || !reflect.DeepEqual(viaTerms, graph) {
			t.Errorf("through the term index %v (fragments %v), through the graph %v; want fragments %v", viaTerms, got, graph, want)
		}
	}
	_, _, first := addPage("https://d.example/1", "Alpine glaciers", "Glaciers retreat every summer.", "Nothing to see.")
	recall(first[0], first[1]) // the second by its page's title
	page2, version2, second := addPage("https://d.example/2", "Weather", "The Alps lose ice.", "Rain falls.")
	recall(first[0], first[1], second[0])
	if _, err := tx.Exec(ctx, `UPDATE fragments SET embed_model = 'x' WHERE id = $1`, first[1]); err != nil {
		t.Fatal(err)
	}
	recall(first[0], second[0])
	if _, err := tx.Exec(ctx, `DELETE FROM task_pages WHERE task_id = $1 AND page_id = $2 AND page_version_id = $3`, task, page2, version2); err != nil {
		t.Fatal(err)
	}
	recall(first[0])
	var rows int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM task_fragment_terms WHERE task_id = $1`, task).Scan(&rows); err != nil || rows != 4 {
		t.Errorf("%d term rows (%v), want the 4 fragments' rows", rows, err)
	}
	if _, err := q.DeleteTaskTerms(ctx, task); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM task_fragment_terms WHERE task_id = $1`, task).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("%d term rows after the cleanup (%v), want none", rows, err)
	}
}

// TestTaskTermIndexRefreshedByManyAtOnce: shards of one task that find its
// term index stale together all recall, and each fragment gets one row.
func TestTaskTermIndexRefreshedByManyAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	var task int64
	if err := pool.QueryRow(ctx, `INSERT INTO tasks (hypothesis) VALUES ('h') RETURNING id`).Scan(&task); err != nil {
		t.Fatal(err)
	}
	const pages, perPage = 40, 5
	for i := range pages {
		if _, err := pool.Exec(ctx, `WITH p AS (INSERT INTO pages (url, domain, title) VALUES ($1, 'e.example', 'Glaciers') RETURNING id),
			v AS (INSERT INTO page_versions (page_id, sha256, content) SELECT id, $1, 'x' FROM p RETURNING id, page_id),
			l AS (INSERT INTO task_pages (task_id, page_id, page_version_id, reason) SELECT $2, page_id, id, 'url_target' FROM v)
			INSERT INTO fragments (page_id, page_version_id, start_char, end_char, text, embedding, embed_model)
			SELECT v.page_id, v.id, n * 100, n * 100 + 50, 'Glaciers retreat, part ' || n, '\x3f800000', 'm' FROM v, generate_series(0, $3 - 1) AS n`,
			fmt.Sprintf("https://e.example/%d", i), task, perPage); err != nil {
			t.Fatal(err)
		}
	}
	q := store.New(pool)
	lim := store.Recall{PerClaim: 1000, MaxTermFreq: 1, MinTerms: 3}
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			got, err := q.RecallCandidates(ctx, task, []store.ClaimQuery{{ClaimID: int64(i), Text: "Glaciers retreat."}}, lim, "m", store.RecallThroughTask)
			if err == nil && len(got[int64(i)]) != pages*perPage {
				err = fmt.Errorf("%d candidates, want %d", len(got[int64(i)]), pages*perPage)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	var rows, distinct int
	if err := pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT fragment_id) FROM task_fragment_terms WHERE task_id = $1`, task).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != pages*perPage || distinct != rows {
		t.Errorf("%d term rows of %d fragments, want one for each of %d", rows, distinct, pages*perPage)
	}
}
