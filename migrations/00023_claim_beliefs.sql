-- +goose Up
-- The log-odds belief beside the Beta posterior (ARCHITECTURE.md §5.8,
-- internal/belief): the claim's own (belief_log_odds, belief) and, after
-- its claim links, the propagated one. Recomputed with the posterior in the
-- transaction that changed the edges (store.RecomputePosteriors); rows
-- written before this migration read as no evidence until then.
ALTER TABLE claims
    ADD COLUMN belief_log_odds     double precision NOT NULL DEFAULT 0,
    ADD COLUMN belief              double precision NOT NULL DEFAULT 0.5,
    ADD COLUMN propagated_log_odds double precision NOT NULL DEFAULT 0,
    ADD COLUMN propagated_belief   double precision NOT NULL DEFAULT 0.5;

-- The pair's retrieval score when verify_nli judged it: the candidate's
-- cosine similarity, clamped to [0, 1]. NULL for edges judged before this
-- migration and for a person's correction: relevance 1.
ALTER TABLE edges
    ADD COLUMN retrieval_score double precision CHECK (retrieval_score IS NULL OR (retrieval_score >= 0 AND retrieval_score <= 1));

-- Claim dependencies: from_claim_id depends on (or contradicts) to_claim_id,
-- so the parent to_claim_id's propagated belief flows into from_claim_id,
-- times weight (sign −1 for contradicts). Both claims of the task; no
-- cycle (refused at insert under the task's row lock, store.LinkClaims).
-- 'proposed' links (a model's) do not propagate until a person accepts them.
CREATE TABLE claim_links (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id       bigint NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    from_claim_id bigint NOT NULL REFERENCES claims (id) ON DELETE CASCADE,
    to_claim_id   bigint NOT NULL REFERENCES claims (id) ON DELETE CASCADE,
    relation      text   NOT NULL CHECK (relation IN ('depends_on', 'contradicts')),
    weight        double precision NOT NULL DEFAULT 1 CHECK (weight >= 0 AND weight <= 1),
    status        text   NOT NULL DEFAULT 'accepted' CHECK (status IN ('accepted', 'proposed')),
    created_by    text   NOT NULL,
    reason        text   NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (from_claim_id, to_claim_id),
    CHECK (from_claim_id <> to_claim_id)
);
CREATE INDEX claim_links_task ON claim_links (task_id);
CREATE INDEX claim_links_to ON claim_links (to_claim_id);

-- +goose Down
DROP TABLE claim_links;
ALTER TABLE edges DROP COLUMN retrieval_score;
ALTER TABLE claims DROP COLUMN belief_log_odds, DROP COLUMN belief,
    DROP COLUMN propagated_log_odds, DROP COLUMN propagated_belief;
