-- name: InsertOriginEdges :exec
INSERT INTO edges (source_type, source_id, target_type, target_id, relation, source_domain_category, source_trust_level)
SELECT 'fragment', unnest(@fragment_ids::bigint[]), 'claim', unnest(@claim_ids::bigint[]), 'origin',
       sqlc.narg(domain_category), sqlc.narg(trust_level)
ON CONFLICT (source_id, target_id) WHERE relation = 'origin' DO NOTHING;

-- name: InsertNLIEdges :execrows
-- One judgement per (fragment, claim) pair, ever: a pair judged concurrently
-- by another worker is skipped here.
INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_label,
                   nli_edge_confidence, nli_model, source_domain_category, source_trust_level, target_trust_level)
SELECT 'fragment', unnest(@fragment_ids::bigint[]), 'claim', unnest(@claim_ids::bigint[]),
       unnest(@relations::text[]), unnest(@labels::text[]), unnest(@confidences::float8[]), @nli_model::text,
       NULLIF(unnest(@domain_categories::text[]), ''), NULLIF(unnest(@source_trust_levels::text[]), ''),
       NULLIF(unnest(@target_trust_levels::text[]), '')
ON CONFLICT (source_type, source_id, target_type, target_id)
    WHERE source_type = 'fragment' AND target_type = 'claim' AND relation IN ('supports', 'refutes', 'neutral')
    DO NOTHING;

-- name: JudgedPairs :many
-- The pairs of the claims that were judged already. One index probe per claim
-- (idx_edges_nli_unique leads with target_id): OFFSET 0 keeps the subquery
-- on the inner side of the join, so a young edges table whose statistics
-- still say "empty" is not scanned whole once per claim.
SELECT u.id::bigint AS claim_id, e.source_id AS fragment_id
FROM unnest(@claim_ids::bigint[]) AS u(id)
JOIN LATERAL (
    SELECT source_id FROM edges
    WHERE target_id = u.id AND source_type = 'fragment' AND target_type = 'claim'
      AND relation IN ('supports', 'refutes', 'neutral')
    OFFSET 0
) AS e ON true;

-- name: InsertCitesEdge :execrows
-- citing cites cited; one edge per pair (idx_edges_cites_unique).
INSERT INTO edges (source_type, source_id, target_type, target_id, relation, citation_source)
VALUES ('page', @citing_page_id, 'page', @cited_page_id, 'cites', @citation_source)
ON CONFLICT (source_id, target_id) WHERE relation = 'cites' DO NOTHING;
