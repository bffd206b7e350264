-- The reviewers' console's reads (internal/service: claims.go, spans.go,
-- review.go), each of one organization's tasks. A domain's level is the
-- organization's view of it now, effective_trust_level(fleet, view) as
-- DomainViewOf reads it (ARCHITECTURE.md §5.5); a page whose domain has no
-- row yet is UNVERIFIED.

-- name: ConsoleClaims :many
-- The task's claims matching the filter ('' = any) in E-number order from
-- after @after_no, each with its origin page's domain and that domain's
-- level ('' for a hypothesis). The task is the organization's (the caller
-- checked it).
SELECT sqlc.embed(c), COALESCE(p.domain, '')::text AS domain,
       (CASE WHEN p.domain IS NULL THEN '' ELSE COALESCE(effective_trust_level(d.trust_level, o.trust_level), 'UNVERIFIED') END)::text AS origin_level
FROM claims c
LEFT JOIN fragments f ON f.id = c.origin_fragment_id
LEFT JOIN pages p ON p.id = f.page_id
LEFT JOIN domains d ON d.domain = p.domain
LEFT JOIN org_domain_levels o ON o.domain = p.domain AND o.organization_id = @organization_id
WHERE c.task_id = @task_id AND c.evidence_no > @after_no::int
  AND (@verdict::text = '' OR c.verdict = @verdict::text)
  AND (@verification::text = '' OR c.verification_status = @verification::text)
ORDER BY c.evidence_no
LIMIT @max_rows;

-- name: ConsoleClaimCount :one
-- How many of the task's claims match the filter ('' = any).
SELECT count(*)::int FROM claims c
WHERE c.task_id = @task_id
  AND (@verdict::text = '' OR c.verdict = @verdict::text)
  AND (@verification::text = '' OR c.verification_status = @verification::text);

-- name: ConsoleClaim :one
-- One claim of the organization's tasks with its task's hypothesis, its
-- origin page's domain and that domain's level; no row for another
-- organization's claim.
SELECT sqlc.embed(c), t.hypothesis, COALESCE(p.domain, '')::text AS domain,
       (CASE WHEN p.domain IS NULL THEN '' ELSE COALESCE(effective_trust_level(d.trust_level, o.trust_level), 'UNVERIFIED') END)::text AS origin_level
FROM claims c
JOIN tasks t ON t.id = c.task_id
LEFT JOIN fragments f ON f.id = c.origin_fragment_id
LEFT JOIN pages p ON p.id = f.page_id
LEFT JOIN domains d ON d.domain = p.domain
LEFT JOIN org_domain_levels o ON o.domain = p.domain AND o.organization_id = t.organization_id
WHERE c.id = @id AND t.organization_id = @organization_id;

-- name: ConsoleClaimEvidence :many
-- The NLI edges into a claim, at most @per_relation of each relation,
-- strongest first, each with its premise's span of record: page, version,
-- [start_char, end_char) and the version's text there, and its domain's
-- level. The claim is the organization's (the caller checked it).
SELECT e.id, e.relation, e.nli_edge_confidence AS confidence, COALESCE(e.nli_model, '')::text AS model,
       COALESCE(e.corrected_by, '')::text AS corrected_by,
       f.page_id, f.page_version_id, p.url, p.domain,
       COALESCE(effective_trust_level(d.trust_level, o.trust_level), 'UNVERIFIED')::text AS level,
       f.start_char, f.end_char,
       substring(pv.content FROM f.start_char + 1 FOR f.end_char - f.start_char)::text AS text
FROM (
    SELECT e.*, row_number() OVER (PARTITION BY e.relation ORDER BY e.nli_edge_confidence DESC NULLS LAST, e.id) AS n
    FROM edges e
    WHERE e.target_type = 'claim' AND e.target_id = @claim_id AND e.source_type = 'fragment'
      AND e.relation IN ('supports', 'refutes', 'neutral')
) AS e
JOIN fragments f ON f.id = e.source_id
JOIN page_versions pv ON pv.id = f.page_version_id
JOIN pages p ON p.id = f.page_id
LEFT JOIN domains d ON d.domain = p.domain
LEFT JOIN org_domain_levels o ON o.domain = p.domain AND o.organization_id = @organization_id
WHERE e.n <= @per_relation::int
ORDER BY e.relation, e.n;

-- name: ConsoleClaimOrigin :one
-- Where a claim of the organization's tasks was quoted from: its version
-- and quote span (NULL for a hypothesis) and its extractor; no row for
-- another organization's claim.
SELECT c.id, c.evidence_no, c.task_id, c.page_version_id, c.quote_start, c.quote_end,
       c.llm_claim_confidence AS confidence, COALESCE(c.extractor_model, '')::text AS model
FROM claims c JOIN tasks t ON t.id = c.task_id
WHERE c.id = @id AND t.organization_id = @organization_id;

-- name: ConsoleEdgeSource :one
-- An NLI edge into a claim of the organization's tasks, with its premise's
-- version and span; no row for another organization's edge or one that is
-- not an NLI edge.
SELECT e.id, e.relation, e.nli_edge_confidence AS confidence, COALESCE(e.nli_model, '')::text AS model,
       c.id AS claim_id, c.evidence_no, c.task_id, f.page_version_id, f.start_char, f.end_char
FROM edges e
JOIN claims c ON c.id = e.target_id
JOIN tasks t ON t.id = c.task_id
JOIN fragments f ON f.id = e.source_id
WHERE e.id = @id AND e.target_type = 'claim' AND e.source_type = 'fragment'
  AND e.relation IN ('supports', 'refutes', 'neutral') AND t.organization_id = @organization_id;

-- name: VersionSpanContext :one
-- A span [start_char, end_char) of one page version shown inside it: the
-- version's text from before_start to the span, the span, and up to
-- after_runes characters after it, each cut by substring so the content
-- stays in the database; the version's length, its page with the domain's
-- level in the organization's view, and the page's newest version. (A
-- parameter that starts an expression is parenthesised: sqlc would read
-- "@a::int - @b" as Postgres' prefix operator @.)
SELECT pv.page_id, pv.fetched_at, p.url, p.domain, COALESCE(p.title, '')::text AS title,
       COALESCE(effective_trust_level(d.trust_level, o.trust_level), 'UNVERIFIED')::text AS level,
       substring(pv.content FROM 1 + @before_start::int FOR (@start_char::int) - @before_start::int)::text AS before,
       substring(pv.content FROM 1 + @start_char::int FOR (@end_char::int) - @start_char::int)::text AS text,
       substring(pv.content FROM 1 + @end_char::int FOR @after_runes::int)::text AS after,
       char_length(pv.content)::int AS version_runes,
       (SELECT n.id FROM page_versions n WHERE n.page_id = pv.page_id ORDER BY n.fetched_at DESC, n.id DESC LIMIT 1)::bigint AS newest_version_id
FROM page_versions pv
JOIN pages p ON p.id = pv.page_id
LEFT JOIN domains d ON d.domain = p.domain
LEFT JOIN org_domain_levels o ON o.domain = p.domain AND o.organization_id = @organization_id
WHERE pv.id = @page_version_id;

-- name: OrgReviewDomains :many
-- The domains of the pages the organization's tasks reached, each with its
-- level in the organization's view (and the view's own and the fleet's,
-- '' when none), how many of those pages it has, and how many of the
-- organization's claims were extracted from it and are rejected.
WITH reached AS (
    SELECT p.domain, count(DISTINCT p.id)::int AS pages
    FROM task_pages tp
    JOIN tasks t ON t.id = tp.task_id
    JOIN pages p ON p.id = tp.page_id
    WHERE t.organization_id = @organization_id
    GROUP BY p.domain
), claimed AS (
    SELECT p.domain, count(*)::int AS claims,
           count(*) FILTER (WHERE c.verification_status = 'rejected')::int AS rejected
    FROM tasks t
    JOIN claims c ON c.task_id = t.id
    JOIN fragments f ON f.id = c.origin_fragment_id
    JOIN pages p ON p.id = f.page_id
    WHERE t.organization_id = @organization_id
    GROUP BY p.domain
)
SELECT r.domain, COALESCE(effective_trust_level(d.trust_level, o.trust_level), 'UNVERIFIED')::text AS level,
       COALESCE(o.trust_level, '')::text AS own_level, COALESCE(d.trust_level, '')::text AS fleet_level,
       r.pages, COALESCE(k.claims, 0)::int AS claims, COALESCE(k.rejected, 0)::int AS rejected_claims
FROM reached r
LEFT JOIN claimed k ON k.domain = r.domain
LEFT JOIN domains d ON d.domain = r.domain
LEFT JOIN org_domain_levels o ON o.domain = r.domain AND o.organization_id = @organization_id
ORDER BY r.domain;

-- name: OrgFailedURLTargets :many
-- The URLs of the organization's failed url targets (a blocked domain's
-- target fails before any page of it is stored).
SELECT DISTINCT tg.value FROM targets tg JOIN tasks t ON t.id = tg.task_id
WHERE t.organization_id = @organization_id AND tg.kind = 'url' AND tg.status = 'failed'
ORDER BY tg.value;

-- name: OrgAudit :many
-- The organization's own changes, newest first, from before the cursor
-- (at, kind rank, id): its view's domain level changes (whoever made them),
-- and the claim feedback and edge corrections recorded as its. Each kind's
-- rows are cut to max_rows before they are merged, and only the page's
-- rows are joined to their claims, edges and pages.
WITH entries AS (
    (SELECT 0 AS rank, ch.id, ch.at FROM domain_level_changes ch
     WHERE ch.organization_id = @organization_id::text
       AND (sqlc.narg(before_at)::timestamptz IS NULL
            OR (ch.at, 0, ch.id) < (sqlc.narg(before_at)::timestamptz, @before_rank::int, @before_id::bigint))
     ORDER BY ch.at DESC, ch.id DESC
     LIMIT @max_rows)
    UNION ALL
    (SELECT 1, cf.id, cf.at FROM claim_feedback cf
     WHERE cf.organization_id = @organization_id::text
       AND (sqlc.narg(before_at)::timestamptz IS NULL
            OR (cf.at, 1, cf.id) < (sqlc.narg(before_at)::timestamptz, @before_rank::int, @before_id::bigint))
     ORDER BY cf.at DESC, cf.id DESC
     LIMIT @max_rows)
    UNION ALL
    (SELECT 2, ef.id, ef.at FROM edge_feedback ef
     WHERE ef.organization_id = @organization_id::text
       AND (sqlc.narg(before_at)::timestamptz IS NULL
            OR (ef.at, 2, ef.id) < (sqlc.narg(before_at)::timestamptz, @before_rank::int, @before_id::bigint))
     ORDER BY ef.at DESC, ef.id DESC
     LIMIT @max_rows)
), page AS (
    SELECT * FROM entries ORDER BY at DESC, rank DESC, id DESC LIMIT @max_rows
)
SELECT x.rank::int AS rank, x.id::bigint AS id, x.at::timestamptz AS at,
       COALESCE(ch.action, cf.action, 'correct')::text AS action,
       COALESCE(ch.domain, p.domain, '')::text AS domain,
       COALESCE(c.id, 0)::bigint AS claim_id, COALESCE(ef.edge_id, 0)::bigint AS edge_id,
       COALESCE(c.task_id, 0)::bigint AS task_id, COALESCE(c.evidence_no, 0)::int AS evidence_no,
       COALESCE(ch.old_level, ef.old_relation, '')::text AS old, COALESCE(ch.new_level, ef.new_relation, '')::text AS new,
       COALESCE(ch.reason, cf.reason, ef.reason)::text AS reason, COALESCE(ch.set_by, cf.set_by, ef.set_by)::text AS set_by,
       COALESCE(ch.actor_token_id, cf.token_id, ef.token_id) AS token_id
FROM page x
LEFT JOIN domain_level_changes ch ON x.rank = 0 AND ch.id = x.id
LEFT JOIN claim_feedback cf ON x.rank = 1 AND cf.id = x.id
LEFT JOIN edge_feedback ef ON x.rank = 2 AND ef.id = x.id
LEFT JOIN edges e ON e.id = ef.edge_id
LEFT JOIN claims c ON c.id = COALESCE(cf.claim_id, e.target_id)
LEFT JOIN fragments f ON f.id = COALESCE(e.source_id, c.origin_fragment_id)
LEFT JOIN pages p ON p.id = f.page_id
ORDER BY x.at DESC, x.rank DESC, x.id DESC;
