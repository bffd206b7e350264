-- name: TaskRanking :many
-- The current ranking of a task for one query, best first, with each row's
-- exact span, the page version's text at that span, and its page.
SELECT r.rank, r.fragment_id, r.final_score, r.rerank_score, r.trust_level, r.trust_weight,
       r.lexical_score, r.cosine, r.stage2_score, r.page_id, r.page_version_id, r.start_char, r.end_char,
       substring(pv.content FROM r.start_char + 1 FOR r.end_char - r.start_char)::text AS text,
       p.url, p.domain, COALESCE(p.title, '')::text AS title,
       r.query, r.embed_model, r.rerank_model, r.ranked_at
FROM task_rankings r
JOIN page_versions pv ON pv.id = r.page_version_id
JOIN pages p ON p.id = r.page_id
WHERE r.task_id = @task_id AND r.query_hash = @query_hash
ORDER BY r.rank;

-- name: TaskRankingQueries :many
-- The queries a task has a ranking for, most recently ranked first.
SELECT query_hash, query, count(*)::int AS fragments, max(ranked_at)::timestamptz AS ranked_at
FROM task_rankings
WHERE task_id = @task_id
GROUP BY query_hash, query
ORDER BY max(ranked_at) DESC, query_hash;

-- name: TaskJobCounts :many
SELECT kind, state, count(*)::int AS n
FROM river_job
WHERE args ? 'task_id' AND args ->> 'task_id' = @task_id::text
GROUP BY kind, state
ORDER BY kind, state;

-- name: TaskJobProblems :many
-- Jobs of the task that were cancelled, discarded or are waiting to retry,
-- with their last error and the failure the fleet recorded (a row of
-- errs.ErrorTable; '' when none was).
SELECT id, kind, state, attempt,
       COALESCE(errors[array_length(errors, 1)] ->> 'error', '')::text AS last_error,
       COALESCE(metadata -> 'output' ->> 'failure', '')::text AS failure
FROM river_job
WHERE args ? 'task_id' AND args ->> 'task_id' = @task_id::text
  AND state IN ('cancelled', 'discarded', 'retryable')
ORDER BY id
LIMIT 100;

-- name: TaskVerdictCounts :many
-- Claims by verdict; a claim the fleet refused to work counts as 'refused'.
SELECT (CASE WHEN refused_reason IS NULL THEN verdict ELSE 'refused' END)::text AS verdict, count(*)::int AS n
FROM claims WHERE task_id = @task_id GROUP BY 1 ORDER BY 1;

-- name: TaskTargetCounts :many
SELECT status, count(*)::int AS n FROM targets WHERE task_id = @task_id GROUP BY status ORDER BY status;

-- name: TaskFailedTargets :many
SELECT kind, value, COALESCE(error, '')::text AS error FROM targets
WHERE task_id = @task_id AND status = 'failed' ORDER BY id LIMIT 100;

-- name: TaskClaims :many
-- The task's claims; an extracted claim's quote is the page version's own
-- text at [quote_start, quote_end) (the claim's wording may paraphrase it).
SELECT c.id, c.evidence_no, c.text, c.kind, c.alpha, c.beta, c.confidence, c.uncertainty, c.controversy,
       c.verdict, c.supporting_count, c.refuting_count, c.neutral_count, c.independent_sources,
       c.evidence_count, c.adoption_status, c.verification_status, COALESCE(c.verification_reason, '')::text AS verification_reason,
       c.supporting_sites, c.refuting_sites, c.llm_claim_confidence, c.extractor_model,
       c.belief_log_odds, c.belief, c.propagated_log_odds, c.propagated_belief,
       c.refused_reason, c.page_version_id, c.quote_start, c.quote_end, f.page_id AS origin_page_id,
       COALESCE(p.url, '')::text AS origin_url,
       COALESCE(substring(pv.content FROM c.quote_start + 1 FOR c.quote_end - c.quote_start), '')::text AS quote_text
FROM claims c
LEFT JOIN fragments f ON f.id = c.origin_fragment_id
LEFT JOIN pages p ON p.id = f.page_id
LEFT JOIN page_versions pv ON pv.id = c.page_version_id
WHERE c.task_id = @task_id
ORDER BY c.evidence_no;

-- name: TaskEdges :many
-- Every edge touching the task's claims, with its fragment's exact span and
-- the page version's text at that span.
SELECT e.id, e.relation, e.source_id AS fragment_id, e.target_id AS claim_id, c.evidence_no,
       e.nli_label, e.nli_edge_confidence, e.nli_model,
       e.source_domain_category, e.source_trust_level, e.target_trust_level,
       f.page_id, f.page_version_id, f.start_char, f.end_char,
       substring(pv.content FROM f.start_char + 1 FOR f.end_char - f.start_char)::text AS span_text,
       p.url, p.domain
FROM claims c
JOIN edges e ON e.target_type = 'claim' AND e.target_id = c.id AND e.source_type = 'fragment'
JOIN fragments f ON f.id = e.source_id
JOIN page_versions pv ON pv.id = f.page_version_id
JOIN pages p ON p.id = f.page_id
WHERE c.task_id = @task_id
ORDER BY c.evidence_no, e.relation, e.nli_edge_confidence DESC NULLS LAST, e.id;

-- name: TaskPages :many
-- The task's pages with their domain's level now in the task's
-- organization's view (UNVERIFIED for a domain without a row, as rerank
-- reads it).
SELECT p.id, p.url, COALESCE(p.final_url, '')::text AS final_url, p.domain, COALESCE(p.title, '')::text AS title,
       p.doi, p.abstract_only, tp.page_version_id, tp.reason, tp.depth, p.http_status,
       COALESCE(effective_trust_level(d.trust_level, o.trust_level), 'UNVERIFIED')::text AS trust_level
FROM task_pages tp
JOIN pages p ON p.id = tp.page_id
LEFT JOIN domains d ON d.domain = p.domain
LEFT JOIN org_domain_levels o ON o.domain = p.domain AND o.organization_id = (SELECT tk.organization_id FROM tasks tk WHERE tk.id = @task_id)
WHERE tp.task_id = @task_id
ORDER BY p.id;

-- name: TaskCitations :many
-- The cites edges between pages of the task, with what the citation checks
-- read of both pages.
SELECT e.source_id AS citing_page_id, e.target_id AS cited_page_id, COALESCE(e.citation_source, '')::text AS citation_source,
       ps.domain AS citing_domain, ps.authors AS citing_authors, pt.domain AS cited_domain, pt.authors AS cited_authors
FROM edges e
JOIN pages ps ON ps.id = e.source_id
JOIN pages pt ON pt.id = e.target_id
WHERE e.relation = 'cites' AND e.source_type = 'page' AND e.target_type = 'page'
  AND EXISTS (SELECT 1 FROM task_pages tp WHERE tp.task_id = @task_id AND tp.page_id = e.source_id)
  AND EXISTS (SELECT 1 FROM task_pages tp WHERE tp.task_id = @task_id AND tp.page_id = e.target_id)
ORDER BY e.source_id, e.target_id;

-- name: TaskModels :many
-- The models behind the task's judgements, by capability, with how many
-- judgements (edges, claims, embedded fragments, ranked rows) each made.
SELECT 'nli'::text AS capability, e.nli_model::text AS model, count(*)::int AS n
FROM claims c
JOIN edges e ON e.target_type = 'claim' AND e.target_id = c.id AND e.source_type = 'fragment'
WHERE c.task_id = @task_id AND e.nli_model IS NOT NULL
GROUP BY e.nli_model
UNION ALL
SELECT 'claims'::text, c.extractor_model::text, count(*)::int
FROM claims c
WHERE c.task_id = @task_id AND c.extractor_model IS NOT NULL
GROUP BY c.extractor_model
UNION ALL
SELECT 'embed'::text, f.embed_model::text, count(*)::int
FROM task_pages tp
JOIN fragments f ON f.page_version_id = tp.page_version_id
WHERE tp.task_id = @task_id AND f.embed_model IS NOT NULL
GROUP BY f.embed_model
UNION ALL
SELECT 'rerank'::text, r.rerank_model::text, count(*)::int
FROM task_rankings r
WHERE r.task_id = @task_id
GROUP BY r.rerank_model
ORDER BY 1, 2;

-- name: RecordJobCancel :one
-- A person's cancel of a job River has just cancelled (JobCancelTx in the
-- same transaction): the reason is added to the job's errors, as an
-- attempt error of its last attempt, and recorded as its output's failure
-- (errs.CancelledByPerson); a target_queue job's target that was still
-- waiting for it ends cancelled with the reason. Returns the targets
-- cancelled.
WITH j AS (
    UPDATE river_job rj
    SET errors = array_append(COALESCE(rj.errors, '{}'), jsonb_build_object(
            'at', now(), 'attempt', GREATEST(rj.attempt, 1), 'error', @reason::text, 'trace', '')),
        metadata = jsonb_set(rj.metadata, '{output}', COALESCE(rj.metadata -> 'output', '{}'::jsonb) || jsonb_build_object('failure', @failure::text))
    WHERE rj.id = @job_id::bigint AND rj.state = 'cancelled'
    RETURNING rj.kind, rj.args
), t AS (
    UPDATE targets tg
    SET status = 'cancelled', stage = 'cancelled', error = @reason::text, updated_at = now()
    FROM j
    WHERE j.kind = 'target_queue' AND tg.status = 'seen'
      AND tg.task_id::text = j.args ->> 'task_id'
      AND tg.kind = j.args -> 'target' ->> 'kind' AND tg.value = j.args -> 'target' ->> 'value'
    RETURNING tg.id
)
SELECT count(*)::int FROM t;
