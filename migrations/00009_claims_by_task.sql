-- +goose Up
-- A task's claims in id order: verify_nli's dispatch walks them one shard
-- (a range of claim ids) at a time, one index probe per shard, so that its
-- work is bounded per job whatever the task's size.
CREATE INDEX claims_task_id ON claims (task_id, id);

-- +goose Down
DROP INDEX claims_task_id;
