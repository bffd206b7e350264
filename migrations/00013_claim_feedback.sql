-- +goose Up
-- A person's rejection or restoration of a claim: who, when, why. The
-- claim's verification_status says where it stands; these rows say how it
-- got there. They go with their claim.
CREATE TABLE claim_feedback (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    claim_id bigint      NOT NULL REFERENCES claims (id) ON DELETE CASCADE,
    action   text        NOT NULL CHECK (action IN ('reject', 'restore')),
    reason   text        NOT NULL,
    set_by   text        NOT NULL,
    at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX claim_feedback_claim ON claim_feedback (claim_id, id);

-- +goose Down
DROP TABLE claim_feedback;
