-- +goose Up
-- A task may be paused (enqueue task pause, POST /v1/tasks/{id}/pause):
-- while it is, its jobs snooze before they start (internal/workers/paused.go,
-- no attempt used) and the settle sweep leaves it alone, so it is neither
-- completed nor reopened; paused_at is when it was paused, NULL otherwise.
-- Resuming sets it active again, and the sweep completes it when no job of
-- it is left to run.
ALTER TABLE tasks DROP CONSTRAINT tasks_status_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_status_check
    CHECK (status IN ('active', 'paused', 'stopped', 'completed'));
ALTER TABLE tasks ADD COLUMN paused_at timestamptz;

-- +goose Down
UPDATE tasks SET status = 'active' WHERE status = 'paused';
ALTER TABLE tasks DROP COLUMN paused_at;
ALTER TABLE tasks DROP CONSTRAINT tasks_status_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_status_check
    CHECK (status IN ('active', 'stopped', 'completed'));
