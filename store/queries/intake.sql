-- Task intake (internal/intake): tasks, hypothesis claims, targets.

-- name: CreateTask :one
-- A task; with an idempotency key another create of the organization
-- already made, nothing (no row: TaskByIdempotencyKey has it).
INSERT INTO tasks (organization_id, hypothesis, budget_class, retrieval, idempotency_key)
VALUES (@organization_id, @hypothesis, @budget_class, COALESCE(NULLIF(@retrieval::text, ''), 'given'), sqlc.narg(idempotency_key)::text)
ON CONFLICT (organization_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
RETURNING *;

-- name: TaskByIdempotencyKey :one
SELECT * FROM tasks WHERE organization_id = @organization_id AND idempotency_key = @idempotency_key;

-- name: ExistingHypotheses :many
SELECT id, evidence_no, text_hash FROM claims
WHERE task_id = @task_id AND kind = 'hypothesis' AND text_hash = ANY(@text_hashes::text[]);

-- name: InsertHypotheses :many
INSERT INTO claims (task_id, evidence_no, text, text_hash, kind)
SELECT @task_id, unnest(@evidence_nos::int[]), unnest(@texts::text[]), unnest(@text_hashes::text[]), 'hypothesis'
ON CONFLICT DO NOTHING
RETURNING id, evidence_no;

-- name: EnsureTargets :execrows
-- Registers targets with how they came (@via: user, or query with the
-- query target as @source_target_id); a target already registered keeps
-- its first origin. It counts the targets new to the task.
INSERT INTO targets (task_id, kind, value, via, source_target_id)
SELECT @task_id, unnest(@kinds::text[]), unnest(@vals::text[]), @via::text, sqlc.narg(source_target_id)::bigint
ON CONFLICT (task_id, kind, value) DO NOTHING;
