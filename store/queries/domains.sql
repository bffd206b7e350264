-- name: LockDomain :one
-- A domain's row, locked for a change of its level (an empty row when it
-- has none: the caller creates it).
SELECT domain, trust_level, level_source, COALESCE(original_trust_level, '')::text AS original_trust_level,
       (blocked_at IS NOT NULL)::bool AS blocked
FROM domains WHERE domain = @domain FOR UPDATE;

-- name: CreateDomainRow :exec
INSERT INTO domains (domain, site) VALUES (@domain, @site) ON CONFLICT (domain) DO NOTHING;

-- name: SetDomainLevel :exec
-- A person's level of record. A block keeps the level it replaced
-- (original_trust_level) for the unblock; an unblock clears the block.
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
    updated_at = now()
WHERE domain = @domain;

-- name: RecordDomainLevelChange :exec
INSERT INTO domain_level_changes (domain, old_level, new_level, source, reason, set_by)
VALUES (@domain, sqlc.narg(old_level), @new_level, @source, @reason, @set_by);

-- name: ListDomains :many
-- Domains with their level of record, best level first, optionally of one
-- level only or one domain only.
SELECT domain, COALESCE(site, domain)::text AS site, trust_level, level_source, COALESCE(level_rule, '')::text AS level_rule,
       COALESCE(level_set_by, '')::text AS level_set_by, level_set_at,
       blocked_at, COALESCE(block_reason, '')::text AS block_reason, COALESCE(original_trust_level, '')::text AS original_trust_level
FROM domains
WHERE (sqlc.narg(level)::text IS NULL OR trust_level = sqlc.narg(level)::text)
  AND (sqlc.narg(domain)::text IS NULL OR domain = sqlc.narg(domain)::text)
ORDER BY array_position(ARRAY['PRIMARY','GOVERNMENT','ACADEMIC','TRUSTED','LOW','UNVERIFIED','BLOCKED'], trust_level), domain
LIMIT @max_rows;

-- name: DomainLevelChanges :many
SELECT old_level, new_level, source, reason, set_by, at
FROM domain_level_changes WHERE domain = @domain ORDER BY id;

-- name: TaskPageDomains :many
-- The domains of a task's pages.
SELECT DISTINCT p.domain FROM task_pages tp JOIN pages p ON p.id = tp.page_id WHERE tp.task_id = @task_id ORDER BY p.domain;

-- name: BlockedDomainsAmong :many
-- Which of these domains are BLOCKED, with when, why and by whom.
SELECT domain, blocked_at, COALESCE(block_reason, '')::text AS block_reason, COALESCE(level_rule, '')::text AS reason,
       COALESCE(level_set_by, '')::text AS set_by, COALESCE(original_trust_level, '')::text AS original_trust_level
FROM domains WHERE domain = ANY(@domains::text[]) AND trust_level = 'BLOCKED' ORDER BY domain;

-- name: PromoteCorroboratedDomains :many
-- Source verification's promotion (ARCHITECTURE.md §5.5): a domain at
-- UNVERIFIED that nobody vouched for (no policy rule, no person) becomes
-- LOW when one of its claims, among these, is verified (supported from 2
-- other sites or more). Returns the promoted domains with the claim.
WITH corroborated AS (
    SELECT DISTINCT ON (p.domain) p.domain, c.id AS claim_id, c.independent_sources
    FROM claims c
    JOIN fragments f ON f.id = c.origin_fragment_id
    JOIN pages p ON p.id = f.page_id
    WHERE c.id = ANY(@claim_ids::bigint[]) AND c.verification_status = 'verified'
    ORDER BY p.domain, c.id
)
UPDATE domains d SET
    trust_level = 'LOW', category = 'low', level_source = 'verification',
    level_rule = 'claim ' || k.claim_id || ' verified by ' || k.independent_sources || ' independent sites',
    level_set_by = 'source verification', level_set_at = now(), updated_at = now()
FROM corroborated k
WHERE d.domain = k.domain AND d.trust_level = 'UNVERIFIED'
  AND (d.level_source = 'default' OR (d.level_source = 'policy' AND d.level_rule = 'default'))
RETURNING d.domain, k.claim_id;

-- name: RecordPromotions :exec
INSERT INTO domain_level_changes (domain, old_level, new_level, source, reason, set_by)
SELECT unnest(@domains::text[]), 'UNVERIFIED', 'LOW', 'verification', unnest(@reasons::text[]), 'source verification';
