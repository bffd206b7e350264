-- The tasks and jobs a person lists and acts on (internal/service: every
-- read here is of one organization's task).

-- name: OrgTasks :many
-- The organization's tasks, newest first, from below the cursor (a task
-- id), with their claims, targets and pages counted (each an index-only
-- count on the task's own rows).
SELECT t.id, t.status, t.hypothesis, t.created_at, t.updated_at,
       (SELECT count(*) FROM claims c WHERE c.task_id = t.id)::int AS claims,
       (SELECT count(*) FROM targets g WHERE g.task_id = t.id)::int AS targets,
       (SELECT count(*) FROM task_pages p WHERE p.task_id = t.id)::int AS pages
FROM tasks t
WHERE t.organization_id = @organization_id AND t.id < @before_id
ORDER BY t.id DESC
LIMIT @max_rows;

-- name: TaskPageCount :one
SELECT count(*)::int AS pages FROM task_pages WHERE task_id = @task_id;

-- name: TaskJobs :many
-- The task's jobs (every job whose args carry its task_id), newest first,
-- from below the cursor (a job id), in one state or all; the last error is
-- clipped to 1,000 characters.
SELECT id, kind, state::text AS state, queue, priority, attempt, max_attempts,
       left(COALESCE(errors[array_length(errors, 1)] ->> 'error', ''), 1000)::text AS last_error,
       COALESCE(metadata -> 'output' ->> 'failure', '')::text AS failure,
       created_at, scheduled_at, finalized_at
FROM river_job
WHERE args ? 'task_id' AND args ->> 'task_id' = @task_id::text
  AND (sqlc.narg(state)::text IS NULL OR state::text = sqlc.narg(state)::text)
  AND id < @before_id
ORDER BY id DESC
LIMIT @max_rows;

-- name: JobTaskID :one
-- The task_id of a job's args as written ('' when it has none), for
-- internal/service's check that the job is of one of the caller's tasks.
SELECT COALESCE(args ->> 'task_id', '')::text AS task_id FROM river_job WHERE id = @id;

-- name: QueueSeen :one
-- How long ago, by the database's clock, a worker last reported serving the
-- queue, and whether it is paused: River's producers create or touch its
-- river_queue row when they start and every 10 minutes while they run. No
-- row: no worker ever served it (or River's queue cleaner removed it, a day
-- after the last one stopped).
SELECT GREATEST(extract(epoch FROM now() - updated_at), 0)::float8 AS age_seconds,
       (paused_at IS NOT NULL)::bool AS paused
FROM river_queue WHERE name = @name;
