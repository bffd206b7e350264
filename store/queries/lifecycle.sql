-- A task's lifecycle beside stopping (cleanup.sql): pause, resume and the
-- budget class, changed only while paused. The caller holds the task's row
-- lock (store.LockExistingTask) and has checked its status.

-- name: PauseTask :one
-- Pauses the task; paused_at stays the first pause's time while it is
-- paused. A completed task paused is no longer completed.
UPDATE tasks SET status = 'paused', paused_at = COALESCE(paused_at, now()), completed_at = NULL, updated_at = now()
WHERE id = @id AND status <> 'stopped'
RETURNING *;

-- name: ResumeTask :one
-- Resumes a paused task: active again; the settle sweep completes it when
-- no job of it is left to run.
UPDATE tasks SET status = 'active', paused_at = NULL, updated_at = now()
WHERE id = @id AND status = 'paused'
RETURNING *;

-- name: SetTaskBudget :one
-- Changes a paused task's budget class.
UPDATE tasks SET budget_class = @budget_class, updated_at = now()
WHERE id = @id AND status = 'paused'
RETURNING *;

-- name: TaskStatus :one
-- The task's status, read by the worker middleware before every job of it
-- starts (internal/workers/paused.go).
SELECT status FROM tasks WHERE id = @id;
