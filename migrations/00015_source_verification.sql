-- +goose Up
-- Source verification (ARCHITECTURE.md §5.5) in the database.
--
-- reviewer_status is a person's word on a claim, which source verification
-- never overrides: 'rejected' (claim-reject) or 'restored' (claim-restore:
-- a rejection by source verification no longer applies). Every rejection
-- before this migration was a person's.
ALTER TABLE claims ADD COLUMN reviewer_status text CHECK (reviewer_status IN ('rejected', 'restored'));
UPDATE claims SET reviewer_status = 'rejected' WHERE verification_status = 'rejected';
CREATE INDEX claims_origin_fragment ON claims (origin_fragment_id) WHERE origin_fragment_id IS NOT NULL;

-- The conflicts a claim stands in: one row per confident refuting edge from
-- another site, with the levels that named its kind. Recomputed with the
-- claim's posterior; they go with their edge and claim.
CREATE TABLE claim_conflicts (
    edge_id        bigint PRIMARY KEY REFERENCES edges (id) ON DELETE CASCADE,
    claim_id       bigint NOT NULL REFERENCES claims (id) ON DELETE CASCADE,
    kind           text   NOT NULL CHECK (kind IN ('scientific_controversy', 'refuted_by_higher', 'refuted_by_lower', 'low_conflict')),
    refuter_domain text   NOT NULL,
    refuter_level  text   NOT NULL,
    origin_domain  text   NOT NULL,
    origin_level   text   NOT NULL,
    confidence     double precision NOT NULL,
    decided_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX claim_conflicts_claim ON claim_conflicts (claim_id);

-- A block's cause (the rejected claims and the edges that rejected them),
-- the domain's claim counts behind its rejection_rate, and a flag for a
-- person: a vouched-for domain over the block line is flagged, never
-- blocked by a machine.
ALTER TABLE domains
    ADD COLUMN block_claim_ids bigint[],
    ADD COLUMN block_edge_ids  bigint[],
    ADD COLUMN rejected_claims integer NOT NULL DEFAULT 0,
    ADD COLUMN total_claims    integer NOT NULL DEFAULT 0,
    ADD COLUMN flagged_at      timestamptz,
    ADD COLUMN flag_reason     text;

-- A page whose text tries to instruct a model (a dangerous pattern) is
-- quarantined: its claims never reach the claim extractor.
ALTER TABLE pages ADD COLUMN quarantined_reason text, ADD COLUMN quarantined_at timestamptz;

-- What each audit row records: set (a level), block, unblock, promote,
-- flag, clear.
ALTER TABLE domain_level_changes ADD COLUMN action text NOT NULL DEFAULT 'set';

-- +goose Down
ALTER TABLE pages DROP COLUMN quarantined_at, DROP COLUMN quarantined_reason;
ALTER TABLE domain_level_changes DROP COLUMN action;
ALTER TABLE domains DROP COLUMN flag_reason, DROP COLUMN flagged_at, DROP COLUMN total_claims,
    DROP COLUMN rejected_claims, DROP COLUMN block_edge_ids, DROP COLUMN block_claim_ids;
DROP TABLE claim_conflicts;
DROP INDEX claims_origin_fragment;
ALTER TABLE claims DROP COLUMN reviewer_status;
