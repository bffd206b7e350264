-- The task row every writer shares: read, lock (store.LockActiveTask),
-- advance and log.

-- name: GetTask :one
SELECT * FROM tasks WHERE id = @id;

-- name: LockTask :one
-- Takes the task's row lock for the rest of the transaction. Every writer that
-- adds claims or pages to a task takes it, and so does verify_nli before it
-- completes (see internal/workers/verify_nli.go).
SELECT id, next_evidence_no, work_version, status FROM tasks WHERE id = @id FOR UPDATE;

-- name: ShareLockTask :one
-- Takes a share lock on the task's row for the rest of the transaction:
-- verify_nli shards take it to read work_version after any writer that
-- bumps it has committed, without queuing on each other.
SELECT id, next_evidence_no, work_version, status FROM tasks WHERE id = @id FOR SHARE;

-- name: AdvanceTask :exec
-- Records that claims or pages were added: allocates E-numbers up to
-- next_evidence_no and bumps work_version.
UPDATE tasks
SET next_evidence_no = @next_evidence_no,
    work_version     = work_version + 1,
    updated_at       = now()
WHERE id = @id;

-- name: InsertEvent :exec
INSERT INTO event_log (task_id, event_type, payload) VALUES (@task_id, @event_type, @payload);

-- name: OrgTask :one
-- The task, if it is the organisation's (internal/service: another
-- organisation's task is not found).
SELECT * FROM tasks WHERE id = @id AND organization_id = @organization_id;

-- name: ClaimOrganization :one
-- The organisation and task of a claim (internal/service's check).
SELECT t.organization_id, c.task_id FROM claims c JOIN tasks t ON t.id = c.task_id WHERE c.id = @id;

-- name: EdgeOrganization :one
-- The organisation and task of an NLI edge's claim.
SELECT t.organization_id, c.task_id FROM edges e JOIN claims c ON c.id = e.target_id JOIN tasks t ON t.id = c.task_id
WHERE e.id = @id AND e.target_type = 'claim';

-- name: TaskEvidenceNos :many
-- The E-numbers of the task's claims, in order.
SELECT evidence_no FROM claims WHERE task_id = @task_id ORDER BY evidence_no;
