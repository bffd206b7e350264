-- +goose Up
-- One fleet, many organizations (ARCHITECTURE.md §5.5, "Organizations and
-- the fleet's trust"). Domain levels of record stay fleet-wide (domains),
-- but what one organization's reviewers and claims do moves its own view
-- first: org_domain_levels holds, per organization and domain, the level
-- its tasks see and stamp when it differs from the fleet's (trust_level
-- NULL: the fleet's), a block or flag of its own with the audit row that
-- holds its cause, its own rejection counts (the block rule's rate is
-- computed per organization, never from the sum of everyone's claims), and
-- whether its claims corroborated the domain (a vote for the fleet's
-- promotion). The fleet-wide level moves by an operator, or when at least
-- EVF_TRUST_QUORUM_ORGS organizations' views agree.
CREATE TABLE org_domain_levels (
    organization_id      text NOT NULL CHECK (char_length(organization_id) BETWEEN 1 AND 200),
    domain               text NOT NULL REFERENCES domains (domain),
    trust_level          text,
    level_source         text,
    level_rule           text,
    level_set_by         text,
    level_set_at         timestamptz,
    original_trust_level text,
    blocked_at           timestamptz,
    block_reason         text,
    cause_change_id      bigint,
    cause_id             text,
    block_claim_ids      bigint[],
    block_edge_ids       bigint[],
    flagged_at           timestamptz,
    flag_reason          text,
    promoted_at          timestamptz,
    rejected_claims      integer NOT NULL DEFAULT 0,
    total_claims         integer NOT NULL DEFAULT 0,
    PRIMARY KEY (organization_id, domain)
);
-- The organizations' votes on one domain (the quorum's count).
CREATE INDEX org_domain_levels_domain ON org_domain_levels (domain);

-- The level an organization's tasks see: a fleet-wide BLOCKED holds for
-- everyone; otherwise the organization's own level when it has one, else
-- the fleet's. Inlined by the planner (a single expression).
-- +goose StatementBegin
CREATE FUNCTION effective_trust_level(fleet text, org text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN org IS NULL OR fleet = 'BLOCKED' THEN fleet ELSE org END
$$;
-- +goose StatementEnd

-- Every change names its actor: an operator (database credentials or an
-- operator token), an organization and its token, a rule with the
-- organizations whose evidence fed it, or the domain policy; and its scope
-- (the fleet's level of record, or one organization's view). evidence keeps
-- what the change rests on (the rejected claims with their text and the
-- feedback that rejected them, the page that held a dangerous pattern), so
-- the record stays whole after the tasks behind it are cleaned up.
ALTER TABLE domain_level_changes
    ADD COLUMN scope text NOT NULL DEFAULT 'fleet' CHECK (scope IN ('fleet', 'organization')),
    ADD COLUMN organization_id text,
    ADD COLUMN actor_kind text NOT NULL DEFAULT 'unrecorded'
        CHECK (actor_kind IN ('operator', 'organization', 'rule', 'policy', 'unrecorded')),
    ADD COLUMN actor_organization_id text,
    ADD COLUMN actor_token_id bigint,
    ADD COLUMN rule_organizations text[],
    ADD COLUMN evidence jsonb,
    ADD CONSTRAINT domain_level_changes_scope_org CHECK ((scope = 'organization') = (organization_id IS NOT NULL));
CREATE INDEX domain_level_changes_org ON domain_level_changes (organization_id, domain, id) WHERE organization_id IS NOT NULL;

-- The audit is append-only: no statement changes or deletes a row of it.
-- +goose StatementBegin
CREATE FUNCTION domain_level_changes_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'domain_level_changes is append-only (% refused)', TG_OP;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER domain_level_changes_append_only BEFORE UPDATE OR DELETE ON domain_level_changes
    FOR EACH ROW EXECUTE FUNCTION domain_level_changes_append_only();
CREATE TRIGGER domain_level_changes_no_truncate BEFORE TRUNCATE ON domain_level_changes
    FOR EACH STATEMENT EXECUTE FUNCTION domain_level_changes_append_only();

-- A fleet-wide block cites the audit row that holds its cause.
ALTER TABLE domains ADD COLUMN cause_change_id bigint;

-- Who gave feedback: the organization and its token (NULL: the CLI, with
-- database credentials).
ALTER TABLE claim_feedback ADD COLUMN organization_id text, ADD COLUMN token_id bigint;
ALTER TABLE edge_feedback ADD COLUMN organization_id text, ADD COLUMN token_id bigint;

-- +goose Down
ALTER TABLE edge_feedback DROP COLUMN token_id, DROP COLUMN organization_id;
ALTER TABLE claim_feedback DROP COLUMN token_id, DROP COLUMN organization_id;
ALTER TABLE domains DROP COLUMN cause_change_id;
DROP TRIGGER domain_level_changes_no_truncate ON domain_level_changes;
DROP TRIGGER domain_level_changes_append_only ON domain_level_changes;
DROP FUNCTION domain_level_changes_append_only();
DROP INDEX domain_level_changes_org;
ALTER TABLE domain_level_changes DROP CONSTRAINT domain_level_changes_scope_org,
    DROP COLUMN evidence, DROP COLUMN rule_organizations, DROP COLUMN actor_token_id,
    DROP COLUMN actor_organization_id, DROP COLUMN actor_kind, DROP COLUMN organization_id, DROP COLUMN scope;
DROP FUNCTION effective_trust_level(text, text);
DROP TABLE org_domain_levels;
