// Package graphsnap reads the evidence graph by natural keys — no ids, no
// E-numbers, floats rounded to 1e-9 — so that two runs can be compared row
// for row, or by one digest: the crash, concurrency and backend tests compare
// a run with a clean one, and `make eval` prints the digest of its
// Climate-FEVER graph so that a refactoring can show it changed nothing.
package graphsnap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Query is one named SQL query returning one text column.
type Query struct{ Name, SQL string }

// NLIRelations are the edge relations of NLI judgements, as a SQL list.
const NLIRelations = `('supports','refutes','neutral')`

// ClaimKeySQL is a claim's natural key (no id, no E-number): kind, text and,
// for extracted claims, the origin page URL and quote span. It needs the
// claim as c and a LEFT JOIN of its origin fragment's page as cp.
const ClaimKeySQL = `concat_ws('|', c.kind, c.text, COALESCE(cp.url, '-'), COALESCE(c.quote_start, -1), COALESCE(c.quote_end, -1))`

// Queries read the evidence graph by natural keys, one text row per
// database row; floats are rounded to 1e-9. Rows are compared as multisets,
// so a duplicate row shows up as a difference too.
var Queries = []Query{
	// completed reads as active: whether a settle sweep has run since the
	// last job is timing, not the graph (a stopped task stays stopped)
	{"tasks", `SELECT concat_ws('|', hypothesis, CASE status WHEN 'completed' THEN 'active' ELSE status END, organization_id, next_evidence_no) FROM tasks`},
	{"pages", `SELECT concat_ws('|', url, COALESCE(final_url, '-'), domain, COALESCE(title, '-'), COALESCE(http_status, 0),
		COALESCE(content_type, '-'), COALESCE(error, '-'), COALESCE(doi, '-'), COALESCE(pmid, '-'), COALESCE(arxiv_id, '-'))
		FROM pages`},
	{"page_versions", `SELECT concat_ws('|', p.url, pv.sha256, md5(pv.content)) FROM page_versions pv JOIN pages p ON p.id = pv.page_id`},
	{"fragments", `SELECT concat_ws('|', p.url, pv.sha256, f.start_char, f.end_char, md5(f.text), left(f.text, 40), f.heading_context,
		COALESCE(f.embed_model, '-'), COALESCE(md5(f.embedding::text), '-'))
		FROM fragments f JOIN pages p ON p.id = f.page_id JOIN page_versions pv ON pv.id = f.page_version_id`},
	{"claims", `SELECT concat_ws('|', ` + ClaimKeySQL + `, c.adoption_status, c.verification_status,
		round(c.alpha::numeric, 9), round(c.beta::numeric, 9), round(c.confidence::numeric, 9),
		round(c.uncertainty::numeric, 9), round(c.controversy::numeric, 9), c.verdict,
		c.supporting_count, c.refuting_count, c.neutral_count, c.independent_sources, c.evidence_count,
		COALESCE(round(c.llm_claim_confidence::numeric, 9), -1))
		FROM claims c LEFT JOIN fragments cf ON cf.id = c.origin_fragment_id LEFT JOIN pages cp ON cp.id = cf.page_id`},
	{"edges", `SELECT concat_ws('|', e.relation, e.source_type, COALESCE(fp.url, e.source_id::text), COALESCE(f.start_char, -1),
		COALESCE(f.end_char, -1), e.target_type, CASE WHEN c.id IS NULL THEN e.target_id::text ELSE ` + ClaimKeySQL + ` END,
		COALESCE(e.nli_label, '-'), COALESCE(round(e.nli_edge_confidence::numeric, 9), -1), COALESCE(e.nli_model, '-'),
		COALESCE(e.source_domain_category, '-'), COALESCE(e.source_trust_level, '-'), COALESCE(e.target_trust_level, '-'))
		FROM edges e
		LEFT JOIN fragments f ON e.source_type = 'fragment' AND f.id = e.source_id LEFT JOIN pages fp ON fp.id = f.page_id
		LEFT JOIN claims c ON e.target_type = 'claim' AND c.id = e.target_id
		LEFT JOIN fragments cf ON cf.id = c.origin_fragment_id LEFT JOIN pages cp ON cp.id = cf.page_id`},
	{"targets", `SELECT concat_ws('|', t.kind, t.value, t.status, t.stage, COALESCE(p.url, '-'), COALESCE(t.error, '-'))
		FROM targets t LEFT JOIN pages p ON p.id = t.page_id`},
	{"task_pages", `SELECT concat_ws('|', p.url, COALESCE(pv.sha256, '-'), tp.reason, tp.depth)
		FROM task_pages tp JOIN pages p ON p.id = tp.page_id LEFT JOIN page_versions pv ON pv.id = tp.page_version_id`},
	{"resource_index", `SELECT concat_ws('|', r.identifier_type, r.identifier, p.url) FROM resource_index r JOIN pages p ON p.id = r.page_id`},
	{"domains", `SELECT concat_ws('|', domain, trust_level, category, verification_status) FROM domains`},
	{"rankings", `SELECT concat_ws('|', r.query, r.rank, p.url, r.start_char, r.end_char, round(r.lexical_score::numeric, 9),
		round(r.cosine::numeric, 6), round(r.rerank_score::numeric, 9), r.trust_level, round(r.final_score::numeric, 9),
		r.embed_model, r.rerank_model) FROM task_rankings r JOIN pages p ON p.id = r.page_id`},
	{"events", `SELECT event_type FROM event_log`},
}

// Graph is a snapshot of the evidence graph by natural keys: table → sorted rows.
type Graph map[string][]string

// Querier runs a query: a pool, a connection or a transaction.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Read takes the snapshot.
func Read(ctx context.Context, q Querier) (Graph, error) {
	g := Graph{}
	for _, query := range Queries {
		rows, err := Strings(ctx, q, query.SQL)
		if err != nil {
			return nil, fmt.Errorf("graph %s: %w", query.Name, err)
		}
		slices.Sort(rows)
		g[query.Name] = rows
	}
	return g, nil
}

// Strings runs a query of one text column and returns its rows (an empty,
// non-nil slice for none).
func Strings(ctx context.Context, q Querier, sql string, args ...any) ([]string, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if out == nil {
		out = []string{}
	}
	return out, err
}

// Digest is the SHA-256 of the snapshot, table by table in Queries order.
func (g Graph) Digest() string {
	h := sha256.New()
	for _, q := range Queries {
		fmt.Fprintf(h, "%s %d\n", q.Name, len(g[q.Name]))
		for _, r := range g[q.Name] {
			fmt.Fprintf(h, "%s\n", r)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Summary counts the rows of each table, with NLI edges apart.
func (g Graph) Summary() string {
	var parts []string
	for _, q := range Queries {
		parts = append(parts, fmt.Sprintf("%s=%d", q.Name, len(g[q.Name])))
	}
	return strings.Join(parts, " ") + fmt.Sprintf(" (nli edges=%d)", g.NLIEdges())
}

// NLIEdges counts the snapshot's NLI edges.
func (g Graph) NLIEdges() int {
	n := 0
	for _, e := range g["edges"] {
		if rel, _, _ := strings.Cut(e, "|"); rel == "supports" || rel == "refutes" || rel == "neutral" {
			n++
		}
	}
	return n
}

// Diff describes how got differs from want, table by table (multiset
// difference, at most max rows per side); "" when they are equal.
func Diff(want, got Graph, max int) string {
	var b strings.Builder
	for _, q := range Queries {
		onlyWant, onlyGot := multisetDiff(want[q.Name], got[q.Name])
		if len(onlyWant) == 0 && len(onlyGot) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s: %d rows in the reference, %d in the run; %d only in the reference, %d only in the run\n",
			q.Name, len(want[q.Name]), len(got[q.Name]), len(onlyWant), len(onlyGot))
		for i, r := range onlyWant {
			if i == max {
				fmt.Fprintf(&b, "    …\n")
				break
			}
			fmt.Fprintf(&b, "  - %s\n", r)
		}
		for i, r := range onlyGot {
			if i == max {
				fmt.Fprintf(&b, "    …\n")
				break
			}
			fmt.Fprintf(&b, "  + %s\n", r)
		}
	}
	return b.String()
}

// multisetDiff returns the rows of sorted a not matched in sorted b, and
// the other way round.
func multisetDiff(a, b []string) (onlyA, onlyB []string) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			i++
			j++
		case a[i] < b[j]:
			onlyA = append(onlyA, a[i])
			i++
		default:
			onlyB = append(onlyB, b[j])
			j++
		}
	}
	return append(onlyA, a[i:]...), append(onlyB, b[j:]...)
}

// DuplicateChecks count rows against distinct natural keys.
var DuplicateChecks = []Query{
	{"pages", `SELECT count(*) - count(DISTINCT url) FROM pages`},
	{"page_versions", `SELECT count(*) - count(DISTINCT (p.url, pv.sha256)) FROM page_versions pv JOIN pages p ON p.id = pv.page_id`},
	{"page_versions per page", `SELECT count(*) - count(DISTINCT page_id) FROM page_versions`},
	{"fragments", `SELECT count(*) - count(DISTINCT (p.url, f.start_char, f.end_char, f.text)) FROM fragments f JOIN pages p ON p.id = f.page_id`},
	{"claims", `SELECT count(*) - count(DISTINCT (c.task_id, ` + ClaimKeySQL + `))
		FROM claims c LEFT JOIN fragments cf ON cf.id = c.origin_fragment_id LEFT JOIN pages cp ON cp.id = cf.page_id`},
	{"hypothesis claims by text", `SELECT count(*) - count(DISTINCT (task_id, lower(text))) FROM claims WHERE kind = 'hypothesis'`},
	{"edges", `SELECT count(*) - count(DISTINCT (source_type, source_id, target_type, target_id, relation)) FROM edges`},
	{"NLI edges per pair", `SELECT count(*) - count(DISTINCT (source_id, target_id)) FROM edges
		WHERE source_type = 'fragment' AND target_type = 'claim' AND relation IN ` + NLIRelations},
	{"origin edges per claim", `SELECT count(*) - count(DISTINCT target_id) FROM edges WHERE relation = 'origin'`},
	{"targets", `SELECT count(*) - count(DISTINCT (task_id, kind, value)) FROM targets`},
	{"task_pages", `SELECT count(*) - count(DISTINCT (task_id, page_id)) FROM task_pages`},
}
