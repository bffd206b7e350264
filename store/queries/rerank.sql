-- rerank: candidates and the stored ranking.

-- name: RankingCandidates :many
-- Stage 1 of ranking (ARCHITECTURE.md §5.3): the task's fragments (of the page
-- versions the task saw) that match any term of the query (an OR of its
-- 'english' lexemes, GIN index on tsv), best ts_rank first, ties by id, at
-- most @max_candidates. Fragments of domains whose trust level in the
-- task's organization's view is in @excluded_levels are left out. The embedding is returned only when it was
-- made by @embed_model; the trust level of a domain without a row is
-- UNVERIFIED (the domains default).
WITH query AS (
    SELECT COALESCE(string_agg(quote_literal(l.lexeme), ' | '), '')::tsquery AS q
    FROM unnest(tsvector_to_array(to_tsvector('english'::regconfig, @query::text))) AS l(lexeme)
)
SELECT f.id, f.page_id, f.page_version_id, f.start_char, f.end_char, f.text,
       ts_rank(f.tsv, query.q)::float8 AS lexical_score,
       (CASE WHEN f.embed_model = @embed_model::text THEN f.embedding END)::bytea AS embedding,
       COALESCE(effective_trust_level(d.trust_level, o.trust_level), 'UNVERIFIED')::text AS trust_level
FROM query
CROSS JOIN task_pages tp
JOIN fragments f ON f.page_version_id = tp.page_version_id
JOIN pages p ON p.id = f.page_id
LEFT JOIN domains d ON d.domain = p.domain
LEFT JOIN org_domain_levels o ON o.domain = p.domain AND o.organization_id = (SELECT tk.organization_id FROM tasks tk WHERE tk.id = @task_id)
WHERE tp.task_id = @task_id
  AND f.tsv @@ query.q
  AND NOT (COALESCE(effective_trust_level(d.trust_level, o.trust_level), 'UNVERIFIED') = ANY(@excluded_levels::text[]))
ORDER BY lexical_score DESC, f.id
LIMIT @max_candidates;

-- name: DeleteTaskRanking :execrows
-- Removes the current ranking of a task for one query (the caller holds the task lock).
DELETE FROM task_rankings WHERE task_id = @task_id AND query_hash = @query_hash;

-- name: InsertTaskRanking :execrows
-- Stores a ranking; the span of each row is copied from its fragment.
INSERT INTO task_rankings (task_id, query_hash, query, rank, fragment_id, page_id, page_version_id,
                           start_char, end_char, lexical_score, cosine, stage2_score, rerank_score,
                           trust_level, trust_weight, final_score, embed_model, rerank_model)
SELECT @task_id, @query_hash, @query, r.rank, f.id, f.page_id, f.page_version_id,
       f.start_char, f.end_char, r.lexical_score, r.cosine, r.stage2_score, r.rerank_score,
       r.trust_level, r.trust_weight, r.final_score, @embed_model, @rerank_model
FROM (SELECT unnest(@ranks::int[]) AS rank, unnest(@fragment_ids::bigint[]) AS fragment_id,
             unnest(@lexical_scores::float8[]) AS lexical_score, unnest(@cosines::float8[]) AS cosine,
             unnest(@stage2_scores::float8[]) AS stage2_score, unnest(@rerank_scores::float8[]) AS rerank_score,
             unnest(@trust_levels::text[]) AS trust_level, unnest(@trust_weights::float8[]) AS trust_weight,
             unnest(@final_scores::float8[]) AS final_score) AS r
JOIN fragments f ON f.id = r.fragment_id;
