-- name: LockDomain :one
-- A domain's row, locked for a change of its level (an empty row when it
-- has none: the caller creates it).
SELECT domain, trust_level, level_source, COALESCE(level_rule, '')::text AS level_rule,
       COALESCE(original_trust_level, '')::text AS original_trust_level,
       (blocked_at IS NOT NULL)::bool AS blocked, (flagged_at IS NOT NULL)::bool AS flagged
FROM domains WHERE domain = @domain FOR UPDATE;

-- name: CreateDomainRow :exec
INSERT INTO domains (domain, site) VALUES (@domain, @site) ON CONFLICT (domain) DO NOTHING;

-- name: SetDomainLevel :exec
-- A person's level of record (or, for a clear, the policy's). A block keeps
-- the level it replaced (original_trust_level) for the unblock; an unblock
-- clears the block and its cause.
UPDATE domains SET
    trust_level = @trust_level,
    category = lower(@trust_level::text),
    level_source = @level_source,
    level_rule = @reason,
    level_set_by = @set_by,
    level_set_at = now(),
    blocked_at = CASE WHEN @trust_level::text = 'BLOCKED' THEN COALESCE(blocked_at, now()) END,
    block_reason = CASE WHEN @trust_level::text = 'BLOCKED' THEN @block_reason::text END,
    original_trust_level = CASE WHEN @trust_level::text = 'BLOCKED' THEN @original_trust_level::text END,
    block_claim_ids = CASE WHEN @trust_level::text = 'BLOCKED' THEN block_claim_ids END,
    block_edge_ids = CASE WHEN @trust_level::text = 'BLOCKED' THEN block_edge_ids END,
    cause_id = CASE WHEN @trust_level::text = 'BLOCKED' THEN cause_id END,
    -- a person who sets the level has seen the flag
    flagged_at = NULL, flag_reason = NULL,
    updated_at = now()
WHERE domain = @domain;

-- name: RecordDomainLevelChange :exec
INSERT INTO domain_level_changes (domain, old_level, new_level, source, reason, set_by, action)
VALUES (@domain, sqlc.narg(old_level), @new_level, @source, @reason, @set_by, @action);

-- name: ListDomains :many
-- Domains with their level of record, best level first, optionally of one
-- level only or one domain only.
SELECT domain, COALESCE(site, domain)::text AS site, trust_level, level_source, COALESCE(level_rule, '')::text AS level_rule,
       COALESCE(level_set_by, '')::text AS level_set_by, level_set_at,
       blocked_at, COALESCE(block_reason, '')::text AS block_reason, COALESCE(original_trust_level, '')::text AS original_trust_level,
       flagged_at, COALESCE(flag_reason, '')::text AS flag_reason, rejected_claims, total_claims
FROM domains
WHERE (sqlc.narg(level)::text IS NULL OR trust_level = sqlc.narg(level)::text)
  AND (sqlc.narg(domain)::text IS NULL OR domain = sqlc.narg(domain)::text)
ORDER BY array_position(ARRAY['PRIMARY','GOVERNMENT','ACADEMIC','TRUSTED','LOW','UNVERIFIED','BLOCKED'], trust_level), domain
LIMIT @max_rows;

-- name: DomainLevelChanges :many
SELECT action, old_level, new_level, source, reason, set_by, at
FROM domain_level_changes WHERE domain = @domain ORDER BY id;

-- name: TaskPageDomains :many
-- The domains of a task's pages.
SELECT DISTINCT p.domain FROM task_pages tp JOIN pages p ON p.id = tp.page_id WHERE tp.task_id = @task_id ORDER BY p.domain;

-- name: BlockedDomainsAmong :many
-- Which of these domains are BLOCKED, with when, why, by whom, and the
-- cause (the rejected claims and the edges that rejected them, or a page).
SELECT domain, blocked_at, COALESCE(block_reason, '')::text AS block_reason, COALESCE(level_rule, '')::text AS reason,
       COALESCE(level_set_by, '')::text AS set_by, COALESCE(original_trust_level, '')::text AS original_trust_level,
       COALESCE(block_claim_ids, '{}')::bigint[] AS cause_claim_ids, COALESCE(block_edge_ids, '{}')::bigint[] AS cause_edge_ids,
       COALESCE(cause_id, '')::text AS cause
FROM domains WHERE domain = ANY(@domains::text[]) AND trust_level = 'BLOCKED' ORDER BY domain;

-- name: FlaggedDomainsAmong :many
-- Which of these domains source verification flagged for a person, and why.
SELECT domain, trust_level, flagged_at, COALESCE(flag_reason, '')::text AS flag_reason
FROM domains WHERE domain = ANY(@domains::text[]) AND flagged_at IS NOT NULL ORDER BY domain;

-- name: PromoteCorroboratedDomains :many
-- Source verification's promotion (ARCHITECTURE.md §5.5): a domain at
-- UNVERIFIED that nobody vouched for (no policy rule, no person) becomes
-- LOW when one of its claims, among these, is verified (supported from 2
-- other sites or more). The rows are locked in domain order. Returns the
-- promoted domains with the claim.
WITH corroborated AS (
    SELECT DISTINCT ON (p.domain) p.domain, c.id AS claim_id, c.independent_sources
    FROM claims c
    JOIN fragments f ON f.id = c.origin_fragment_id
    JOIN pages p ON p.id = f.page_id
    WHERE c.id = ANY(@claim_ids::bigint[]) AND c.verification_status = 'verified'
    ORDER BY p.domain, c.id
), locked AS (
    SELECT d.domain FROM domains d JOIN corroborated k ON k.domain = d.domain
    WHERE d.trust_level = 'UNVERIFIED'
      AND (d.level_source = 'default' OR (d.level_source = 'policy' AND d.level_rule = 'default'))
    ORDER BY d.domain FOR UPDATE OF d
)
UPDATE domains d SET
    trust_level = 'LOW', category = 'low', level_source = 'verification',
    level_rule = 'claim ' || k.claim_id || ' verified by ' || k.independent_sources || ' independent sites',
    level_set_by = 'source verification', level_set_at = now(), updated_at = now()
FROM locked l JOIN corroborated k ON k.domain = l.domain
WHERE d.domain = l.domain
RETURNING d.domain, k.claim_id;

-- name: RecordPromotions :exec
INSERT INTO domain_level_changes (domain, old_level, new_level, source, reason, set_by, action)
SELECT unnest(@domains::text[]), 'UNVERIFIED', 'LOW', 'verification', unnest(@reasons::text[]), 'source verification', 'promote';

-- name: DomainStandings :many
-- The block rule's view of these domains (ARCHITECTURE.md §5.5), locked in
-- domain order: the level of record, who set it, and how many of the
-- domain's claims are rejected, with the latest rejected claims' ids.
SELECT d.domain, d.trust_level, d.level_source, COALESCE(d.level_rule, '')::text AS level_rule,
       (d.blocked_at IS NOT NULL)::bool AS blocked, (d.flagged_at IS NOT NULL)::bool AS flagged,
       s.rejected, s.total, s.rejected_ids
FROM domains d
CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE c.verification_status = 'rejected')::int AS rejected, count(c.id)::int AS total,
           COALESCE((array_agg(c.id ORDER BY c.id DESC) FILTER (WHERE c.verification_status = 'rejected'))[1:20], '{}')::bigint[] AS rejected_ids
    FROM pages p
    JOIN fragments f ON f.page_id = p.id
    JOIN claims c ON c.origin_fragment_id = f.id
    WHERE p.domain = d.domain
) AS s
WHERE d.domain = ANY(@domains::text[])
ORDER BY d.domain
FOR UPDATE OF d;

-- name: RejectingEdges :many
-- The edges that rejected these claims (their refuted_by_higher conflicts).
SELECT edge_id FROM claim_conflicts
WHERE claim_id = ANY(@claim_ids::bigint[]) AND kind = 'refuted_by_higher'
ORDER BY edge_id DESC LIMIT 20;

-- name: SetDomainStanding :exec
-- The domain's claim counts behind its rejection rate.
UPDATE domains SET rejected_claims = @rejected, total_claims = @total, rejection_rate = @rejection_rate
WHERE domain = @domain;

-- name: BlockDomain :exec
-- A block by source verification or for a dangerous pattern, with its
-- cause; the level it replaces is kept for the unblock.
UPDATE domains SET
    original_trust_level = trust_level,
    trust_level = 'BLOCKED', category = 'blocked', level_source = 'verification',
    level_rule = @reason, level_set_by = 'source verification', level_set_at = now(),
    blocked_at = now(), block_reason = @block_reason,
    block_claim_ids = @claim_ids::bigint[], block_edge_ids = @edge_ids::bigint[],
    cause_id = sqlc.narg(cause)::text,
    updated_at = now()
WHERE domain = @domain AND blocked_at IS NULL;

-- name: FlagDomain :exec
-- A vouched-for domain over a block line, shown to a person.
UPDATE domains SET flagged_at = now(), flag_reason = @reason, updated_at = now()
WHERE domain = @domain;

-- name: QuarantinePage :exec
UPDATE pages SET quarantined_reason = @reason, quarantined_at = COALESCE(quarantined_at, now()) WHERE id = @id;

-- name: DomainLevelCounts :many
-- Domains per level of record, and how many of them are flagged (metrics).
SELECT trust_level, count(*)::bigint AS domains, count(*) FILTER (WHERE flagged_at IS NOT NULL)::bigint AS flagged
FROM domains GROUP BY trust_level;

-- name: DomainChangeCounts :many
-- Audit rows per action and source: promotions, blocks, flags, restores (metrics).
SELECT action, source, count(*)::bigint AS changes FROM domain_level_changes GROUP BY action, source;

-- name: PolicyLevelDomains :many
-- Domains whose level the policy set on first sight, or nobody set, after
-- a domain name, in order (a policy reload walks them in pages).
SELECT domain, trust_level FROM domains
WHERE level_source IN ('policy', 'default') AND domain > @after::text
ORDER BY domain LIMIT @max_rows;

-- name: ApplyPolicyLevels :many
-- A reloaded policy's levels for domains it (or nobody) set, where they
-- differ: rows a person or source verification changed meanwhile, or that
-- another process holds (it applies the same policy), are left alone. A
-- level of BLOCKED is the policy's deny list.
WITH want AS (
    SELECT unnest(@domains::text[]) AS domain, unnest(@levels::text[]) AS level, unnest(@rules::text[]) AS rule
), locked AS (
    SELECT d.domain, d.trust_level AS old_level FROM domains d JOIN want w ON w.domain = d.domain
    WHERE d.level_source IN ('policy', 'default') AND d.trust_level <> w.level
    ORDER BY d.domain FOR UPDATE OF d SKIP LOCKED
)
UPDATE domains d SET
    trust_level = w.level, category = lower(w.level), level_source = 'policy', level_rule = w.rule,
    level_set_by = 'domain policy', level_set_at = now(),
    blocked_at = CASE WHEN w.level = 'BLOCKED' THEN COALESCE(d.blocked_at, now()) END,
    block_reason = CASE WHEN w.level = 'BLOCKED' THEN 'denylist' END,
    original_trust_level = CASE WHEN w.level = 'BLOCKED' THEN l.old_level END,
    updated_at = now()
FROM locked l JOIN want w ON w.domain = l.domain
WHERE d.domain = l.domain
RETURNING d.domain, l.old_level, d.trust_level AS new_level, w.rule::text AS rule;

-- name: RecordPolicyChanges :exec
INSERT INTO domain_level_changes (domain, old_level, new_level, source, reason, set_by, action)
SELECT unnest(@domains::text[]), unnest(@old_levels::text[]), unnest(@new_levels::text[]), 'policy',
       unnest(@reasons::text[]), 'domain policy', 'policy';

-- name: ClaimsTouchingDomain :many
-- The claims whose status a change of the domain's level can change: those
-- extracted from its pages, and those its fragments confidently support or
-- refute.
SELECT c.id FROM pages p
JOIN fragments f ON f.page_id = p.id
JOIN claims c ON c.origin_fragment_id = f.id
WHERE p.domain = @domain
UNION
SELECT e.target_id FROM pages p
JOIN fragments f ON f.page_id = p.id
JOIN edges e ON e.source_type = 'fragment' AND e.source_id = f.id AND e.target_type = 'claim'
WHERE p.domain = @domain AND e.relation IN ('supports', 'refutes') AND e.nli_edge_confidence >= @min_confidence::float8
ORDER BY 1;
