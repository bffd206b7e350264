-- +goose Up
-- What source verification read for a claim: how many independent sites
-- (registrable domains) confidently support and refute it, and its status
-- in words ("conflict between low-level sources", "supported by 2
-- independent sites"). The Beta posterior keeps its per-edge sums; these
-- say how many sites stand behind each side.
ALTER TABLE claims
    ADD COLUMN supporting_sites    integer NOT NULL DEFAULT 0,
    ADD COLUMN refuting_sites      integer NOT NULL DEFAULT 0,
    ADD COLUMN verification_reason text;

-- +goose Down
ALTER TABLE claims DROP COLUMN verification_reason, DROP COLUMN refuting_sites, DROP COLUMN supporting_sites;
