-- What a task's jobs spent, per stage (migrations/00022_task_costs.sql).

-- name: AddTaskCost :exec
-- Adds one job attempt's spending to its task and stage: the one write of
-- the cost middleware (internal/fleet/jobcost.go), in a statement of its
-- own after the attempt. A task that no longer exists gets nothing (the
-- SELECT finds no row), so the write never fails on the foreign key.
INSERT INTO task_costs AS c (task_id, stage, model_calls, tokens_in, tokens_out, searches, academic_calls, fetches, fetch_bytes)
SELECT t.id, @stage::text, @model_calls::bigint, @tokens_in::bigint, @tokens_out::bigint, @searches::bigint,
       @academic_calls::bigint, @fetches::bigint, @fetch_bytes::bigint
FROM tasks t WHERE t.id = @task_id::bigint
ON CONFLICT (task_id, stage) DO UPDATE SET
    model_calls    = c.model_calls + excluded.model_calls,
    tokens_in      = c.tokens_in + excluded.tokens_in,
    tokens_out     = c.tokens_out + excluded.tokens_out,
    searches       = c.searches + excluded.searches,
    academic_calls = c.academic_calls + excluded.academic_calls,
    fetches        = c.fetches + excluded.fetches,
    fetch_bytes    = c.fetch_bytes + excluded.fetch_bytes;

-- name: TaskCosts :many
-- A task's spending per stage, by stage.
SELECT stage, model_calls, tokens_in, tokens_out, searches, academic_calls, fetches, fetch_bytes
FROM task_costs WHERE task_id = @task_id ORDER BY stage;
