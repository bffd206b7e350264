-- verify_nli: task state, claims, candidate details, judged pairs, the NLI
-- edges and the posteriors (store.WriteJudgements, store/verify_nli.go;
-- recall in store/candidates.go).

-- name: TaskVerifyState :one
-- What verify_nli reads first: the task's status and work_version, and how many of its
-- fragments there are and still lack an embedding for the model. The three
-- together key the in-memory task index (internal/taskindex).
SELECT t.work_version, t.status,
       count(f.id)::bigint AS fragments,
       count(f.id) FILTER (WHERE f.embedding IS NULL OR f.embed_model <> @embed_model::text)::bigint AS not_embedded
FROM tasks t
LEFT JOIN task_pages tp ON tp.task_id = t.id
LEFT JOIN fragments f ON f.page_version_id = tp.page_version_id
WHERE t.id = @task_id
GROUP BY t.id;

-- name: TaskPageEmbeddedCounts :many
-- Each of the task's page versions with how many of its fragments are
-- embedded for the model: what an in-memory task index built at an earlier
-- work_version compares itself with to read only the fragments it lacks
-- (internal/taskindex Index.Changes).
SELECT tp.page_version_id::bigint AS page_version_id,
       count(*) FILTER (WHERE f.embed_model = @embed_model::text)::integer AS embedded
FROM task_pages tp
JOIN fragments f ON f.page_version_id = tp.page_version_id
WHERE tp.task_id = @task_id
GROUP BY tp.page_version_id;

-- name: TaskWorkVersion :one
-- The task's work_version and status: what verify_nli reads first. A task's
-- fragments are fixed at a work_version (pages joining a task bump it) and
-- an embedded fragment stays embedded, so once TaskVerifyState saw every
-- fragment embedded at a version, a process need not count them again at it
-- (internal/workers/verify_state.go).
SELECT work_version, status FROM tasks WHERE id = @task_id;

-- name: TaskClaimsForVerification :many
-- The claims of a task with their origin domain ('' for hypotheses), the
-- trust level of that domain, and the claim's lexemes (as fragments.tsv has
-- them). A claim longer than @max_chars is returned by its length alone
-- (empty text, no lexemes): to_tsvector may refuse it, and the worker marks
-- it refused instead of judging it. Refused claims are left out.
SELECT c.id, c.kind, COALESCE(p.domain, '')::text AS origin_domain,
       COALESCE(effective_trust_level(d.trust_level, o.trust_level), '')::text AS origin_trust_level,
       char_length(c.text)::integer AS chars,
       (CASE WHEN char_length(c.text) <= @max_chars::integer THEN c.text ELSE '' END)::text AS text,
       (CASE WHEN char_length(c.text) <= @max_chars::integer
             THEN tsvector_to_array(to_tsvector('english'::regconfig, c.text))
             ELSE '{}' END)::text[] AS lexemes
FROM claims c
LEFT JOIN fragments f ON f.id = c.origin_fragment_id
LEFT JOIN pages p ON p.id = f.page_id
LEFT JOIN domains d ON d.domain = p.domain
LEFT JOIN org_domain_levels o ON o.domain = p.domain AND o.organization_id = (SELECT tk.organization_id FROM tasks tk WHERE tk.id = @task_id)
WHERE c.task_id = @task_id AND c.refused_reason IS NULL
  AND (cardinality(@claim_ids::bigint[]) = 0 OR c.id = ANY(@claim_ids::bigint[]))
  AND (@claim_from::bigint = 0 OR c.id BETWEEN @claim_from::bigint AND @claim_to::bigint)
ORDER BY c.id;

-- name: TaskClaimShards :many
-- The shards a dispatching verify_nli enqueues: the claim-id buckets of
-- @width ids, from the one holding claim id @from_id on, that hold claims of
-- the task still to work (all of them, or those of @claim_ids), in order, at
-- most @max_shards. Bucket b is the shard [b·width, b·width + width − 1].
-- One probe of claims_task_id per bucket (a loose index scan), so the cost
-- is bounded by @max_shards, not by the task's size.
WITH RECURSIVE b(bucket) AS (
    (SELECT c.id / @width::bigint FROM claims c
     WHERE c.task_id = @task_id AND c.id >= @from_id::bigint AND c.refused_reason IS NULL
       AND (cardinality(@claim_ids::bigint[]) = 0 OR c.id = ANY(@claim_ids::bigint[]))
     ORDER BY c.id LIMIT 1)
    UNION ALL
    SELECT (SELECT c.id / @width::bigint FROM claims c
            WHERE c.task_id = @task_id AND c.id >= (b.bucket + 1) * @width::bigint AND c.refused_reason IS NULL
              AND (cardinality(@claim_ids::bigint[]) = 0 OR c.id = ANY(@claim_ids::bigint[]))
            ORDER BY c.id LIMIT 1)
    FROM b WHERE b.bucket IS NOT NULL
)
SELECT bucket::bigint AS bucket FROM b WHERE bucket IS NOT NULL LIMIT @max_shards::int;

-- name: ShardClaimIDs :many
-- The ids of a shard's claims still to work, in order (to split a shard).
SELECT c.id FROM claims c
WHERE c.task_id = @task_id AND c.refused_reason IS NULL
  AND c.id BETWEEN @claim_from::bigint AND @claim_to::bigint
ORDER BY c.id;

-- name: LockClaims :many
-- Row-locks claims in id order before their posteriors are recomputed, so
-- that two writers of one claim tally one after the other (the second sees
-- the first one's edges) and never wait on each other in a cycle. Returns
-- where each stands before the recomputation, and a person's word on it.
SELECT c.id, c.verification_status, COALESCE(c.reviewer_status, '')::text AS reviewer_status
FROM claims c WHERE c.id = ANY(@ids::bigint[]) ORDER BY c.id FOR NO KEY UPDATE;

-- name: RefuseClaims :exec
-- Marks claims the fleet cannot work, with the reason (parallel arrays).
UPDATE claims c SET refused_reason = r.reason, updated_at = now()
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@reasons::text[]) AS reason) AS r
WHERE c.id = r.id AND c.task_id = @task_id AND c.refused_reason IS NULL;

-- name: CandidateFragmentDetails :many
-- What stage 2 ranks a recalled fragment by (SQL recall path).
SELECT f.id, p.domain, f.embedding
FROM fragments f
JOIN pages p ON p.id = f.page_id
WHERE f.id = ANY(@ids::bigint[]);

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

-- name: PairFragments :many
-- What a selected pair needs: the premise text and the source domain's
-- trust in the task's organization's view.
SELECT f.id, f.text,
       COALESCE(effective_trust_level(d.trust_level, o.trust_level), '')::text AS trust_level,
       COALESCE(CASE WHEN o.trust_level IS NULL OR d.trust_level = 'BLOCKED' THEN d.category ELSE lower(o.trust_level) END, '')::text AS category
FROM fragments f
JOIN pages p ON p.id = f.page_id
LEFT JOIN domains d ON d.domain = p.domain
LEFT JOIN org_domain_levels o ON o.domain = p.domain AND o.organization_id = (SELECT tk.organization_id FROM tasks tk WHERE tk.id = @task_id)
WHERE f.id = ANY(@ids::bigint[]);

-- name: InsertNLIEdges :execrows
-- One judgement per (fragment, claim) pair, ever: a pair judged concurrently
-- by another worker is skipped here.
INSERT INTO edges (source_type, source_id, target_type, target_id, relation, nli_label,
                   nli_edge_confidence, nli_model, source_domain_category, source_trust_level, target_trust_level,
                   retrieval_score)
SELECT 'fragment', unnest(@fragment_ids::bigint[]), 'claim', unnest(@claim_ids::bigint[]),
       unnest(@relations::text[]), unnest(@labels::text[]), unnest(@confidences::float8[]), @nli_model::text,
       NULLIF(unnest(@domain_categories::text[]), ''), NULLIF(unnest(@source_trust_levels::text[]), ''),
       NULLIF(unnest(@target_trust_levels::text[]), ''), unnest(@retrieval_scores::float8[])
ON CONFLICT (source_type, source_id, target_type, target_id)
    WHERE source_type = 'fragment' AND target_type = 'claim' AND relation IN ('supports', 'refutes', 'neutral')
    DO NOTHING;

-- name: ClaimEvidence :many
-- Everything a claim's posterior, belief and source verification are decided
-- from, in one read (store.recomputePosteriors sums it in Go, sumEvidence):
-- per claim its organization, its origin (the domain, site and level of the
-- page it was extracted from; empty for a hypothesis) and whether it has
-- conflicts recorded, with one row per NLI edge into it, in edge id order
-- (a claim without edges has one row, edge_id 0): the edge's relation,
-- confidence and relevance (the retrieval score recorded when it was
-- judged; 1 when none was, and for a person's correction), and its source
-- page's domain, site and level of record in the claim's organization's
-- view (has_source false when the fragment or page is gone). ClaimTallies
-- and ClaimSiteEdges below are the same sums written in SQL: the tests hold
-- the two against each other. Read after the claims' rows are locked, so it
-- sees the conflicts of the writer it waited for.
SELECT u.id::bigint AS claim_id,
       COALESCE(co.organization_id, '')::text AS organization_id,
       COALESCE(o.domain, '')::text AS origin_domain, COALESCE(o.site, '')::text AS origin_site, COALESCE(o.level, '')::text AS origin_level,
       EXISTS (SELECT 1 FROM claim_conflicts cc WHERE cc.claim_id = u.id) AS has_conflicts,
       COALESCE(e.id, 0)::bigint AS edge_id, COALESCE(e.relation, '')::text AS relation,
       COALESCE(e.nli_edge_confidence, 0)::float8 AS confidence,
       (CASE WHEN e.corrected_at IS NULL THEN COALESCE(e.retrieval_score, 1) ELSE 1 END)::float8 AS relevance,
       (p.id IS NOT NULL)::boolean AS has_source,
       COALESCE(p.domain, '')::text AS domain, COALESCE(d.site, p.domain, '')::text AS site,
       COALESCE(effective_trust_level(d.trust_level, ov.trust_level), '')::text AS level
FROM unnest(@claim_ids::bigint[]) AS u(id)
LEFT JOIN LATERAL (
    SELECT t.organization_id FROM claims c JOIN tasks t ON t.id = c.task_id WHERE c.id = u.id
) AS co ON true
LEFT JOIN LATERAL (
    SELECT op.domain, COALESCE(od.site, op.domain) AS site,
           COALESCE(effective_trust_level(od.trust_level, oo.trust_level), 'UNVERIFIED') AS level
    FROM claims c
    JOIN fragments ofr ON ofr.id = c.origin_fragment_id
    JOIN pages op ON op.id = ofr.page_id
    LEFT JOIN domains od ON od.domain = op.domain
    LEFT JOIN org_domain_levels oo ON oo.domain = op.domain AND oo.organization_id = co.organization_id
    WHERE c.id = u.id
) AS o ON true
LEFT JOIN LATERAL (
    -- one index probe per claim (see JudgedPairs)
    SELECT e.id, e.relation, e.nli_edge_confidence, e.source_id, e.retrieval_score, e.corrected_at FROM edges e
    WHERE e.target_id = u.id AND e.target_type = 'claim' AND e.source_type = 'fragment'
      AND e.relation IN ('supports', 'refutes', 'neutral')
    OFFSET 0
) AS e ON true
LEFT JOIN fragments f ON f.id = e.source_id
LEFT JOIN pages p ON p.id = f.page_id
LEFT JOIN domains d ON d.domain = p.domain
LEFT JOIN org_domain_levels ov ON ov.domain = p.domain AND ov.organization_id = co.organization_id
ORDER BY u.id, e.id;

-- name: ClaimTallies :many
-- The sums the posterior is computed from (ARCHITECTURE.md §5.1): only supports and
-- refutes edges with a positive confidence count; neutral edges are counted
-- apart; trust levels are not read for the sums. With each claim, its origin
-- (the domain, site and level of the page it was extracted from; empty for
-- a hypothesis) for source verification. With them, the log-odds belief's
-- per-edge inputs (internal/belief), in edge id order: the supports and
-- refutes edges of positive confidence whose domain's level of record is
-- not BLOCKED, each with its relation, strength (the confidence) and
-- relevance (the retrieval score recorded when it was judged; 1 when none
-- was, for edges judged before migration 00023, and for a person's
-- correction, which counts whatever retrieval found). Read after the claims'
-- rows are locked, so it sees the conflicts of the writer it waited for.
SELECT u.id::bigint AS claim_id,
       COALESCE(sum(e.nli_edge_confidence) FILTER (WHERE e.relation = 'supports' AND e.nli_edge_confidence > 0), 0)::float8 AS support_sum,
       COALESCE(sum(e.nli_edge_confidence) FILTER (WHERE e.relation = 'refutes' AND e.nli_edge_confidence > 0), 0)::float8 AS refute_sum,
       count(e.id) FILTER (WHERE e.relation = 'supports' AND e.nli_edge_confidence > 0)::int AS supporting,
       count(e.id) FILTER (WHERE e.relation = 'refutes' AND e.nli_edge_confidence > 0)::int AS refuting,
       count(e.id) FILTER (WHERE e.relation = 'neutral')::int AS neutral,
       -- sources are sites (registrable domains), not pages or hosts
       count(DISTINCT COALESCE(d.site, p.domain)) FILTER (WHERE e.relation IN ('supports', 'refutes') AND e.nli_edge_confidence > 0)::int AS independent_sources,
       COALESCE(o.domain, '')::text AS origin_domain, COALESCE(o.site, '')::text AS origin_site, COALESCE(o.level, '')::text AS origin_level,
       COALESCE(array_agg(e.relation ORDER BY e.id) FILTER (WHERE e.relation IN ('supports', 'refutes') AND e.nli_edge_confidence > 0
           AND effective_trust_level(d.trust_level, ov.trust_level) IS DISTINCT FROM 'BLOCKED'), '{}')::text[] AS belief_relations,
       COALESCE(array_agg(e.nli_edge_confidence ORDER BY e.id) FILTER (WHERE e.relation IN ('supports', 'refutes') AND e.nli_edge_confidence > 0
           AND effective_trust_level(d.trust_level, ov.trust_level) IS DISTINCT FROM 'BLOCKED'), '{}')::float8[] AS belief_strengths,
       COALESCE(array_agg(CASE WHEN e.corrected_at IS NULL THEN COALESCE(e.retrieval_score, 1) ELSE 1 END ORDER BY e.id)
           FILTER (WHERE e.relation IN ('supports', 'refutes') AND e.nli_edge_confidence > 0
           AND effective_trust_level(d.trust_level, ov.trust_level) IS DISTINCT FROM 'BLOCKED'), '{}')::float8[] AS belief_relevances,
       -- whether the claim has conflicts recorded (claim_conflicts), so that
       -- a recomputation clears them only where there are some
       EXISTS (SELECT 1 FROM claim_conflicts cc WHERE cc.claim_id = u.id) AS has_conflicts,
       COALESCE(co.organization_id, '')::text AS organization_id
FROM unnest(@claim_ids::bigint[]) AS u(id)
LEFT JOIN LATERAL (
    SELECT t.organization_id FROM claims c JOIN tasks t ON t.id = c.task_id WHERE c.id = u.id
) AS co ON true
LEFT JOIN LATERAL (
    SELECT op.domain, COALESCE(od.site, op.domain) AS site,
           COALESCE(effective_trust_level(od.trust_level, oo.trust_level), 'UNVERIFIED') AS level
    FROM claims c
    JOIN fragments ofr ON ofr.id = c.origin_fragment_id
    JOIN pages op ON op.id = ofr.page_id
    LEFT JOIN domains od ON od.domain = op.domain
    LEFT JOIN org_domain_levels oo ON oo.domain = op.domain AND oo.organization_id = co.organization_id
    WHERE c.id = u.id
) AS o ON true
LEFT JOIN LATERAL (
    -- one index probe per claim (see JudgedPairs)
    SELECT e.id, e.relation, e.nli_edge_confidence, e.source_id, e.retrieval_score, e.corrected_at FROM edges e
    WHERE e.target_id = u.id AND e.target_type = 'claim' AND e.source_type = 'fragment'
      AND e.relation IN ('supports', 'refutes', 'neutral')
    OFFSET 0
) AS e ON true
LEFT JOIN fragments f ON f.id = e.source_id
LEFT JOIN pages p ON p.id = f.page_id
LEFT JOIN domains d ON d.domain = p.domain
LEFT JOIN org_domain_levels ov ON ov.domain = p.domain AND ov.organization_id = co.organization_id
GROUP BY u.id, o.domain, o.site, o.level, co.organization_id
ORDER BY u.id;

-- name: ClaimSiteEdges :many
-- Source verification's view of the claims' confident edges
-- (ARCHITECTURE.md §5.5): per claim, relation and source domain, the
-- domain's site and level of record, the strongest confidence and that
-- edge's id.
SELECT e.target_id::bigint AS claim_id, e.relation, p.domain, COALESCE(d.site, p.domain)::text AS site,
       COALESCE(effective_trust_level(d.trust_level, o.trust_level), 'UNVERIFIED')::text AS level,
       max(e.nli_edge_confidence)::float8 AS confidence,
       (array_agg(e.id ORDER BY e.nli_edge_confidence DESC, e.id))[1]::bigint AS edge_id
FROM unnest(@claim_ids::bigint[]) AS u(id)
JOIN LATERAL (
    SELECT e.id, e.target_id, e.relation, e.nli_edge_confidence, e.source_id FROM edges e
    WHERE e.target_id = u.id AND e.target_type = 'claim' AND e.source_type = 'fragment'
      AND e.relation IN ('supports', 'refutes') AND e.nli_edge_confidence >= @min_confidence::float8
    OFFSET 0
) AS e ON true
JOIN fragments f ON f.id = e.source_id
JOIN pages p ON p.id = f.page_id
LEFT JOIN domains d ON d.domain = p.domain
LEFT JOIN org_domain_levels o ON o.domain = p.domain
    AND o.organization_id = (SELECT t.organization_id FROM claims c JOIN tasks t ON t.id = c.task_id WHERE c.id = u.id)
GROUP BY e.target_id, e.relation, p.domain, d.site, d.trust_level, o.trust_level
ORDER BY 1, 2, 3;

-- name: UpdatePosteriors :exec
-- The recomputed posteriors, beliefs and statuses (decided in Go: source
-- verification and a person's word); adopted into the evidence of record
-- when verified; a rejected claim stays in the graph, not adopted.
UPDATE claims c
SET alpha = v.alpha, beta = v.beta, confidence = v.confidence, uncertainty = v.uncertainty,
    controversy = v.controversy, verdict = v.verdict, supporting_count = v.supporting,
    refuting_count = v.refuting, neutral_count = v.neutral, independent_sources = v.independent,
    evidence_count = v.evidence_count,
    verification_status = v.verification, verification_reason = v.reason,
    supporting_sites = v.supporting_sites, refuting_sites = v.refuting_sites,
    belief_log_odds = v.belief_log_odds, belief = v.belief,
    propagated_log_odds = v.propagated_log_odds, propagated_belief = v.propagated_belief,
    adoption_status = CASE v.verification WHEN 'rejected' THEN 'not_adopted' WHEN 'verified' THEN 'adopted' ELSE 'pending' END,
    updated_at = now()
FROM (
    SELECT unnest(@ids::bigint[]) AS id, unnest(@alphas::float8[]) AS alpha, unnest(@betas::float8[]) AS beta,
           unnest(@confidences::float8[]) AS confidence, unnest(@uncertainties::float8[]) AS uncertainty,
           unnest(@controversies::float8[]) AS controversy, unnest(@verdicts::text[]) AS verdict,
           unnest(@supportings::int[]) AS supporting, unnest(@refutings::int[]) AS refuting,
           unnest(@neutrals::int[]) AS neutral, unnest(@independents::int[]) AS independent,
           unnest(@evidence_counts::int[]) AS evidence_count, unnest(@verifications::text[]) AS verification,
           unnest(@reasons::text[]) AS reason, unnest(@supporting_sites::int[]) AS supporting_sites,
           unnest(@refuting_sites::int[]) AS refuting_sites, unnest(@belief_log_odds::float8[]) AS belief_log_odds,
           unnest(@beliefs::float8[]) AS belief, unnest(@propagated_log_odds::float8[]) AS propagated_log_odds,
           unnest(@propagated_beliefs::float8[]) AS propagated_belief
) v
WHERE c.id = v.id;

-- name: DeleteClaimConflicts :exec
DELETE FROM claim_conflicts WHERE claim_id = ANY(@claim_ids::bigint[]);

-- name: InsertClaimConflicts :exec
INSERT INTO claim_conflicts (edge_id, claim_id, kind, refuter_domain, refuter_level, origin_domain, origin_level, confidence)
SELECT unnest(@edge_ids::bigint[]), unnest(@claim_ids::bigint[]), unnest(@kinds::text[]), unnest(@refuter_domains::text[]),
       unnest(@refuter_levels::text[]), unnest(@origin_domains::text[]), unnest(@origin_levels::text[]), unnest(@confidences::float8[]);

-- name: UnfinishedVerifyShards :many
-- The claim ranges of the task's verify_nli shard jobs still waiting or
-- running. A dispatch leaves them out instead of inserting twins that River
-- would skip: its unique insert locks the twin's row, and the rows of many
-- twins, taken in the dispatch's order, deadlock with River's completer.
SELECT (args ->> 'claim_from')::bigint AS claim_from, (args ->> 'claim_to')::bigint AS claim_to
FROM river_job
WHERE kind = 'verify_nli' AND state IN ('available', 'pending', 'running', 'retryable', 'scheduled')
  AND args ->> 'task_id' = @task_id::text AND args ? 'claim_from';
