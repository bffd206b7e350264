-- How many accepted claim links a task has (claim_links with status
-- accepted), kept by every writer of accepted links in the transaction that
-- holds the task's row FOR UPDATE: a recomputation that share-locks the
-- task reads it with the lock and reads the links only when there are
-- some. A count too high (links deleted with their claims by a cleanup)
-- only costs that read.

-- +goose Up
ALTER TABLE tasks ADD COLUMN accepted_links integer NOT NULL DEFAULT 0;
UPDATE tasks t SET accepted_links = (SELECT count(*) FROM claim_links l WHERE l.task_id = t.id AND l.status = 'accepted');

-- +goose Down
ALTER TABLE tasks DROP COLUMN accepted_links;
