package eval

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/search"
	"github.com/evidencefleet/evidencefleet/internal/textclip"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// Mode is how the evaluation fleet gets its evidence.
type Mode string

const (
	// ModeGiven gives the fleet every replayed article as a target.
	ModeGiven Mode = "given"
	// ModeOpen gives it only the claims, each with its query targets
	// (openModeTargets): the fleet searches the replay archive
	// (internal/search/offline), fetches what it finds, extracts and judges.
	ModeOpen Mode = "open"
	// ModeSelfDirected gives it only the claims, each as its own task with
	// self-directed retrieval (budget SelfDirectedBudget): the fleet's
	// planner decides what to search for (internal/planner), the fleet
	// searches the replay archive, fetches, extracts and judges.
	ModeSelfDirected Mode = "self_directed"
)

// SelfDirectedBudget is the budget class of each claim's task in
// self-directed mode.
const SelfDirectedBudget = "minimal"

// Retrieval is what the fleet reached of the claims' gold evidence
// articles (GoldArticles), and what it spent on it (task_costs).
type Retrieval struct {
	// ClaimsWithArticle are the claims with at least one nameable evidence article.
	ClaimsWithArticle int `json:"claims_with_gold_article"`
	// InTask: of them, claims with a gold article among the task's pages.
	InTask int `json:"gold_article_in_task"`
	// Judged: of them, claims with an NLI edge from a fragment of a gold article.
	Judged int `json:"gold_article_judged"`
	// InOwnSearch (open mode): of them, claims with a gold article among
	// the results of their own queries, from the same deterministic offline
	// index the fleet searched, recomputed after the run; -1 in given mode.
	InOwnSearch int `json:"gold_article_in_own_search"`
	// Searches and Fetches are the task's whole spending (store.TaskCosts).
	Searches         int64   `json:"searches"`
	Fetches          int64   `json:"fetches"`
	SearchesPerClaim float64 `json:"searches_per_claim"`
	FetchesPerClaim  float64 `json:"fetches_per_claim"`
}

// openModeTargets are each record's query targets in open mode: for now
// one, the claim text (cut to jobs.MaxQueryRunes) normalised as every
// query target is. The one place that decides what the fleet is asked to
// search for each claim.
func openModeTargets(records []corpus.Record) ([][]jobs.Target, error) {
	out := make([][]jobs.Target, len(records))
	for i, r := range records {
		t, err := jobs.Target{Kind: jobs.TargetQuery, Value: textclip.Runes(strings.Join(strings.Fields(r.Claim), " "), jobs.MaxQueryRunes)}.Normalized()
		if err != nil {
			return nil, fmt.Errorf("claim %s: query target: %w", r.ClaimID, err)
		}
		out[i] = []jobs.Target{t}
	}
	return out, nil
}

// distinctTargets flattens per-record targets, each target once, in order.
func distinctTargets(per [][]jobs.Target) []jobs.Target {
	var out []jobs.Target
	seen := map[jobs.Target]bool{}
	for _, ts := range per {
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// GoldArticles returns, per record, the normalised URLs of the replay pages
// of its evidence articles: every evidence entry's article (e.Article, else
// the title part of its id, as GoldPairs names it), whatever its label —
// the articles the dataset's annotators were shown for the claim — each
// once, in order. An article whose URL does not normalise is left out.
func GoldArticles(records []corpus.Record) [][]string {
	out := make([][]string, len(records))
	for i, r := range records {
		seen := map[string]bool{}
		for _, e := range r.Evidences {
			title := e.Article
			if title == "" {
				title, _, _ = strings.Cut(e.EvidenceID, ":")
			}
			if strings.TrimSpace(title) == "" {
				continue
			}
			u, err := ident.NormalizeURL(corpus.WikipediaURL(title))
			if err != nil || seen[u] {
				continue
			}
			seen[u] = true
			out[i] = append(out[i], u)
		}
	}
	return out
}

// CountReached returns the records with a gold article (withArticle) and,
// of them, those with one that reached(i, url) says was reached. No I/O.
func CountReached(gold [][]string, reached func(record int, url string) bool) (withArticle, hit int) {
	for i, urls := range gold {
		if len(urls) == 0 {
			continue
		}
		withArticle++
		for _, u := range urls {
			if reached(i, u) {
				hit++
				break
			}
		}
	}
	return withArticle, hit
}

// PerClaim is n per claim (0 without claims).
func PerClaim(n int64, claims int) float64 {
	if claims == 0 {
		return 0
	}
	return float64(n) / float64(claims)
}

// scoreRetrievalOfArticles fills res.Retrieval from the task's pages, the
// claims' edges and costs; searcher and queries (open mode) recompute each
// claim's own search results.
func scoreRetrievalOfArticles(ctx context.Context, pool *pgxpool.Pool, records []corpus.Record, claimIDs []int64,
	searcher search.Searcher, queries [][]jobs.Target, limit int, res *FleetResult) error {
	gold := GoldArticles(records)
	r := &res.Retrieval

	pages := map[int64]map[string]bool{} // task → its pages' URLs
	rows, err := pool.Query(ctx, `
		SELECT tp.task_id, p.url, COALESCE(p.final_url, '') FROM task_pages tp JOIN pages p ON p.id = tp.page_id
		WHERE tp.task_id = ANY($1::bigint[])`, res.tasks())
	if err != nil {
		return fmt.Errorf("read task pages: %w", err)
	}
	for rows.Next() {
		var task int64
		var u, final string
		if err := rows.Scan(&task, &u, &final); err != nil {
			rows.Close()
			return fmt.Errorf("read task pages: %w", err)
		}
		if pages[task] == nil {
			pages[task] = map[string]bool{}
		}
		pages[task][u] = true
		if final != "" {
			pages[task][final] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read task pages: %w", err)
	}
	// A claim's task: its own in self-directed mode, else the one task.
	taskOf := func(i int) int64 {
		if len(res.TaskIDs) > 0 {
			return res.TaskIDs[i]
		}
		return res.TaskID
	}
	r.ClaimsWithArticle, r.InTask = CountReached(gold, func(i int, u string) bool { return pages[taskOf(i)][u] })

	type key struct {
		claim int64
		url   string
	}
	judged := map[key]bool{}
	rows, err = pool.Query(ctx, `
		SELECT DISTINCT e.target_id, p.url, COALESCE(p.final_url, '')
		FROM edges e JOIN fragments f ON f.id = e.source_id
		JOIN page_versions pv ON pv.id = f.page_version_id JOIN pages p ON p.id = pv.page_id
		WHERE e.source_type = 'fragment' AND e.target_type = 'claim' AND e.relation IN ('supports','refutes','neutral')
		  AND e.target_id = ANY($1::bigint[])`, claimIDs)
	if err != nil {
		return fmt.Errorf("read judged pages: %w", err)
	}
	for rows.Next() {
		var id int64
		var u, final string
		if err := rows.Scan(&id, &u, &final); err != nil {
			rows.Close()
			return fmt.Errorf("read judged pages: %w", err)
		}
		judged[key{id, u}] = true
		if final != "" {
			judged[key{id, final}] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read judged pages: %w", err)
	}
	_, r.Judged = CountReached(gold, func(i int, u string) bool { return judged[key{claimIDs[i], u}] })

	r.InOwnSearch = -1
	if searcher != nil {
		found := make([]map[string]bool, len(records))
		for i, ts := range queries {
			found[i] = map[string]bool{}
			for _, t := range ts {
				results, err := searcher.Search(ctx, t.Value, limit)
				if err != nil {
					return fmt.Errorf("search again %q: %w", t.Value, err)
				}
				for _, hit := range results {
					if u, err := ident.NormalizeURL(hit.URL); err == nil {
						found[i][u] = true
					}
				}
			}
		}
		_, r.InOwnSearch = CountReached(gold, func(i int, u string) bool { return found[i][u] })
	}

	for _, task := range res.tasks() {
		costs, err := store.NewStore(pool).TaskCosts(ctx, task)
		if err != nil {
			return fmt.Errorf("task costs: %w", err)
		}
		for _, c := range costs {
			r.Searches += c.Searches
			r.Fetches += c.Fetches
		}
	}
	r.SearchesPerClaim, r.FetchesPerClaim = PerClaim(r.Searches, res.Claims), PerClaim(r.Fetches, res.Claims)
	return nil
}
