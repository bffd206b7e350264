-- +goose Up
-- Every change of a domain's level of record made by a person (or, later,
-- by source verification): who, when, why, from which level to which.
CREATE TABLE domain_level_changes (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    domain     text        NOT NULL REFERENCES domains (domain),
    old_level  text,
    new_level  text        NOT NULL,
    source     text        NOT NULL,
    reason     text        NOT NULL,
    set_by     text        NOT NULL,
    at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX domain_level_changes_domain ON domain_level_changes (domain, id);

ALTER TABLE domains ADD COLUMN level_set_by text;

-- +goose Down
ALTER TABLE domains DROP COLUMN level_set_by;
DROP TABLE domain_level_changes;
