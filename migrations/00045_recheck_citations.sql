-- The spans a task cites in pages from the web, counted when its latest
-- recheck round began (StartRecheckRound), for the status's "N of M
-- citations checked": counting them reads every supports and refutes edge
-- of the task's claims (the task_citations view), and the status is read on
-- every poll and every tick of the task's event stream. On a synthetic task
-- of 100,000 claims with 20 edges each and 200,000 checks (EXPLAIN ANALYZE,
-- three runs) the status's recheck summary took 5.1-5.6 s with the count,
-- 0.26-0.28 s without; the round's start pays 3.4 s once. NULL: no round
-- yet.

-- +goose Up
ALTER TABLE tasks ADD COLUMN recheck_citations integer CHECK (recheck_citations >= 0);
UPDATE tasks t
SET recheck_citations = (SELECT count(*) FROM (
        SELECT DISTINCT tc.page_version_id, tc.start_char, tc.end_char
        FROM task_citations tc JOIN pages p ON p.id = tc.page_id
        WHERE tc.task_id = t.id AND NOT p.abstract_only) AS cited)
WHERE t.rechecked_at IS NOT NULL;

-- +goose Down
ALTER TABLE tasks DROP COLUMN recheck_citations;
