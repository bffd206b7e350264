package workers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/rank"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/riverqueue/river"
)

// Four pages on four domains about glaciers and sea level; one sentence
// (rerankRelevant) answers rerankHypothesis directly.
const (
	rerankURLWiki    = "https://en.wikipedia.org/wiki/Glacier_mass_balance"
	rerankURLScience = "https://www.sealevel-research.example.org/contributions"
	rerankURLBlog    = "https://blog.example-opinion.com/ice"
	rerankURLNews    = "https://news.example-daily.com/coast"

	rerankHypothesis = "Melting mountain glaciers contribute to sea level rise."
	rerankRelevant   = "The melting of mountain glaciers contributed about 21 percent of the observed sea level rise between 2000 and 2019."
	rerankThermal    = "Thermal expansion of warming ocean water is the other large contributor to the rise of the sea."
)

func rerankPages() []corpus.Page {
	return []corpus.Page{
		testfleet.Page(rerankURLWiki, "Glacier mass balance",
			"A glacier gains mass from snowfall in winter and loses it by melting and calving in summer; the balance decides whether it grows.",
			"Measurements on reference glaciers show a negative mass balance in most mountain ranges since the 1980s."),
		testfleet.Page(rerankURLScience, "Contributions to sea level rise",
			rerankRelevant,
			rerankThermal),
		testfleet.Page(rerankURLBlog, "Ice opinions",
			"Some commentators claim that the ice on the mountains is growing again after a few snowy winters.",
			"Ski resorts in the Alps extended their seasons with artificial snow and new lifts."),
		testfleet.Page(rerankURLNews, "Coastal flooding",
			"Coastal cities are preparing for higher tides as the sea level keeps rising every decade.",
			"Engineers raise dikes and restore wetlands that absorb storm surges."),
	}
}

// rerankBundle is a task with the four pages as targets, in a TxFleet.
type rerankBundle struct {
	ctx  context.Context
	f    *testfleet.TxFleet
	task int64
}

func setupRerank(t *testing.T, opts testfleet.Options) *rerankBundle {
	t.Helper()
	opts.Pages = rerankPages()
	f := testfleet.InTx(t, opts)
	task := f.CreateTask(t, rerankHypothesis)
	f.AddTargets(t, task, rerankURLWiki, rerankURLScience, rerankURLBlog, rerankURLNews)
	return &rerankBundle{ctx: context.Background(), f: f, task: task}
}

// run inserts a rerank job, works the rerank jobs and returns the job's
// state, last error and output.
func (b *rerankBundle) run(t *testing.T, args jobs.RerankArgs) (string, string, workers.RerankOutput) {
	t.Helper()
	res, err := b.f.Client.InsertTx(b.ctx, b.f.Tx, args, nil)
	if err != nil {
		t.Fatalf("insert rerank: %v", err)
	}
	if res.UniqueSkippedAsDuplicate {
		t.Fatalf("rerank %+v skipped as a duplicate", args)
	}
	return b.wait(t, res.Job.ID)
}

func (b *rerankBundle) wait(t *testing.T, id int64) (string, string, workers.RerankOutput) {
	t.Helper()
	b.f.Drain(t, jobs.KindRerank)
	state, lastErr, raw := testfleet.JobRow(t, b.f.Tx, id)
	var out workers.RerankOutput
	if state == "completed" {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("job %d output %s: %v", id, raw, err)
		}
	}
	return state, lastErr, out
}

// rankingRow is one stored row of task_rankings with its fragment's text.
type rankingRow struct {
	Rank                                    int
	FragmentID, PageID, PageVersionID       int64
	Start, End                              int
	Lexical, Cosine, Stage2, Rerank, Weight float64
	Final                                   float64
	TrustLevel, Query, Text, Domain         string
	RankedAt                                time.Time
}

func (b *rerankBundle) ranking(t *testing.T, query string) []rankingRow {
	t.Helper()
	rows, err := b.f.Tx.Query(b.ctx, `
		SELECT r.rank, r.fragment_id, r.page_id, r.page_version_id, r.start_char, r.end_char,
		       r.lexical_score, r.cosine, r.stage2_score, r.rerank_score, r.trust_weight, r.final_score,
		       r.trust_level, r.query, f.text, p.domain, r.ranked_at
		FROM task_rankings r JOIN fragments f ON f.id = r.fragment_id JOIN pages p ON p.id = r.page_id
		WHERE r.task_id = $1 AND r.query_hash = $2 ORDER BY r.rank`, b.task, rank.QueryHash(query))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []rankingRow
	for rows.Next() {
		var r rankingRow
		if err := rows.Scan(&r.Rank, &r.FragmentID, &r.PageID, &r.PageVersionID, &r.Start, &r.End,
			&r.Lexical, &r.Cosine, &r.Stage2, &r.Rerank, &r.Weight, &r.Final, &r.TrustLevel, &r.Query, &r.Text, &r.Domain, &r.RankedAt); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkRanking verifies what every stored ranking must satisfy.
func (b *rerankBundle) checkRanking(t *testing.T, rows []rankingRow) {
	t.Helper()
	for i, r := range rows {
		if r.Rank != i+1 {
			t.Errorf("position %d holds rank %d", i, r.Rank)
		}
		if i > 0 && r.Final > rows[i-1].Final {
			t.Errorf("rank %d scores %v, above rank %d's %v", r.Rank, r.Final, r.Rank-1, rows[i-1].Final)
		}
		if r.Weight != rank.TrustWeight(r.TrustLevel) || r.Weight <= 0 {
			t.Errorf("rank %d: trust %s weight %v", r.Rank, r.TrustLevel, r.Weight)
		}
	}
	violations := []struct {
		name string
		sql  string
	}{
		{"span text is the fragment's text in its version", `SELECT count(*) FROM task_rankings r
			JOIN page_versions v ON v.id = r.page_version_id JOIN fragments f ON f.id = r.fragment_id
			WHERE r.task_id = $1 AND substring(v.content FROM r.start_char + 1 FOR r.end_char - r.start_char) <> f.text`},
		{"span is the fragment's span", `SELECT count(*) FROM task_rankings r JOIN fragments f ON f.id = r.fragment_id
			WHERE r.task_id = $1 AND (f.page_id, f.page_version_id, f.start_char, f.end_char) <> (r.page_id, r.page_version_id, r.start_char, r.end_char)`},
		{"version is the one the task saw", `SELECT count(*) FROM task_rankings r
			LEFT JOIN task_pages tp ON tp.task_id = r.task_id AND tp.page_id = r.page_id AND tp.page_version_id = r.page_version_id
			WHERE r.task_id = $1 AND tp.task_id IS NULL`},
		{"no fragment twice in one ranking", `SELECT count(*) FROM (SELECT 1 FROM task_rankings WHERE task_id = $1
			GROUP BY query_hash, fragment_id HAVING count(*) > 1) d`},
	}
	for _, v := range violations {
		if n := queryInt(t, b.f.Tx, v.sql, b.task); n != 0 {
			t.Errorf("%s: %d violations", v.name, n)
		}
	}
}

// claimsSnapshot is every posterior column of the task's claims and the edges.
func (b *rerankBundle) claimsSnapshot(t *testing.T) string {
	t.Helper()
	var s string
	err := b.f.Tx.QueryRow(b.ctx, `SELECT
		COALESCE((SELECT string_agg(concat_ws(' ', id, alpha, beta, confidence, uncertainty, controversy, verdict,
			supporting_count, refuting_count, neutral_count, independent_sources, evidence_count), ';' ORDER BY id)
			FROM claims WHERE task_id = $1), '') || '|' ||
		COALESCE((SELECT string_agg(concat_ws(' ', id, relation, nli_edge_confidence, source_trust_level), ';' ORDER BY id) FROM edges), '')`,
		b.task).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRerank(t *testing.T) {
	t.Parallel()
	b := setupRerank(t, testfleet.Options{})
	b.f.Drain(t)

	var first []rankingRow
	t.Run("ranks the relevant fragment first, for the hypothesis by default", func(t *testing.T) {
		state, lastErr, out := b.run(t, jobs.RerankArgs{TaskID: b.task})
		if state != "completed" {
			t.Fatalf("rerank ended %s: %s", state, lastErr)
		}
		first = b.ranking(t, rerankHypothesis)
		if len(first) == 0 {
			t.Fatalf("no ranking stored; output %+v", out)
		}
		for _, r := range first {
			t.Logf("%d %.4f %-10s rerank %.4f stage2 %.4f lexical %.4f cosine %.4f %s: %.70s", r.Rank, r.Final, r.TrustLevel,
				r.Rerank, r.Stage2, r.Lexical, r.Cosine, r.Domain, r.Text)
		}
		if !strings.Contains(first[0].Text, rerankRelevant) {
			t.Errorf("rank 1 is %q, want the fragment with %q", first[0].Text, rerankRelevant)
		}
		if first[0].Query != rerankHypothesis || !out.FromHypothesis || out.QueryHash != rank.QueryHash(rerankHypothesis) {
			t.Errorf("query %q (from hypothesis %v, hash %s), want the hypothesis", first[0].Query, out.FromHypothesis, out.QueryHash)
		}
		b.checkRanking(t, first)
		fragments := queryInt(t, b.f.Tx, `SELECT count(*) FROM task_pages tp JOIN fragments f ON f.page_version_id = tp.page_version_id WHERE tp.task_id = $1`, b.task)
		if out.Lexical == 0 || out.Lexical > fragments || out.Reranked != out.Lexical || out.Ranked != len(first) ||
			out.Ranked != min(out.Reranked, config.Defaults().RankTopK) || out.NotEmbedded != 0 || out.Replaced != 0 {
			t.Errorf("output %+v inconsistent with %d ranked rows of %d task fragments", out, len(first), fragments)
		}
		// A fragment sharing no term with the query is not a full-text hit.
		for _, r := range first {
			if strings.Contains(r.Text, "Engineers raise dikes") {
				t.Errorf("fragment without a query term ranked: %q", r.Text)
			}
		}
	})

	t.Run("a re-run replaces the ranking, other queries keep theirs", func(t *testing.T) {
		// One transaction has one now(): age the stored rows so that rows
		// written again are told apart by their ranked_at.
		if _, err := b.f.Tx.Exec(b.ctx, `UPDATE task_rankings SET ranked_at = ranked_at - interval '1 hour' WHERE task_id = $1`, b.task); err != nil {
			t.Fatal(err)
		}
		if _, _, out := b.run(t, jobs.RerankArgs{TaskID: b.task, Query: "thermal expansion of the ocean"}); out.Ranked == 0 {
			t.Fatalf("second query ranked nothing: %+v", out)
		}
		state, lastErr, out := b.run(t, jobs.RerankArgs{TaskID: b.task})
		if state != "completed" {
			t.Fatalf("re-run ended %s: %s", state, lastErr)
		}
		again := b.ranking(t, rerankHypothesis)
		if out.Replaced != len(first) || len(again) != len(first) {
			t.Errorf("re-run replaced %d rows and stored %d, want %d and %d", out.Replaced, len(again), len(first), len(first))
		}
		for i := range again {
			if again[i].FragmentID != first[i].FragmentID || again[i].Final != first[i].Final {
				t.Errorf("rank %d: fragment %d (%v) after re-run, %d (%v) before", i+1, again[i].FragmentID, again[i].Final, first[i].FragmentID, first[i].Final)
			}
			if !again[i].RankedAt.After(first[i].RankedAt.Add(-time.Hour)) {
				t.Errorf("rank %d: ranked_at %v, the first run's aged to %v: not written again", i+1, again[i].RankedAt, first[i].RankedAt.Add(-time.Hour))
			}
		}
		if n := queryInt(t, b.f.Tx, `SELECT count(DISTINCT query_hash) FROM task_rankings WHERE task_id = $1`, b.task); n != 2 {
			t.Errorf("%d rankings for the task, want 2 (hypothesis and thermal expansion)", n)
		}
		thermal := b.ranking(t, "  Thermal   expansion of the OCEAN ") // same normalised query
		if len(thermal) == 0 || !strings.Contains(thermal[0].Text, rerankThermal) {
			t.Errorf("thermal expansion ranking starts with %+v, want %q", thermal, rerankThermal)
		}
	})

	t.Run("top_k bounds the ranking", func(t *testing.T) {
		for _, k := range []int{1, 2, 1000} {
			state, lastErr, out := b.run(t, jobs.RerankArgs{TaskID: b.task, TopK: k})
			if state != "completed" {
				t.Fatalf("top_k %d: ended %s: %s", k, state, lastErr)
			}
			rows := b.ranking(t, rerankHypothesis)
			if want := min(k, out.Lexical); len(rows) != want || out.Ranked != want {
				t.Errorf("top_k %d: %d rows (output %d), want %d", k, len(rows), out.Ranked, want)
			}
			if !strings.Contains(rows[0].Text, rerankRelevant) {
				t.Errorf("top_k %d: rank 1 is %q", k, rows[0].Text)
			}
			b.checkRanking(t, rows)
		}
	})

	t.Run("a job inserted with plain SQL runs", func(t *testing.T) {
		id := testfleet.InsertRawJob(t, b.f.Tx, jobs.KindRerank, jobs.QueueRerank,
			fmt.Sprintf(`{"task_id": %d, "query": "How much does thermal expansion of the ocean add to the rise of the sea?", "top_k": 2}`, b.task))
		state, lastErr, out := b.wait(t, id)
		if state != "completed" {
			t.Fatalf("raw rerank ended %s: %s", state, lastErr)
		}
		rows := b.ranking(t, "How much does thermal expansion of the ocean add to the rise of the sea?")
		if len(rows) != 2 || out.Ranked != 2 || out.FromHypothesis {
			t.Fatalf("%d rows, output %+v; want 2 for the given query", len(rows), out)
		}
		if !strings.Contains(rows[0].Text, rerankThermal) {
			t.Errorf("rank 1 is %q, want %q", rows[0].Text, rerankThermal)
		}
	})

	t.Run("bad args and unknown tasks are cancelled, not retried", func(t *testing.T) {
		tests := []struct {
			args string
			want string
		}{
			{`{"task_id": 0}`, `field "task_id"`},
			{fmt.Sprintf(`{"task_id": %d, "top_k": -3}`, b.task), `field "top_k"`},
			{fmt.Sprintf(`{"task_id": %d, "top_k": 1001}`, b.task), `field "top_k"`},
			{fmt.Sprintf(`{"task_id": %d, "limit": 3}`, b.task), `field "limit"`},
			{fmt.Sprintf(`{"task_id": %d, "query": ["sea"]}`, b.task), `field "query"`},
			{`[1]`, "expected a JSON object"},
			{`{"task_id": 987654}`, "task 987654 does not exist"},
		}
		for _, tt := range tests {
			id := testfleet.InsertRawJob(t, b.f.Tx, jobs.KindRerank, jobs.QueueRerank, tt.args)
			state, lastErr, _ := b.wait(t, id)
			if state != "cancelled" || !strings.Contains(lastErr, tt.want) {
				t.Errorf("args %s: %s with %q, want cancelled naming %q", tt.args, state, lastErr, tt.want)
			}
			if n := queryInt(t, b.f.Tx, `SELECT COALESCE(array_length(errors, 1), 0) FROM river_job WHERE id = $1`, id); n != 1 {
				t.Errorf("args %s: %d attempts recorded, want 1", tt.args, n)
			}
		}
	})

	t.Run("trust weights reorder the ranking and leave claims alone", func(t *testing.T) {
		if _, _, out := b.run(t, jobs.RerankArgs{TaskID: b.task}); out.Ranked == 0 {
			t.Fatal("nothing ranked")
		}
		before := b.ranking(t, rerankHypothesis)
		top := before[0]
		// The best-scored fragment of another domain: promoted to PRIMARY
		// (weight 1) it must overtake the top fragment, whose domain keeps
		// the level the policy gave it, whenever its raw rerank score
		// exceeds that level's weight times the top one's.
		var challenger *rankingRow
		for i := range before {
			if r := &before[i]; r.Domain != top.Domain && (challenger == nil || r.Rerank > challenger.Rerank) {
				challenger = r
			}
		}
		if top.TrustLevel == rank.Primary || challenger == nil ||
			!(challenger.Rerank*rank.TrustWeight(rank.Primary) > top.Rerank*rank.TrustWeight(top.TrustLevel)) {
			t.Fatalf("no fragment of another domain can overtake rank 1 (%s, %v): the corpus proves nothing", top.TrustLevel, top.Rerank)
		}
		snapshot := b.claimsSnapshot(t)
		setTrust := func(domain, level string) {
			if _, err := b.f.Tx.Exec(b.ctx, `UPDATE domains SET trust_level = $2 WHERE domain = $1`, domain, level); err != nil {
				t.Fatal(err)
			}
		}
		setTrust(challenger.Domain, rank.Primary)

		if state, lastErr, _ := b.run(t, jobs.RerankArgs{TaskID: b.task}); state != "completed" {
			t.Fatalf("rerank ended %s: %s", state, lastErr)
		}
		after := b.ranking(t, rerankHypothesis)
		b.checkRanking(t, after)
		pos := map[int64]rankingRow{}
		for _, r := range after {
			pos[r.FragmentID] = r
		}
		if c, tp := pos[challenger.FragmentID], pos[top.FragmentID]; c.Rank == 0 || tp.Rank == 0 || c.Rank >= tp.Rank {
			t.Errorf("challenger fragment %d at rank %d, former rank 1 at %d: trust did not reorder", challenger.FragmentID, c.Rank, tp.Rank)
		}
		// Trust changes the order only: every raw stage score stays.
		for _, r := range before {
			a, ok := pos[r.FragmentID]
			if !ok {
				continue
			}
			if a.Lexical != r.Lexical || a.Cosine != r.Cosine || a.Stage2 != r.Stage2 || a.Rerank != r.Rerank {
				t.Errorf("fragment %d: stage scores changed with trust: %+v → %+v", r.FragmentID, r, a)
			}
			wantLevel := r.TrustLevel
			if r.Domain == challenger.Domain {
				wantLevel = rank.Primary
			}
			if a.TrustLevel != wantLevel || a.Weight != rank.TrustWeight(wantLevel) {
				t.Errorf("fragment %d of %s: trust %s ×%v, want %s", r.FragmentID, r.Domain, a.TrustLevel, a.Weight, wantLevel)
			}
		}
		if got := b.claimsSnapshot(t); got != snapshot {
			t.Errorf("ranking with trust weights changed claims or edges:\nbefore %s\nafter  %s", snapshot, got)
		}

		// BLOCKED (weight 0) removes a domain's fragments from the ranking.
		setTrust(challenger.Domain, rank.Blocked)
		if state, lastErr, _ := b.run(t, jobs.RerankArgs{TaskID: b.task}); state != "completed" {
			t.Fatalf("rerank ended %s: %s", state, lastErr)
		}
		blocked := b.ranking(t, rerankHypothesis)
		if len(blocked) == 0 {
			t.Fatal("nothing ranked with one domain blocked")
		}
		for _, r := range blocked {
			if r.Domain == challenger.Domain {
				t.Errorf("fragment %d of blocked domain %s ranked %d", r.FragmentID, r.Domain, r.Rank)
			}
		}
		if got := b.claimsSnapshot(t); got != snapshot {
			t.Errorf("blocking a domain in the ranking changed claims or edges")
		}
	})
}

func TestRerankWithoutEmbeddingsScoresCosineZero(t *testing.T) {
	t.Parallel()
	// No embed worker: the fragments stay without embeddings.
	b := setupRerank(t, testfleet.Options{})
	b.f.Drain(t, jobs.KindTargetQueue)
	if n := queryInt(t, b.f.Tx, `SELECT count(*) FROM fragments WHERE embedding IS NOT NULL`); n != 0 {
		t.Fatalf("%d fragments embedded without an embed worker", n)
	}
	state, lastErr, out := b.run(t, jobs.RerankArgs{TaskID: b.task})
	if state != "completed" {
		t.Fatalf("rerank ended %s: %s", state, lastErr)
	}
	if out.Lexical == 0 || out.NotEmbedded != out.Lexical {
		t.Errorf("output %+v: want every candidate counted as not embedded", out)
	}
	rows := b.ranking(t, rerankHypothesis)
	if len(rows) == 0 {
		t.Fatal("nothing ranked")
	}
	for _, r := range rows {
		if r.Cosine != 0 {
			t.Errorf("fragment %d without embedding has cosine %v", r.FragmentID, r.Cosine)
		}
	}
	b.checkRanking(t, rows)
}

func TestRerankScoresTheShortlistInOneRerankerCall(t *testing.T) {
	t.Parallel()
	// A reranker batch size far below the shortlist must not split the
	// shortlist: the built-in BM25's scores are comparable within one call only.
	b := setupRerank(t, testfleet.Options{Adjust: func(c *config.Config) { c.Rerank.Batch = 2 }})
	b.f.Drain(t)
	state, lastErr, out := b.run(t, jobs.RerankArgs{TaskID: b.task})
	if state != "completed" {
		t.Fatalf("rerank ended %s: %s", state, lastErr)
	}
	rows := b.ranking(t, rerankHypothesis)
	if out.Reranked < 3 || len(rows) != out.Reranked {
		t.Fatalf("%d fragments reranked, %d ranked: the test needs the whole shortlist ranked and more than one batch", out.Reranked, len(rows))
	}
	docs := make([]string, len(rows))
	for i, r := range rows {
		docs[i] = r.Text
	}
	bm25 := builtin.NewBM25Reranker()
	whole, err := bm25.Rerank(b.ctx, rerankHypothesis, docs)
	if err != nil {
		t.Fatal(err)
	}
	var batched []float64
	for start := 0; start < len(docs); start += 2 {
		s, err := bm25.Rerank(b.ctx, rerankHypothesis, docs[start:min(start+2, len(docs))])
		if err != nil {
			t.Fatal(err)
		}
		batched = append(batched, s...)
	}
	differ := false
	for i, r := range rows {
		if r.Rerank != whole[i] {
			t.Errorf("rank %d: stored rerank score %v, one BM25 call over the shortlist gives %v", r.Rank, r.Rerank, whole[i])
		}
		differ = differ || batched[i] != whole[i]
	}
	if !differ {
		t.Error("BM25 in batches of 2 scores like one call: the test proves nothing")
	}
}

func TestRerankJobsAreUniqueWhileWaiting(t *testing.T) {
	t.Parallel()
	// Nothing serves the rerank queue at first: inserted jobs wait.
	b := setupRerank(t, testfleet.Options{})
	b.f.Drain(t, jobs.KindTargetQueue, jobs.KindEmbed, jobs.KindVerifyNLI)
	insert := func(args jobs.RerankArgs) bool {
		t.Helper()
		res, err := b.f.Client.InsertTx(b.ctx, b.f.Tx, args, nil)
		if err != nil {
			t.Fatalf("insert %+v: %v", args, err)
		}
		return res.UniqueSkippedAsDuplicate
	}
	tests := []struct {
		args      jobs.RerankArgs
		duplicate bool
	}{
		{jobs.RerankArgs{TaskID: b.task}, false},
		{jobs.RerankArgs{TaskID: b.task}, true},
		{jobs.RerankArgs{TaskID: b.task, TopK: 3}, false},
		{jobs.RerankArgs{TaskID: b.task, Query: "sea level"}, false},
		{jobs.RerankArgs{TaskID: b.task, Query: "sea level"}, true},
	}
	for _, tt := range tests {
		if got := insert(tt.args); got != tt.duplicate {
			t.Errorf("insert %+v: duplicate %v, want %v", tt.args, got, tt.duplicate)
		}
	}
	// Once they completed, the same request ranks again.
	b.f.Drain(t, jobs.KindRerank)
	if n := queryInt(t, b.f.Tx, `SELECT count(*) FROM river_job WHERE kind = 'rerank' AND state = 'completed'`); n != 3 {
		t.Errorf("%d rerank jobs completed, want 3:\n%s", n, testfleet.JobDump(t, b.f.Tx))
	}
	if insert(jobs.RerankArgs{TaskID: b.task}) {
		t.Error("a rerank after the completed one was skipped as a duplicate")
	}
}

func TestRerankSnoozesWhileTheRerankerIsDown(t *testing.T) {
	t.Parallel()
	// A TEI reranker address nothing listens on any more.
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close()
	b := setupRerank(t, testfleet.Options{Adjust: func(c *config.Config) {
		c.Rerank.Backend, c.Rerank.URL, c.Rerank.ModelName, c.Rerank.Retries = "tei", url, "bge-reranker-base", 0
	}})
	b.f.Drain(t)
	res, err := b.f.Client.InsertTx(b.ctx, b.f.Tx, jobs.RerankArgs{TaskID: b.task}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := b.f.WorkNext(t, jobs.KindRerank); w == nil || w.EventKind != river.EventKindJobSnoozed {
		t.Fatalf("rerank with the reranker down: %+v, want snoozed:\n%s", w, testfleet.JobDump(t, b.f.Tx))
	}
	// Waiting for the server uses up no attempt and records no error.
	var state string
	var errs int
	if err := b.f.Tx.QueryRow(b.ctx, `SELECT state, COALESCE(array_length(errors, 1), 0) FROM river_job WHERE id = $1`, res.Job.ID).
		Scan(&state, &errs); err != nil {
		t.Fatal(err)
	}
	if (state != "scheduled" && state != "available" && state != "running") || errs != 0 {
		t.Errorf("job %s with %d errors while the reranker is down, want it waiting without errors", state, errs)
	}
	if n := queryInt(t, b.f.Tx, `SELECT count(*) FROM task_rankings`); n != 0 {
		t.Errorf("%d ranking rows stored without a reranker", n)
	}
}

func TestRerankRetriesAGarbageAnswer(t *testing.T) {
	t.Parallel()
	// A TEI /rerank that answers a well-formed list with one result too few.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query     string   `json:"query"`
			Texts     []string `json:"texts"`
			Truncate  bool     `json:"truncate"`
			RawScores bool     `json:"raw_scores"`
		}
		if r.URL.Path != "/rerank" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":"bad request","error_type":"Validation"}`, http.StatusUnprocessableEntity)
			return
		}
		ranks := []map[string]any{}
		for i := range len(req.Texts) - 1 {
			ranks = append(ranks, map[string]any{"index": i, "score": 0.5})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(ranks)
	}))
	t.Cleanup(srv.Close)
	b := setupRerank(t, testfleet.Options{Adjust: func(c *config.Config) {
		c.Rerank.Backend, c.Rerank.URL, c.Rerank.ModelName = "tei", srv.URL, "bge-reranker-base"
	}})
	b.f.Drain(t)
	res, err := b.f.Client.InsertTx(b.ctx, b.f.Tx, jobs.RerankArgs{TaskID: b.task}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.f.WorkNext(t, jobs.KindRerank)
	state, lastErr, _ := testfleet.JobRow(t, b.f.Tx, res.Job.ID)
	if state != "retryable" && state != "available" { // a short backoff is left available (River's scheduler)
		t.Errorf("after a garbage answer the job is %s, want it retried", state)
	}
	if !strings.Contains(lastErr, "rerank") || !strings.Contains(lastErr, remoteerr.ErrBadResponse.Error()) {
		t.Errorf("error %q does not say the reranker answered garbage", lastErr)
	}
	if n := queryInt(t, b.f.Tx, `SELECT count(*) FROM task_rankings`); n != 0 {
		t.Errorf("%d ranking rows stored from a garbage answer", n)
	}
}
