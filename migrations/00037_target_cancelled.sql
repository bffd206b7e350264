-- A target whose target_queue job a person cancelled (`enqueue job cancel`,
-- POST /v1/jobs/{job_id}/cancel) ends `cancelled`, final and named, instead
-- of staying `seen` with no job left to take it.

-- +goose Up
ALTER TABLE targets DROP CONSTRAINT targets_status_check;
ALTER TABLE targets ADD CONSTRAINT targets_status_check
    CHECK (status IN ('seen', 'extracted', 'failed', 'cancelled'));

-- +goose Down
UPDATE targets SET status = 'failed' WHERE status = 'cancelled';
ALTER TABLE targets DROP CONSTRAINT targets_status_check;
ALTER TABLE targets ADD CONSTRAINT targets_status_check
    CHECK (status IN ('seen', 'extracted', 'failed'));
