-- +goose Up
-- What a task's jobs spent outside the fleet, per stage (the job kind):
-- model calls and the tokens the servers reported, web searches, academic
-- API calls, page fetches and their bytes (internal/cost). The worker
-- middleware adds each attempt's non-zero counts after the attempt returns
-- (store.AddTaskCost, internal/fleet/jobcost.go), so a failed attempt's
-- spending counts and a killed one's is lost. Cleanup keeps the rows (the
-- money was spent); deleting the task deletes them.
CREATE TABLE task_costs (
    task_id        bigint NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    stage          text   NOT NULL,
    model_calls    bigint NOT NULL DEFAULT 0,
    tokens_in      bigint NOT NULL DEFAULT 0,
    tokens_out     bigint NOT NULL DEFAULT 0,
    searches       bigint NOT NULL DEFAULT 0,
    academic_calls bigint NOT NULL DEFAULT 0,
    fetches        bigint NOT NULL DEFAULT 0,
    fetch_bytes    bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (task_id, stage)
);

-- +goose Down
DROP TABLE task_costs;
