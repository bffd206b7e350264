-- +goose Up
-- A person's correction of an NLI edge keeps the model's judgement beside
-- it: model_relation and model_confidence hold what the model said (set at
-- the first correction), relation and nli_edge_confidence (1) what the
-- person says, which the posterior counts. edge_feedback audits each.
ALTER TABLE edges
    ADD COLUMN model_relation   text,
    ADD COLUMN model_confidence double precision,
    ADD COLUMN corrected_by     text,
    ADD COLUMN corrected_at     timestamptz;

CREATE TABLE edge_feedback (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    edge_id      bigint      NOT NULL REFERENCES edges (id) ON DELETE CASCADE,
    old_relation text        NOT NULL,
    new_relation text        NOT NULL,
    reason       text        NOT NULL,
    set_by       text        NOT NULL,
    at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX edge_feedback_edge ON edge_feedback (edge_id, id);

-- +goose Down
DROP TABLE edge_feedback;
ALTER TABLE edges DROP COLUMN corrected_at, DROP COLUMN corrected_by, DROP COLUMN model_confidence, DROP COLUMN model_relation;
