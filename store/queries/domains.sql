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
    cause_change_id = CASE WHEN @trust_level::text = 'BLOCKED' THEN cause_change_id END,
    -- a person who sets the level has seen the flag
    flagged_at = NULL, flag_reason = NULL,
    updated_at = now()
WHERE domain = @domain;

-- name: RecordDomainLevelChange :one
-- One audit row: what changed (the fleet's level, or one organization's
-- view), who did it (an operator, an organization's token, a rule with the
-- organizations behind it, the policy) and what it rests on (evidence).
INSERT INTO domain_level_changes (domain, old_level, new_level, source, reason, set_by, action,
                                  scope, organization_id, actor_kind, actor_organization_id, actor_token_id,
                                  rule_organizations, evidence)
VALUES (@domain, sqlc.narg(old_level), @new_level, @source, @reason, @set_by, @action,
        @scope, sqlc.narg(organization_id), @actor_kind, sqlc.narg(actor_organization_id), sqlc.narg(actor_token_id),
        sqlc.narg(rule_organizations)::text[], sqlc.narg(evidence)::jsonb)
RETURNING id;

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
-- A domain's audit, oldest first: the fleet's rows, and one organization's
-- view's rows when @organization_id is given (every view's when @all_views).
SELECT id, action, old_level, new_level, source, reason, set_by, at, scope, COALESCE(organization_id, '')::text AS organization_id,
       actor_kind, COALESCE(actor_organization_id, '')::text AS actor_organization_id, actor_token_id,
       COALESCE(rule_organizations, '{}')::text[] AS rule_organizations, evidence
FROM domain_level_changes
WHERE domain = @domain
  AND (scope = 'fleet' OR @all_views::bool OR organization_id = sqlc.narg(organization_id)::text)
ORDER BY id;

-- name: TaskPageDomains :many
-- The domains of a task's pages.
SELECT DISTINCT p.domain FROM task_pages tp JOIN pages p ON p.id = tp.page_id WHERE tp.task_id = @task_id ORDER BY p.domain;

-- name: BlockedDomainsAmong :many
-- Which of these domains are BLOCKED in the organization's view (by the
-- fleet, scope 'fleet', or by its own view, scope 'organization'), with
-- when, why, by whom, the cause (the rejected claims and the edges that
-- rejected them, or a page) and the audit row that keeps it.
SELECT d.domain, (CASE WHEN d.trust_level = 'BLOCKED' THEN 'fleet' ELSE 'organization' END)::text AS scope,
       COALESCE(CASE WHEN d.trust_level = 'BLOCKED' THEN d.blocked_at ELSE o.blocked_at END, d.level_set_at)::timestamptz AS blocked_at,
       COALESCE(CASE WHEN d.trust_level = 'BLOCKED' THEN d.block_reason ELSE o.block_reason END, '')::text AS block_reason,
       COALESCE(CASE WHEN d.trust_level = 'BLOCKED' THEN d.level_rule ELSE o.level_rule END, '')::text AS reason,
       COALESCE(CASE WHEN d.trust_level = 'BLOCKED' THEN d.level_set_by ELSE o.level_set_by END, '')::text AS set_by,
       COALESCE(CASE WHEN d.trust_level = 'BLOCKED' THEN d.original_trust_level ELSE o.original_trust_level END, '')::text AS original_trust_level,
       COALESCE(CASE WHEN d.trust_level = 'BLOCKED' THEN d.block_claim_ids ELSE o.block_claim_ids END, '{}')::bigint[] AS cause_claim_ids,
       COALESCE(CASE WHEN d.trust_level = 'BLOCKED' THEN d.block_edge_ids ELSE o.block_edge_ids END, '{}')::bigint[] AS cause_edge_ids,
       COALESCE(CASE WHEN d.trust_level = 'BLOCKED' THEN d.cause_id ELSE o.cause_id END, '')::text AS cause,
       CASE WHEN d.trust_level = 'BLOCKED' THEN d.cause_change_id ELSE o.cause_change_id END AS cause_change_id
FROM domains d
LEFT JOIN org_domain_levels o ON o.organization_id = @organization_id AND o.domain = d.domain
WHERE d.domain = ANY(@domains::text[]) AND effective_trust_level(d.trust_level, o.trust_level) = 'BLOCKED'
ORDER BY d.domain;

-- name: FlaggedDomainsAmong :many
-- Which of these domains source verification flagged for a person, and
-- why: flags of the fleet's level, and of the organization's view.
SELECT d.domain, effective_trust_level(d.trust_level, o.trust_level)::text AS trust_level,
       COALESCE(o.flagged_at, d.flagged_at)::timestamptz AS flagged_at,
       COALESCE(CASE WHEN o.flagged_at IS NOT NULL THEN o.flag_reason ELSE d.flag_reason END, '')::text AS flag_reason,
       (CASE WHEN o.flagged_at IS NOT NULL THEN 'organization' ELSE 'fleet' END)::text AS scope
FROM domains d
LEFT JOIN org_domain_levels o ON o.organization_id = @organization_id AND o.domain = d.domain
WHERE d.domain = ANY(@domains::text[]) AND (d.flagged_at IS NOT NULL OR o.flagged_at IS NOT NULL)
ORDER BY d.domain;

-- name: RecordPromotions :exec
-- The audit rows of promotions in one organization's view.
INSERT INTO domain_level_changes (domain, old_level, new_level, source, reason, set_by, action,
                                  scope, organization_id, actor_kind, rule_organizations)
SELECT unnest(@domains::text[]), 'UNVERIFIED', 'LOW', 'verification', unnest(@reasons::text[]), 'source verification', 'promote',
       'organization', @organization_id::text, 'rule', ARRAY[@organization_id::text];

-- name: RejectingEdges :many
-- The edges that rejected these claims (their refuted_by_higher conflicts).
SELECT edge_id FROM claim_conflicts
WHERE claim_id = ANY(@claim_ids::bigint[]) AND kind = 'refuted_by_higher'
ORDER BY edge_id DESC LIMIT 20;

-- name: SumDomainStanding :exec
-- The domain's claim counts over every organization, for display: the
-- block rule reads each organization's own (org_domain_levels), never
-- these.
UPDATE domains d SET rejected_claims = s.rejected, total_claims = s.total,
    rejection_rate = CASE WHEN s.total > 0 THEN s.rejected::float8 / s.total ELSE 0 END
FROM (SELECT COALESCE(sum(rejected_claims), 0)::int AS rejected, COALESCE(sum(total_claims), 0)::int AS total
      FROM org_domain_levels WHERE domain = @domain) AS s
WHERE d.domain = @domain;

-- name: BlockDomain :exec
-- A block by source verification or for a dangerous pattern, with its
-- cause; the level it replaces is kept for the unblock.
UPDATE domains SET
    original_trust_level = trust_level,
    trust_level = 'BLOCKED', category = 'blocked', level_source = 'verification',
    level_rule = @reason, level_set_by = 'source verification', level_set_at = now(),
    blocked_at = now(), block_reason = @block_reason,
    block_claim_ids = @claim_ids::bigint[], block_edge_ids = @edge_ids::bigint[],
    cause_id = sqlc.narg(cause)::text, cause_change_id = @cause_change_id,
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
INSERT INTO domain_level_changes (domain, old_level, new_level, source, reason, set_by, action, scope, actor_kind)
SELECT unnest(@domains::text[]), unnest(@old_levels::text[]), unnest(@new_levels::text[]), 'policy',
       unnest(@reasons::text[]), 'domain policy', 'policy', 'fleet', 'policy';

-- name: ClaimsTouchingDomain :many
-- The claims whose status a change of the domain's level can change: those
-- extracted from its pages, and those its fragments confidently support or
-- refute; of one organization's tasks when @organization_id is given (a
-- change of its view), of every task otherwise.
SELECT c.id FROM pages p
JOIN fragments f ON f.page_id = p.id
JOIN claims c ON c.origin_fragment_id = f.id
WHERE p.domain = @domain
  AND (sqlc.narg(organization_id)::text IS NULL OR c.task_id IN (SELECT t.id FROM tasks t WHERE t.organization_id = sqlc.narg(organization_id)::text))
UNION
SELECT e.target_id FROM pages p
JOIN fragments f ON f.page_id = p.id
JOIN edges e ON e.source_type = 'fragment' AND e.source_id = f.id AND e.target_type = 'claim'
WHERE p.domain = @domain AND e.relation IN ('supports', 'refutes') AND e.nli_edge_confidence >= @min_confidence::float8
  AND (sqlc.narg(organization_id)::text IS NULL
       OR e.target_id IN (SELECT c.id FROM claims c JOIN tasks t ON t.id = c.task_id WHERE t.organization_id = sqlc.narg(organization_id)::text))
ORDER BY 1;
