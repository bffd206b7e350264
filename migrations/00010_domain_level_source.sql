-- +goose Up
-- Who or what set a domain's trust level, by which rule, and when: the
-- domain policy on first sight ('policy', level_rule naming the rule), and
-- later an operator, a reviewer or source verification. Rows from before
-- this column were never set by anyone ('default').
ALTER TABLE domains
    ADD COLUMN level_source text NOT NULL DEFAULT 'default',
    ADD COLUMN level_rule   text,
    ADD COLUMN level_set_at timestamptz NOT NULL DEFAULT now();

-- +goose Down
ALTER TABLE domains DROP COLUMN level_set_at, DROP COLUMN level_rule, DROP COLUMN level_source;
