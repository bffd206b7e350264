-- name: EvidenceSpans :many
-- Evidence.List (ARCHITECTURE.md §5.7): the evidence spans of one claim, one
-- page or one task, always of the organization's tasks, in a stable order
-- (origins by claim id, then NLI edges by edge id) from after the cursor.
-- Every span resolves, with inner joins only, to a page, a page version,
-- [start_char, end_char) and the version's text there. Exactly one of
-- claim_id, page_id and task_id is given (internal/service checks it).
WITH spans AS (
    -- scope: the organization's claims (a plain join in each branch, not a
    -- shared CTE, so a page's listing starts from the page's fragments)
    SELECT 0 AS rank, c.id AS key, 'origin'::text AS kind, f.page_id, c.page_version_id AS page_version_id,
           c.quote_start AS start_char, c.quote_end AS end_char,
           substring(pv.content FROM c.quote_start + 1 FOR c.quote_end - c.quote_start) AS text,
           c.llm_claim_confidence AS confidence, c.id AS claim_id, c.evidence_no, NULL::bigint AS edge_id, c.extractor_model AS model
    FROM claims c
    JOIN tasks t ON t.id = c.task_id
    JOIN fragments f ON f.id = c.origin_fragment_id
    JOIN page_versions pv ON pv.id = c.page_version_id
    WHERE t.organization_id = @organization_id
      AND (sqlc.narg(claim_id)::bigint IS NULL OR c.id = sqlc.narg(claim_id)::bigint)
      AND (sqlc.narg(task_id)::bigint IS NULL OR c.task_id = sqlc.narg(task_id)::bigint)
      AND (sqlc.narg(page_id)::bigint IS NULL OR f.page_id = sqlc.narg(page_id)::bigint)
    UNION ALL
    SELECT 1, e.id, e.relation, f.page_id, f.page_version_id, f.start_char, f.end_char,
           substring(pv.content FROM f.start_char + 1 FOR f.end_char - f.start_char),
           e.nli_edge_confidence, c.id, c.evidence_no, e.id, e.nli_model
    FROM edges e
    JOIN claims c ON c.id = e.target_id
    JOIN tasks t ON t.id = c.task_id
    JOIN fragments f ON f.id = e.source_id
    JOIN page_versions pv ON pv.id = f.page_version_id
    WHERE e.target_type = 'claim' AND e.source_type = 'fragment' AND e.relation IN ('supports', 'refutes', 'neutral')
      AND t.organization_id = @organization_id
      AND (sqlc.narg(claim_id)::bigint IS NULL OR c.id = sqlc.narg(claim_id)::bigint)
      AND (sqlc.narg(task_id)::bigint IS NULL OR c.task_id = sqlc.narg(task_id)::bigint)
      AND (sqlc.narg(page_id)::bigint IS NULL OR f.page_id = sqlc.narg(page_id)::bigint)
)
SELECT rank::int AS rank, key::bigint AS key, kind, page_id::bigint AS page_id, page_version_id::bigint AS page_version_id,
       start_char::int AS start_char, end_char::int AS end_char, text::text AS text,
       (confidence IS NOT NULL)::bool AS has_confidence, COALESCE(confidence, 0)::float8 AS confidence,
       claim_id::bigint AS claim_id, evidence_no::int AS evidence_no, edge_id, model
FROM spans
WHERE (rank, key) > (@after_rank::int, @after_key::bigint)
ORDER BY rank, key
LIMIT @max_rows;

-- name: OrgPage :one
-- Whether a page is reached through a task of the organization (a shared
-- page is the caller's only so).
SELECT EXISTS (
    SELECT 1 FROM task_pages tp JOIN tasks t ON t.id = tp.task_id
    WHERE tp.page_id = @page_id AND t.organization_id = @organization_id
)::bool AS reached;

-- name: TaskExportClaims :many
-- The evidence export (ARCHITECTURE.md §5.7): the task's claims in E-number
-- order from after_no, each with its posterior, status, the span of record
-- of its quote (an extracted claim's; a hypothesis has none) with the
-- version's text there, time of fetch, page, domain level, and the models
-- that judged it.
SELECT c.id, c.evidence_no, c.kind, c.text, c.confidence, c.verdict, c.supporting_count, c.refuting_count, c.neutral_count,
       c.verification_status, c.adoption_status, c.extractor_model,
       c.belief, c.propagated_belief,
       f.page_id, c.page_version_id, c.quote_start, c.quote_end,
       COALESCE(substring(pv.content FROM c.quote_start + 1 FOR c.quote_end - c.quote_start), '')::text AS quote,
       COALESCE(p.url, '')::text AS url, COALESCE(p.title, '')::text AS title, COALESCE(p.domain, '')::text AS domain,
       COALESCE(effective_trust_level(d.trust_level, o.trust_level), '')::text AS trust_level, pv.fetched_at,
       COALESCE((SELECT array_agg(DISTINCT e.nli_model ORDER BY e.nli_model) FROM edges e
                 WHERE e.target_id = c.id AND e.target_type = 'claim' AND e.source_type = 'fragment'
                   AND e.relation IN ('supports', 'refutes', 'neutral') AND e.nli_model IS NOT NULL), '{}')::text[] AS nli_models
FROM claims c
LEFT JOIN fragments f ON f.id = c.origin_fragment_id
LEFT JOIN pages p ON p.id = f.page_id
LEFT JOIN page_versions pv ON pv.id = c.page_version_id
LEFT JOIN domains d ON d.domain = p.domain
LEFT JOIN org_domain_levels o ON o.domain = p.domain AND o.organization_id = (SELECT tk.organization_id FROM tasks tk WHERE tk.id = @task_id)
WHERE c.task_id = @task_id AND c.evidence_no > @after_no::int
ORDER BY c.evidence_no
LIMIT @max_rows;
