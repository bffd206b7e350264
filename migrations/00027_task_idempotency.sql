-- A caller's idempotency key for creating a task (the API's
-- Idempotency-Key header, enqueue task create --idempotency-key): a create
-- retried with the same key in the same organization returns the task the
-- first made instead of making another.

-- +goose Up
ALTER TABLE tasks ADD COLUMN idempotency_key text CHECK (length(idempotency_key) BETWEEN 1 AND 200);
CREATE UNIQUE INDEX tasks_idempotency_key_idx ON tasks (organization_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- +goose Down
DROP INDEX tasks_idempotency_key_idx;
ALTER TABLE tasks DROP COLUMN idempotency_key;
