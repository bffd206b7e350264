package store

import (
	"context"
	"fmt"
)

// recallCTEs and recallQuery are what both recall paths share (stage 1 of
// cross-source verification, ARCHITECTURE.md §5.2, for many claims in one
// round trip): for each claim, the task's fragments that match any of the
// claim's terms, excluding the claim's origin site, ranked by ts_rank, at
// most $5 per claim. Only fragments with an embedding for the model qualify
// (stage 2 ranks by cosine). The rank counts the page's title as part of
// each fragment's text (pages.title_tsv), as the in-memory index does, and a title
// match recalls the page's fragments too (titles: the task's page versions,
// one a page, with their page's domain and title lexemes, pages.title_tsv).
//
// Terms found in more than $7 of all fragments (Postgres's own statistics of
// fragments.tsv, most_common_elems, kept by ANALYZE/autovacuum) are left out
// of the OR as long as the claim keeps $8 rarer terms: such a term carries
// little weight in the ranking but matches a large share of the fragments,
// and every match costs a ts_rank. Without statistics (a fresh database)
// every term is used.
// Hand-written: sqlc cannot analyse the LATERAL joins over unnest.
const recallCTEs = `
WITH common AS MATERIALIZED (` + recallCommon + `),
titles AS MATERIALIZED (
    SELECT tp.page_version_id, p.domain, p.title_tsv AS tsv
    FROM task_pages tp
    JOIN pages p ON p.id = tp.page_id
    WHERE tp.task_id = $1 AND tp.page_version_id IS NOT NULL
)`

const recallCommon = `
    SELECT e.lexeme, e.freq
    FROM pg_stats s,
         unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, freq)
    WHERE s.schemaname = current_schema() AND s.tablename = 'fragments' AND s.attname = 'tsv'
      AND e.lexeme IS NOT NULL AND e.freq > $7
`

const recallQuery = `
FROM unnest($2::bigint[], $3::text[], $4::text[]) AS c(claim_id, claim_text, exclude_site)
CROSS JOIN LATERAL (
    SELECT COALESCE(string_agg(quote_literal(t.lexeme), ' | '), '')::tsquery AS q,
           COALESCE(array_agg(t.lexeme), '{}') AS lexemes
    FROM (
        SELECT l.lexeme, common.freq,
               row_number() OVER (ORDER BY COALESCE(common.freq, 0), l.lexeme) AS rarity
        FROM unnest(tsvector_to_array(to_tsvector('english'::regconfig, c.claim_text))) AS l(lexeme)
        LEFT JOIN common ON common.lexeme = l.lexeme
    ) AS t
    WHERE t.freq IS NULL OR t.rarity <= $8
) AS query`

// recallThroughGraphSQL finds a claim's matches through the graph-wide GIN
// index on fragments.tsv and keeps the task's: a claim's fragments are
// those the index finds in the task plus those of the task's pages whose
// title matches. Its cost grows with the matches in the whole graph (each
// is a heap visit), which is right while the task is much of the graph.
const recallThroughGraphSQL = recallCTEs + `
SELECT c.claim_id, r.id, r.rank` + recallQuery + `
CROSS JOIN LATERAL (
    SELECT m.id, ts_rank(m.tsv || titles.tsv, query.q)::float8 AS rank
    FROM (
        SELECT f.id, f.tsv, f.page_version_id
        FROM task_pages tp
        JOIN fragments f ON f.page_version_id = tp.page_version_id
        WHERE tp.task_id = $1 AND f.embed_model = $6 AND f.tsv @@ query.q
        UNION
        SELECT f.id, f.tsv, f.page_version_id
        FROM titles
        JOIN fragments f ON f.page_version_id = titles.page_version_id
        WHERE titles.tsv @@ query.q AND f.embed_model = $6
    ) AS m
    JOIN titles ON titles.page_version_id = m.page_version_id
    WHERE titles.domain <> c.exclude_site AND right(titles.domain, length(c.exclude_site) + 1) <> ('.' || c.exclude_site)
    ORDER BY rank DESC, m.id
    LIMIT $5
) AS r`

// recallThroughTaskSQL finds the matches of many claims at once: it reads
// the task's embedded fragments once per call, through the index on their
// page versions, each with its page title's lexemes (the text
// recallThroughGraphSQL ranks), and joins the claims' terms with every
// lexeme of them (about 23 a fragment); only the matches are ranked. Its
// cost grows with the task, once per call, whatever the claims, and does
// not depend on the rest of the graph. For the OR of plain lexemes recall
// builds, a fragment shares a term with the query exactly when fragment ||
// title matches it, so both paths return the same rows.
const recallThroughTaskSQL = recallCTEs + `,
queries AS MATERIALIZED (
    SELECT c.claim_id, c.exclude_site, query.q, query.lexemes` + recallQuery + `
),
task_fragments AS MATERIALIZED (
    SELECT f.id, f.tsv || m.tsv AS tsv, m.domain
    FROM task_pages tp
    JOIN fragments f ON f.page_version_id = tp.page_version_id
    JOIN titles m ON m.page_version_id = f.page_version_id
    WHERE tp.task_id = $1 AND f.embed_model = $6
),
matched AS (
    SELECT DISTINCT q.claim_id, t.id
    FROM queries q
    CROSS JOIN LATERAL unnest(q.lexemes) AS ql(lexeme)
    JOIN (SELECT m.id, l.lexeme FROM task_fragments m, unnest(tsvector_to_array(m.tsv)) AS l(lexeme)) AS t
      ON t.lexeme = ql.lexeme
),
ranked AS (
    SELECT x.claim_id, m.id, ts_rank(m.tsv, q.q)::float8 AS rank
    FROM matched x
    JOIN queries q ON q.claim_id = x.claim_id
    JOIN task_fragments m ON m.id = x.id
    WHERE ` + notOwnSite + `
),` + recallRanked

// recallRanked keeps each claim's $5 best of ranked.
const recallRanked = `
numbered AS (
    SELECT r.*, row_number() OVER (PARTITION BY r.claim_id ORDER BY r.rank DESC, r.id) AS n
    FROM ranked r
)
SELECT claim_id, id, rank FROM numbered WHERE n <= $5 ORDER BY claim_id, n`

// notOwnSite keeps the fragments of m (domain) that are not of the claim's
// (q.exclude_site) site.
const notOwnSite = `m.domain <> q.exclude_site AND right(m.domain, length(q.exclude_site) + 1) <> ('.' || q.exclude_site)`

// recallThroughTermsSQL finds a few claims' matches through the task's own
// full-text index (task_fragment_terms, which RefreshTaskTerms keeps): a
// GIN search by the task's id and the claim's query finds exactly the
// task's matching fragments, each with its title's lexemes, so its cost is
// the claim's matches in the task, read and ranked, whatever the size of
// the task or of the graph. Rows of page versions that left the task are
// left out at each match (a hash of the task's page versions). Whether a
// fragment is embedded with the model is asked of the fragments in rank
// order, only until a claim has $5 (most are, so about $5 lookups instead
// of one a match): the OFFSET 0 keeps the planner, which expects few
// matches from a GIN, from looking every match up before the sort. The
// result is that of filtering first, as the other paths do.
const recallThroughTermsSQL = `
WITH common AS MATERIALIZED (` + recallCommon + `),
queries AS MATERIALIZED (
    SELECT c.claim_id, c.exclude_site, query.q` + recallQuery + `
),
live AS MATERIALIZED (
    SELECT tp.page_version_id FROM task_pages tp WHERE tp.task_id = $1 AND tp.page_version_id IS NOT NULL
)
SELECT q.claim_id, r.id, r.rank
FROM queries q
CROSS JOIN LATERAL (
    SELECT s.id, s.rank
    FROM (
        SELECT m.fragment_id AS id, ts_rank(m.tsv, q.q)::float8 AS rank
        FROM task_fragment_terms m
        WHERE m.task_id = $1 AND m.tsv @@ q.q AND m.page_version_id IN (SELECT page_version_id FROM live)
          AND ` + notOwnSite + `
        ORDER BY rank DESC, id
        OFFSET 0
    ) AS s
    JOIN fragments f ON f.id = s.id
    WHERE f.embed_model = $6
    ORDER BY s.rank DESC, s.id
    LIMIT $5
) AS r
ORDER BY q.claim_id, r.rank DESC, r.id`

// RecallPath is how RecallCandidates finds a claim's matches.
type RecallPath int

const (
	// RecallThroughGraph uses the graph-wide full-text index and keeps the
	// task's matches (recallThroughGraphSQL).
	RecallThroughGraph RecallPath = iota
	// RecallThroughTask finds the matches among the task's own fragments
	// through the task's term index (recallThroughTermsSQL, brought up to
	// the task's state first by RefreshTaskTerms).
	RecallThroughTask
	// RecallReadingTask reads the task's fragments once per call
	// (recallThroughTaskSQL): what the task path did before the term
	// index; ChooseRecallPath never returns it. For comparison
	// (TestRecallPathsAgree, the retrieval bench). At a task of 10,000
	// fragments in a graph of 1,000,000 the term index was faster at every
	// call size tried, 1 to 256 claims (2026-12-03, by hand on the
	// retrieval bench's graph: 8 claims 67 against 227 ms, 64 claims 553
	// against 816 ms, 256 claims 2.7 against 8.1 s).
	RecallReadingTask
)

// recallTaskShare is the share of the graph's fragments up to which a task
// is recalled through its own fragments. The graph path pays a heap visit
// for every match in the graph (about 3 µs each; a claim's query matches 1
// to 5 % of the fragments once the common terms are gone), the task path a
// test of every fragment of the task (about 0.3 µs, read once per call):
// at a quarter of the graph they cost about the same per claim.
const recallTaskShare = 4

// ChooseRecallPath is the cheaper path for a task of taskFragments in a
// graph of graphFragments (an estimate: GraphFragments).
func ChooseRecallPath(taskFragments, graphFragments int64) RecallPath {
	if taskFragments*recallTaskShare <= graphFragments {
		return RecallThroughTask
	}
	return RecallThroughGraph
}

// GraphFragments is Postgres's estimate of the fragments in the graph
// (pg_class.reltuples, kept by ANALYZE and autovacuum; -1 before the first).
func (q *Queries) GraphFragments(ctx context.Context) (int64, error) {
	var n float64
	if err := q.db.QueryRow(ctx, `SELECT reltuples::float8 FROM pg_class WHERE oid = 'fragments'::regclass`).Scan(&n); err != nil {
		return 0, fmt.Errorf("graph size: %w", err)
	}
	return int64(n), nil
}

// Recall bounds stage 1 (see recallCTEs).
type Recall struct {
	PerClaim    int     // candidates per claim
	MaxTermFreq float64 // a term in more than this share of fragments is dropped…
	MinTerms    int     // …while the claim keeps at least this many terms
}

// ClaimQuery is one claim to recall candidates for.
type ClaimQuery struct {
	ClaimID     int64
	Text        string
	ExcludeSite string // the registrable domain (ident.Site) of the claim's origin: none of its hosts is recalled; "" for none
}

// Recalled is one recalled fragment with its ts_rank for the claim.
type Recalled struct {
	ID   int64
	Rank float64
}

// freshTaskTerms brings the task's term index up to its work_version
// unless it is there already (one read, most calls).
func (q *Queries) freshTaskTerms(ctx context.Context, taskID int64) error {
	fresh, err := q.TaskTermsFresh(ctx, taskID)
	if err != nil || fresh {
		return err
	}
	_, err = q.RefreshTaskTerms(ctx, taskID)
	return err
}

// RecallCandidates returns, per claim id, candidate fragments in ts_rank
// order, found by path.
func (q *Queries) RecallCandidates(ctx context.Context, taskID int64, claims []ClaimQuery, lim Recall, embedModel string, path RecallPath) (map[int64][]Recalled, error) {
	ids := make([]int64, len(claims))
	texts := make([]string, len(claims))
	excl := make([]string, len(claims))
	for i, c := range claims {
		ids[i], texts[i], excl[i] = c.ClaimID, c.Text, c.ExcludeSite
	}
	sql := recallThroughGraphSQL
	switch {
	case path == RecallThroughTask:
		if err := q.freshTaskTerms(ctx, taskID); err != nil {
			return nil, fmt.Errorf("recall candidates: the task's term index: %w", err)
		}
		sql = recallThroughTermsSQL
	case path == RecallReadingTask:
		sql = recallThroughTaskSQL
	}
	rows, err := q.db.Query(ctx, sql, taskID, ids, texts, excl, lim.PerClaim, embedModel, lim.MaxTermFreq, lim.MinTerms)
	if err != nil {
		return nil, fmt.Errorf("recall candidates: %w", err)
	}
	defer rows.Close()
	out := make(map[int64][]Recalled, len(claims))
	for rows.Next() {
		var claimID int64
		var r Recalled
		if err := rows.Scan(&claimID, &r.ID, &r.Rank); err != nil {
			return nil, fmt.Errorf("recall candidates: %w", err)
		}
		out[claimID] = append(out[claimID], r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("recall candidates: %w", err)
	}
	return out, nil
}
