-- +goose Up
-- A task is completed when no job of it remains to run (status
-- 'completed', completed_at set by the settle sweep, store.SettleTasks) and
-- reopened when work arrives (status back to 'active', completed_at NULL).
ALTER TABLE tasks ADD COLUMN completed_at timestamptz;

-- +goose Down
ALTER TABLE tasks DROP COLUMN completed_at;
