-- Self-directed retrieval (ARCHITECTURE.md §5.8). A task's retrieval is
-- 'given' (only the targets its caller adds) or 'self_directed': the
-- planner searches for it in stages (0: the hypothesis, 1: the claims EVOI
-- selects, 2: escalation of insufficient claims, 3: the last fetches;
-- 4: done). Query targets
-- the planner adds name the claim they serve; their result URLs beyond a
-- claim's first fetches are registered with stage 'deferred' and no job,
-- and released one at a time while the claim's fetch budget allows.

-- +goose Up
ALTER TABLE tasks
    ADD COLUMN retrieval text NOT NULL DEFAULT 'given' CHECK (retrieval IN ('given', 'self_directed')),
    ADD COLUMN retrieval_stage smallint NOT NULL DEFAULT 0 CHECK (retrieval_stage BETWEEN 0 AND 4);
ALTER TABLE targets
    ADD COLUMN claim_id bigint REFERENCES claims (id) ON DELETE SET NULL,
    ADD COLUMN retrieval_stage smallint CHECK (retrieval_stage BETWEEN 0 AND 2);
-- via planner: a query target the planner added for the claim it names.
ALTER TABLE targets
    DROP CONSTRAINT targets_via_check,
    ADD CONSTRAINT targets_via_check CHECK (via IN ('user', 'query', 'planner'));
CREATE INDEX targets_claim_idx ON targets (claim_id) WHERE claim_id IS NOT NULL;
CREATE INDEX tasks_planning_idx ON tasks (id) WHERE retrieval = 'self_directed' AND retrieval_stage < 4;

-- +goose Down
DROP INDEX tasks_planning_idx;
DELETE FROM targets WHERE via = 'planner';
ALTER TABLE targets
    DROP CONSTRAINT targets_via_check,
    ADD CONSTRAINT targets_via_check CHECK (via IN ('user', 'query'));
DROP INDEX targets_claim_idx;
ALTER TABLE targets DROP COLUMN retrieval_stage, DROP COLUMN claim_id;
ALTER TABLE tasks DROP COLUMN retrieval_stage, DROP COLUMN retrieval;
