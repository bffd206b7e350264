-- name: RunningShare :one
-- For a job of task @task_id starting now: its organization, the share an
-- operator set for it (NULL: the default), and the jobs of @kind in @queue
-- running fleet-wide, of its organization and of every organization (jobs
-- of a task only; the job itself is among them). The running rows come
-- from River's fetch index (state, queue, …): as many as the fleet's
-- workers of the queue, whatever the backlog or the history. A task_id
-- that is not a plain integer (a job inserted by hand) matches no task.
WITH running AS (
    SELECT t.organization_id, count(*)::bigint AS jobs
    FROM river_job j
    JOIN tasks t ON t.id = CASE WHEN j.args ->> 'task_id' ~ '^[0-9]{1,18}$' THEN (j.args ->> 'task_id')::bigint END
    WHERE j.state = 'running' AND j.queue = @queue AND j.kind = @kind
    GROUP BY t.organization_id
)
SELECT me.organization_id,
       s.share,
       COALESCE((SELECT r.jobs FROM running r WHERE r.organization_id = me.organization_id), 0)::bigint AS mine,
       COALESCE((SELECT sum(r.jobs) FROM running r), 0)::bigint AS total
FROM tasks me
LEFT JOIN organization_shares s ON s.organization_id = me.organization_id
WHERE me.id = @task_id;

-- name: OrganizationsWaiting :many
-- The organizations other than @organization_id with a job of @kind
-- waiting (available and due) for an active task, with the share an
-- operator set (NULL: the default) and their jobs of @kind in @queue
-- running fleet-wide. One probe of river_job_evf_task_idx per active task
-- of the other organizations (tasks_active_organization_idx).
WITH waiting AS (
    SELECT DISTINCT t.organization_id
    FROM tasks t
    WHERE t.status = 'active' AND t.organization_id <> @organization_id
      AND EXISTS (
          SELECT 1 FROM river_job j
          WHERE j.args ? 'task_id' AND j.args ->> 'task_id' = t.id::text
            AND j.kind = @kind AND j.state = 'available' AND j.scheduled_at <= now()
      )
)
SELECT w.organization_id,
       s.share,
       (SELECT count(*) FROM river_job j
        JOIN tasks t ON t.id = CASE WHEN j.args ->> 'task_id' ~ '^[0-9]{1,18}$' THEN (j.args ->> 'task_id')::bigint END
        WHERE j.state = 'running' AND j.queue = @queue AND j.kind = @kind
          AND t.organization_id = w.organization_id)::bigint AS running
FROM waiting w
LEFT JOIN organization_shares s ON s.organization_id = w.organization_id
ORDER BY w.organization_id;

-- name: OrganizationShare :one
-- The share an operator set for an organization (no row: the default).
SELECT organization_id, share, updated_at FROM organization_shares WHERE organization_id = @organization_id;

-- name: SetOrganizationShare :one
-- Sets an organization's share (enqueue org share).
INSERT INTO organization_shares (organization_id, share, updated_at)
VALUES (@organization_id, @share, now())
ON CONFLICT (organization_id) DO UPDATE SET share = excluded.share, updated_at = excluded.updated_at
RETURNING organization_id, share, updated_at;

-- name: ClearOrganizationShare :execrows
-- The organization's share is the default again.
DELETE FROM organization_shares WHERE organization_id = @organization_id;
