-- The task row every writer shares: read, lock (store.LockActiveTask),
-- advance and log.

-- name: GetTask :one
SELECT * FROM tasks WHERE id = @id;

-- name: LockTask :one
-- Takes the task's row lock for the rest of the transaction. Every writer that
-- adds claims or pages to a task takes it, and so does verify_nli before it
-- completes (see internal/workers/verify_nli.go).
SELECT id, next_evidence_no, work_version, status, accepted_links FROM tasks WHERE id = @id FOR UPDATE;

-- name: ShareLockTask :one
-- Takes a share lock on the task's row for the rest of the transaction:
-- verify_nli shards take it to read work_version after any writer that
-- bumps it has committed, without queuing on each other.
SELECT id, next_evidence_no, work_version, status, accepted_links FROM tasks WHERE id = @id FOR SHARE;

-- name: AdvanceTask :exec
-- Records that claims or pages were added: allocates E-numbers up to
-- next_evidence_no and bumps work_version.
UPDATE tasks
SET next_evidence_no = @next_evidence_no,
    work_version     = work_version + 1,
    -- new work reopens a completed task
    status           = CASE WHEN status = 'completed' THEN 'active' ELSE status END,
    completed_at     = NULL,
    updated_at       = now()
WHERE id = @id;

-- name: InsertEvent :exec
INSERT INTO event_log (task_id, event_type, payload) VALUES (@task_id, @event_type, @payload);

-- name: OrgTask :one
-- The task, if it is the organization's (internal/service: another
-- organization's task is not found).
SELECT * FROM tasks WHERE id = @id AND organization_id = @organization_id;

-- name: ClaimOrganization :one
-- The organization and task of a claim (internal/service's check).
SELECT t.organization_id, c.task_id FROM claims c JOIN tasks t ON t.id = c.task_id WHERE c.id = @id;

-- name: EdgeOrganization :one
-- The organization and task of an NLI edge's claim.
SELECT t.organization_id, c.task_id FROM edges e JOIN claims c ON c.id = e.target_id JOIN tasks t ON t.id = c.task_id
WHERE e.id = @id AND e.target_type = 'claim';

-- name: TaskEvidenceNos :many
-- The E-numbers of the task's claims, in order.
SELECT evidence_no FROM claims WHERE task_id = @task_id ORDER BY evidence_no;

-- name: ReopenTask :exec
-- Takes the task's row lock for a person's new work (targets, a job) and
-- reopens the task if it was completed; a stopped task stays stopped.
UPDATE tasks SET status = CASE WHEN status = 'completed' THEN 'active' ELSE status END, completed_at = NULL
WHERE id = @id AND status <> 'stopped';

-- name: LockSettleCandidates :many
-- The tasks the settle sweep may complete or reopen, locked; a task whose
-- row a writer holds is skipped this round (it is adding work).
SELECT id FROM tasks WHERE status IN ('active', 'completed') AND id > @after::bigint ORDER BY id LIMIT @max_rows FOR UPDATE SKIP LOCKED;

-- name: CompleteIdleTasks :many
-- Of the locked tasks, those with no job left to run are completed — a
-- self-directed task only once its retrieval planner is done with it.
UPDATE tasks t SET status = 'completed', completed_at = now(), updated_at = now()
WHERE t.id = ANY(@ids::bigint[]) AND t.status = 'active'
  AND NOT (t.retrieval = 'self_directed' AND t.retrieval_stage < 4)
  AND NOT EXISTS (
      SELECT 1 FROM river_job j
      WHERE j.args ? 'task_id' AND (j.args ->> 'task_id') = t.id::text
        AND j.state IN ('available', 'pending', 'running', 'retryable', 'scheduled'))
RETURNING t.id;

-- name: ReopenBusyTasks :many
-- Of the locked tasks, completed ones that have a job to run again (inserted
-- by SQL or a River client, or retried) are reopened.
UPDATE tasks t SET status = 'active', completed_at = NULL, updated_at = now()
WHERE t.id = ANY(@ids::bigint[]) AND t.status = 'completed'
  AND EXISTS (
      SELECT 1 FROM river_job j
      WHERE j.args ? 'task_id' AND (j.args ->> 'task_id') = t.id::text
        AND j.state IN ('available', 'pending', 'running', 'retryable', 'scheduled'))
RETURNING t.id;

-- name: OrgClaimIDs :many
-- Of these claims, those of the organization's tasks (a block's cause, shown
-- to one organization, names only its own claims).
SELECT c.id FROM claims c JOIN tasks t ON t.id = c.task_id
WHERE c.id = ANY(@ids::bigint[]) AND t.organization_id = @organization_id ORDER BY c.id DESC;

-- name: OrgEdgeIDs :many
-- Of these NLI edges, those into claims of the organization's tasks.
SELECT e.id FROM edges e JOIN claims c ON c.id = e.target_id JOIN tasks t ON t.id = c.task_id
WHERE e.id = ANY(@ids::bigint[]) AND e.target_type = 'claim' AND t.organization_id = @organization_id ORDER BY e.id DESC;
