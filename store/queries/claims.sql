-- name: ExistingExtractedClaims :many
SELECT id, evidence_no, quote_start, quote_end FROM claims
WHERE task_id = @task_id AND kind = 'extracted' AND page_version_id = @page_version_id;

-- name: ExistingHypotheses :many
SELECT id, evidence_no, text_hash FROM claims
WHERE task_id = @task_id AND kind = 'hypothesis' AND text_hash = ANY(@text_hashes::text[]);

-- name: InsertExtractedClaims :many
-- E-numbers are allocated by the caller under the task's row lock (LockTask).
INSERT INTO claims (task_id, evidence_no, text, text_hash, kind, origin_fragment_id,
                    page_version_id, quote_start, quote_end, llm_claim_confidence, extractor_model)
SELECT @task_id, unnest(@evidence_nos::int[]), unnest(@texts::text[]), unnest(@text_hashes::text[]),
       'extracted', unnest(@origin_fragment_ids::bigint[]), @page_version_id,
       unnest(@quote_starts::int[]), unnest(@quote_ends::int[]), unnest(@llm_confidences::float8[]),
       @extractor_model::text
ON CONFLICT DO NOTHING
RETURNING id, evidence_no, origin_fragment_id;

-- name: InsertHypotheses :many
INSERT INTO claims (task_id, evidence_no, text, text_hash, kind)
SELECT @task_id, unnest(@evidence_nos::int[]), unnest(@texts::text[]), unnest(@text_hashes::text[]), 'hypothesis'
ON CONFLICT DO NOTHING
RETURNING id, evidence_no;

-- name: TaskClaimsForVerification :many
-- The claims of a task with their origin domain ('' for hypotheses), the
-- trust level of that domain, and the claim's lexemes (as fragments.tsv has them).
SELECT c.id, c.text, c.kind, COALESCE(p.domain, '')::text AS origin_domain,
       COALESCE(d.trust_level, '')::text AS origin_trust_level,
       tsvector_to_array(to_tsvector('english'::regconfig, c.text))::text[] AS lexemes
FROM claims c
LEFT JOIN fragments f ON f.id = c.origin_fragment_id
LEFT JOIN pages p ON p.id = f.page_id
LEFT JOIN domains d ON d.domain = p.domain
WHERE c.task_id = @task_id
  AND (cardinality(@claim_ids::bigint[]) = 0 OR c.id = ANY(@claim_ids::bigint[]))
ORDER BY c.id;

-- name: ClaimTallies :many
-- The sums the posterior is computed from (DESIGN §5.1): only supports and
-- refutes edges with a positive confidence count; neutral edges are counted
-- apart; trust levels are not read.
SELECT u.id::bigint AS claim_id,
       COALESCE(sum(e.nli_edge_confidence) FILTER (WHERE e.relation = 'supports' AND e.nli_edge_confidence > 0), 0)::float8 AS support_sum,
       COALESCE(sum(e.nli_edge_confidence) FILTER (WHERE e.relation = 'refutes' AND e.nli_edge_confidence > 0), 0)::float8 AS refute_sum,
       count(e.id) FILTER (WHERE e.relation = 'supports' AND e.nli_edge_confidence > 0)::int AS supporting,
       count(e.id) FILTER (WHERE e.relation = 'refutes' AND e.nli_edge_confidence > 0)::int AS refuting,
       count(e.id) FILTER (WHERE e.relation = 'neutral')::int AS neutral,
       count(DISTINCT f.page_id) FILTER (WHERE e.relation IN ('supports', 'refutes') AND e.nli_edge_confidence > 0)::int AS independent_sources
FROM unnest(@claim_ids::bigint[]) AS u(id)
LEFT JOIN LATERAL (
    -- one index probe per claim (see JudgedPairs)
    SELECT e.id, e.relation, e.nli_edge_confidence, e.source_id FROM edges e
    WHERE e.target_id = u.id AND e.target_type = 'claim' AND e.source_type = 'fragment'
      AND e.relation IN ('supports', 'refutes', 'neutral')
    OFFSET 0
) AS e ON true
LEFT JOIN fragments f ON f.id = e.source_id
GROUP BY u.id
ORDER BY u.id;

-- name: UpdatePosteriors :exec
UPDATE claims c
SET alpha = v.alpha, beta = v.beta, confidence = v.confidence, uncertainty = v.uncertainty,
    controversy = v.controversy, verdict = v.verdict, supporting_count = v.supporting,
    refuting_count = v.refuting, neutral_count = v.neutral, independent_sources = v.independent,
    evidence_count = v.evidence_count,
    verification_status = CASE WHEN v.evidence_count > 0 THEN 'verified' ELSE c.verification_status END,
    updated_at = now()
FROM (
    SELECT unnest(@ids::bigint[]) AS id, unnest(@alphas::float8[]) AS alpha, unnest(@betas::float8[]) AS beta,
           unnest(@confidences::float8[]) AS confidence, unnest(@uncertainties::float8[]) AS uncertainty,
           unnest(@controversies::float8[]) AS controversy, unnest(@verdicts::text[]) AS verdict,
           unnest(@supportings::int[]) AS supporting, unnest(@refutings::int[]) AS refuting,
           unnest(@neutrals::int[]) AS neutral, unnest(@independents::int[]) AS independent,
           unnest(@evidence_counts::int[]) AS evidence_count
) v
WHERE c.id = v.id;
