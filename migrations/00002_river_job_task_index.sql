-- +goose Up
-- Lets `enqueue status` and the progress bar find a task's jobs quickly on a
-- river_job table with millions of rows (every evidencefleet kind carries task_id).
CREATE INDEX IF NOT EXISTS river_job_evf_task_idx ON river_job ((args ->> 'task_id'), kind, state)
    WHERE args ? 'task_id';

-- +goose Down
DROP INDEX IF EXISTS river_job_evf_task_idx;
