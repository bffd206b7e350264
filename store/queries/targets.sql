-- name: EnsureTarget :one
WITH ins AS (
    INSERT INTO targets (task_id, kind, value) VALUES (@task_id, @kind, @value)
    ON CONFLICT (task_id, kind, value) DO NOTHING
    RETURNING id, status
)
SELECT id, status FROM ins
UNION ALL
SELECT id, status FROM targets WHERE task_id = @task_id AND kind = @kind AND value = @value
LIMIT 1;

-- name: EnsureTargets :exec
INSERT INTO targets (task_id, kind, value)
SELECT @task_id, unnest(@kinds::text[]), unnest(@vals::text[])
ON CONFLICT (task_id, kind, value) DO NOTHING;

-- name: FinishTarget :exec
UPDATE targets
SET status = @status, stage = @stage, page_id = sqlc.narg(page_id), error = sqlc.narg(error), updated_at = now()
WHERE id = @id;
