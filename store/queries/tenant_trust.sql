-- Organizations' views of domain trust (ARCHITECTURE.md §5.5,
-- "Organizations and the fleet's trust"; store/tenant_trust.go).

-- name: TaskOrganization :one
SELECT organization_id FROM tasks WHERE id = @id;

-- name: EnsureOrgDomainRows :exec
-- The organization's rows of these domains (known domains only), made
-- empty when missing: an empty row sees the fleet's level.
INSERT INTO org_domain_levels (organization_id, domain)
SELECT @organization_id::text, d.domain FROM domains d WHERE d.domain = ANY(@domains::text[])
ORDER BY d.domain
ON CONFLICT (organization_id, domain) DO NOTHING;

-- name: OrgDomainStandings :many
-- The block rule's view of these domains for one organization, its rows
-- locked in domain order: the fleet's level of record and the
-- organization's own, and how many of the organization's claims from the
-- domain are rejected (its tasks only: another organization's volume never
-- enters its rate), with the latest rejected claims' ids.
SELECT o.domain, d.trust_level AS fleet_level, d.level_source AS fleet_source, COALESCE(d.level_rule, '')::text AS fleet_rule,
       COALESCE(o.trust_level, '')::text AS org_level, COALESCE(o.level_source, '')::text AS org_source,
       COALESCE(o.level_rule, '')::text AS org_rule, (o.flagged_at IS NOT NULL)::bool AS flagged,
       s.rejected, s.total, s.rejected_ids
FROM org_domain_levels o
JOIN domains d ON d.domain = o.domain
CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE c.verification_status = 'rejected')::int AS rejected, count(c.id)::int AS total,
           COALESCE((array_agg(c.id ORDER BY c.id DESC) FILTER (WHERE c.verification_status = 'rejected'))[1:20], '{}')::bigint[] AS rejected_ids
    FROM pages p
    JOIN fragments f ON f.page_id = p.id
    JOIN claims c ON c.origin_fragment_id = f.id
    JOIN tasks t ON t.id = c.task_id
    WHERE p.domain = o.domain AND t.organization_id = o.organization_id
) AS s
WHERE o.organization_id = @organization_id AND o.domain = ANY(@domains::text[])
ORDER BY o.domain
FOR UPDATE OF o;

-- name: LockOrgDomain :one
-- One organization's row of a domain with the fleet's, locked (the
-- organization's row; the caller made it).
SELECT d.trust_level AS fleet_level, d.level_source AS fleet_source, COALESCE(d.level_rule, '')::text AS fleet_rule,
       COALESCE(o.trust_level, '')::text AS org_level, COALESCE(o.level_source, '')::text AS org_source,
       COALESCE(o.level_rule, '')::text AS org_rule, COALESCE(o.original_trust_level, '')::text AS org_original,
       (o.flagged_at IS NOT NULL)::bool AS flagged
FROM org_domain_levels o JOIN domains d ON d.domain = o.domain
WHERE o.organization_id = @organization_id AND o.domain = @domain
FOR UPDATE OF o;

-- name: SetOrgDomainStanding :exec
UPDATE org_domain_levels SET rejected_claims = @rejected, total_claims = @total
WHERE organization_id = @organization_id AND domain = @domain;

-- name: SetOrgDomainLevel :exec
-- The organization's own level of a domain (NULL: the fleet's again), set
-- by its reviewer or by a rule on its evidence. A block keeps the level it
-- replaced and cites the audit row that holds its cause; any other level
-- clears a block; a person's level clears a flag.
UPDATE org_domain_levels SET
    trust_level = sqlc.narg(trust_level)::text,
    level_source = sqlc.narg(level_source)::text,
    level_rule = sqlc.narg(level_rule)::text,
    level_set_by = sqlc.narg(set_by)::text,
    level_set_at = now(),
    blocked_at = CASE WHEN sqlc.narg(trust_level)::text = 'BLOCKED' THEN COALESCE(blocked_at, now()) END,
    block_reason = CASE WHEN sqlc.narg(trust_level)::text = 'BLOCKED' THEN sqlc.narg(block_reason)::text END,
    original_trust_level = CASE WHEN sqlc.narg(trust_level)::text = 'BLOCKED' THEN sqlc.narg(original_trust_level)::text END,
    cause_change_id = CASE WHEN sqlc.narg(trust_level)::text = 'BLOCKED' THEN sqlc.narg(cause_change_id)::bigint END,
    cause_id = CASE WHEN sqlc.narg(trust_level)::text = 'BLOCKED' THEN sqlc.narg(cause)::text END,
    block_claim_ids = CASE WHEN sqlc.narg(trust_level)::text = 'BLOCKED' THEN @claim_ids::bigint[] END,
    block_edge_ids = CASE WHEN sqlc.narg(trust_level)::text = 'BLOCKED' THEN @edge_ids::bigint[] END,
    flagged_at = CASE WHEN sqlc.narg(level_source)::text = 'reviewer' THEN NULL ELSE flagged_at END,
    flag_reason = CASE WHEN sqlc.narg(level_source)::text = 'reviewer' THEN NULL ELSE flag_reason END
WHERE organization_id = @organization_id AND domain = @domain;

-- name: FlagOrgDomain :exec
UPDATE org_domain_levels SET flagged_at = now(), flag_reason = @reason
WHERE organization_id = @organization_id AND domain = @domain;

-- name: PromoteOrgDomains :many
-- Source verification's promotion in one organization's view: a domain
-- its view sees at UNVERIFIED, that nobody vouched for, becomes LOW there
-- when one of these claims (the organization's) is verified; the row
-- remembers the vote (promoted_at). Rows locked in domain order; returns
-- the promoted domains with the claim.
WITH corroborated AS (
    SELECT DISTINCT ON (p.domain) p.domain, c.id AS claim_id, c.independent_sources
    FROM claims c
    JOIN tasks t ON t.id = c.task_id
    JOIN fragments f ON f.id = c.origin_fragment_id
    JOIN pages p ON p.id = f.page_id
    WHERE c.id = ANY(@claim_ids::bigint[]) AND c.verification_status = 'verified' AND t.organization_id = @organization_id
    ORDER BY p.domain, c.id
), locked AS (
    SELECT o.domain FROM org_domain_levels o
    JOIN corroborated k ON k.domain = o.domain
    JOIN domains d ON d.domain = o.domain
    WHERE o.organization_id = @organization_id AND o.promoted_at IS NULL
      AND d.trust_level = 'UNVERIFIED' AND o.trust_level IS NULL
      AND (d.level_source = 'default' OR (d.level_source = 'policy' AND d.level_rule = 'default'))
    ORDER BY o.domain FOR UPDATE OF o
)
UPDATE org_domain_levels o SET
    trust_level = 'LOW', level_source = 'verification',
    level_rule = 'claim ' || k.claim_id || ' verified by ' || k.independent_sources || ' independent sites',
    level_set_by = 'source verification', level_set_at = now(), promoted_at = now()
FROM locked l JOIN corroborated k ON k.domain = l.domain
WHERE o.organization_id = @organization_id AND o.domain = l.domain
RETURNING o.domain, k.claim_id;

-- name: DomainVotes :one
-- The organizations whose views block the domain (with each block's reason
-- and audit row), those whose views block or flag it, and those whose
-- claims corroborated it: the quorum's count for the fleet's level; with
-- the claims and edges the views' blocks cite.
SELECT COALESCE(array_agg(organization_id ORDER BY organization_id) FILTER (WHERE trust_level = 'BLOCKED'), '{}')::text[] AS blocking,
       COALESCE(array_agg(COALESCE(block_reason, '') ORDER BY organization_id) FILTER (WHERE trust_level = 'BLOCKED'), '{}')::text[] AS block_reasons,
       COALESCE(array_agg(COALESCE(cause_change_id, 0) ORDER BY organization_id) FILTER (WHERE trust_level = 'BLOCKED'), '{}')::bigint[] AS block_changes,
       COALESCE(array_agg(organization_id ORDER BY organization_id) FILTER (WHERE trust_level = 'BLOCKED' OR flagged_at IS NOT NULL), '{}')::text[] AS flagging,
       COALESCE(array_agg(organization_id ORDER BY organization_id) FILTER (WHERE promoted_at IS NOT NULL), '{}')::text[] AS promoting,
       ARRAY(SELECT DISTINCT c FROM org_domain_levels v, unnest(v.block_claim_ids) AS c
             WHERE v.domain = @domain AND v.trust_level = 'BLOCKED' ORDER BY c DESC LIMIT 20)::bigint[] AS claim_ids,
       ARRAY(SELECT DISTINCT e FROM org_domain_levels v, unnest(v.block_edge_ids) AS e
             WHERE v.domain = @domain AND v.trust_level = 'BLOCKED' ORDER BY e DESC LIMIT 20)::bigint[] AS edge_ids
FROM org_domain_levels
WHERE domain = @domain;

-- name: PromoteDomain :exec
-- The fleet's promotion by the quorum: UNVERIFIED that nobody vouched for
-- becomes LOW.
UPDATE domains SET
    trust_level = 'LOW', category = 'low', level_source = 'verification', level_rule = @reason,
    level_set_by = 'source verification', level_set_at = now(), updated_at = now()
WHERE domain = @domain AND trust_level = 'UNVERIFIED'
  AND (level_source = 'default' OR (level_source = 'policy' AND level_rule = 'default'));

-- name: RejectionEvidence :one
-- What a block for rejected claims rests on, kept in its audit row: each
-- claim with its task, organization, text (at most 500 characters), why it
-- stands rejected and the feedback that rejected it, and the edges that
-- refuted it. The claims may be cleaned up later; this copy stays.
SELECT COALESCE(jsonb_agg(jsonb_build_object(
    'claim_id', c.id, 'task_id', c.task_id, 'organization_id', t.organization_id, 'evidence_no', c.evidence_no,
    'text', left(c.text, 500), 'verification_reason', COALESCE(c.verification_reason, ''),
    'reviewer_status', COALESCE(c.reviewer_status, ''),
    'feedback', COALESCE((SELECT jsonb_agg(jsonb_build_object('action', cf.action, 'reason', cf.reason, 'set_by', cf.set_by,
                          'organization_id', cf.organization_id, 'token_id', cf.token_id, 'at', cf.at) ORDER BY cf.id)
                          FROM claim_feedback cf WHERE cf.claim_id = c.id), '[]'::jsonb),
    'refuting_edges', COALESCE((SELECT jsonb_agg(jsonb_build_object('edge_id', cc.edge_id, 'domain', cc.refuter_domain,
                          'level', cc.refuter_level, 'confidence', cc.confidence) ORDER BY cc.edge_id)
                          FROM claim_conflicts cc WHERE cc.claim_id = c.id AND cc.kind = 'refuted_by_higher'), '[]'::jsonb)
) ORDER BY c.id), '[]'::jsonb)::jsonb AS claims
FROM claims c JOIN tasks t ON t.id = c.task_id
WHERE c.id = ANY(@claim_ids::bigint[]);

-- name: DomainViewOf :one
-- A domain as one organization sees it: the fleet's level of record (''
-- when no page of it was stored yet), its view's own level, what its tasks
-- see, the block or flag that holds for it, and its claim counts.
SELECT COALESCE(d.trust_level, '')::text AS fleet_level, COALESCE(o.trust_level, '')::text AS own_level,
       COALESCE(effective_trust_level(d.trust_level, o.trust_level), 'UNVERIFIED')::text AS level,
       (CASE WHEN d.trust_level = 'BLOCKED' THEN 'fleet' WHEN o.trust_level = 'BLOCKED' THEN 'organization' ELSE '' END)::text AS blocked_in,
       COALESCE(CASE WHEN d.trust_level = 'BLOCKED' THEN d.block_reason ELSE o.block_reason END, '')::text AS block_reason,
       COALESCE(o.flag_reason, d.flag_reason, '')::text AS flag_reason,
       COALESCE(o.rejected_claims, 0)::int AS rejected_claims, COALESCE(o.total_claims, 0)::int AS total_claims
FROM (SELECT @domain::text AS domain) AS x
LEFT JOIN domains d ON d.domain = x.domain
LEFT JOIN org_domain_levels o ON o.domain = x.domain AND o.organization_id = @organization_id;

-- name: LockDomains :exec
-- The domains' rows, locked in domain order: every transaction that
-- changes a domain's level or an organization's view of it locks the
-- domain's row first, then organizations' rows (one lock order).
SELECT domain FROM domains WHERE domain = ANY(@domains::text[]) ORDER BY domain FOR UPDATE;

-- name: LiftRuleViewBlocks :many
-- An operator's unblock of the fleet's level also lifts the blocks the
-- rules made in organizations' views (their votes toward it): those views
-- follow the fleet's level again. A block an organization's own reviewer
-- made stays. Returns the organizations and the levels their views had.
UPDATE org_domain_levels SET
    trust_level = NULL, level_source = NULL, level_rule = NULL, level_set_by = NULL, level_set_at = now(),
    blocked_at = NULL, block_reason = NULL, original_trust_level = NULL, cause_change_id = NULL, cause_id = NULL,
    block_claim_ids = NULL, block_edge_ids = NULL
WHERE domain = @domain AND trust_level = 'BLOCKED' AND level_source = 'verification'
RETURNING organization_id;

-- name: RecordViewUnblocks :exec
-- The audit rows of LiftRuleViewBlocks: one per view, an operator's.
INSERT INTO domain_level_changes (domain, old_level, new_level, source, reason, set_by, action,
                                  scope, organization_id, actor_kind, actor_token_id)
SELECT @domain::text, 'BLOCKED', @new_level::text, 'reviewer', @reason::text, @set_by::text, 'unblock',
       'organization', unnest(@organizations::text[]), 'operator', sqlc.narg(actor_token_id)::bigint;
