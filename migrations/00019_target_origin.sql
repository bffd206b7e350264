-- +goose Up
-- How every page entered a task (ARCHITECTURE.md §3, §4.2, §4.6), so that
-- the evidence export can say it (retrieval_context).
--
-- targets.via is how a target was registered, one closed set:
--   user   a person or another service added it (intake.AddTargets, the
--          enqueue CLI, a target_queue job inserted by River or SQL);
--   query  a result of one of the task's query targets (the web search's
--          URLs, the academic search's DOIs), source_target_id naming it.
-- The first registration of a (task, kind, value) decides, as it decides
-- the target's one extraction.
ALTER TABLE targets
    ADD COLUMN via              text   NOT NULL DEFAULT 'user',
    ADD COLUMN source_target_id bigint REFERENCES targets (id);

-- Backfill: a url or doi target is a query's result when its page entered
-- the task deeper than 0 (only a query's results are registered deeper)
-- or its job, if River still keeps it, says so, and the task has a query
-- target; that query is its source when the task has only one (with more,
-- which one is not recorded: NULL). Everything else stays 'user'.
UPDATE targets t
SET via = 'query',
    source_target_id = (SELECT min(q.id) FROM targets q
                        WHERE q.task_id = t.task_id AND q.kind = 'query'
                        HAVING count(*) = 1)
WHERE t.kind IN ('url', 'doi')
  AND EXISTS (SELECT 1 FROM targets q WHERE q.task_id = t.task_id AND q.kind = 'query')
  AND (EXISTS (SELECT 1 FROM task_pages tp
               WHERE tp.task_id = t.task_id AND tp.page_id = t.page_id
                 AND tp.reason = 'target' AND tp.depth > 0)
       OR EXISTS (SELECT 1 FROM river_job j
                  WHERE j.kind = 'target_queue' AND j.args ->> 'task_id' = t.task_id::text
                    AND j.args -> 'target' ->> 'kind' = t.kind
                    AND j.args -> 'target' ->> 'value' = t.value
                    AND jsonb_typeof(j.args -> 'depth') = 'number'
                    AND (j.args ->> 'depth')::numeric > 0));

ALTER TABLE targets
    ADD CONSTRAINT targets_via_check CHECK (via IN ('user', 'query')),
    ADD CONSTRAINT targets_source_check CHECK (via = 'query' OR source_target_id IS NULL);
-- Deleting a task's targets (cleanup) checks these references.
CREATE INDEX targets_source_target_idx ON targets (source_target_id) WHERE source_target_id IS NOT NULL;

-- task_pages.reason is the page's retrieval context in this task, one
-- closed set:
--   url_target    a url target a person or service added (target_id);
--   doi_target    a doi target a person or service added (target_id): the
--                 page the DOI is known as, or the abstract page the
--                 academic APIs resolved it to;
--   search_query  a url or doi target a query target found (target_id; the
--                 query is the target's source_target_id);
--   citation      a paper the citation graph of another page of the task
--                 kept (source_page_id: that page; a cites edge says which
--                 cites which).
-- A page reached several ways keeps the most direct, in that order
-- (store AddTaskPage), so the context does not depend on which job wrote
-- first. target_id is the target whose job wrote the page (none for a
-- citation).
ALTER TABLE task_pages
    ADD COLUMN target_id bigint REFERENCES targets (id),
    ALTER COLUMN reason DROP DEFAULT;
CREATE INDEX task_pages_target_idx ON task_pages (target_id) WHERE target_id IS NOT NULL;

-- Backfill: every task page a target was extracted to (targets.page_id)
-- takes that target, the most direct one when several were, and its
-- context; a citation page a target also reached becomes that target's
-- (depth 0 for a user's). A page with no target recorded stays a citation
-- if it was one, else counts as a url target (only hand-written rows).
UPDATE task_pages tp
SET target_id = (SELECT t.id FROM targets t
                 WHERE t.task_id = tp.task_id AND t.page_id = tp.page_id AND t.kind <> 'query'
                 ORDER BY t.via = 'query', t.kind = 'doi', t.id
                 LIMIT 1);
UPDATE task_pages tp
SET reason = CASE WHEN t.via = 'query' THEN 'search_query' WHEN t.kind = 'doi' THEN 'doi_target' ELSE 'url_target' END,
    depth = CASE WHEN tp.reason = 'citation' AND t.via = 'user' THEN 0 ELSE tp.depth END,
    source_page_id = NULL
FROM targets t
WHERE t.id = tp.target_id;
UPDATE task_pages SET reason = 'url_target' WHERE reason NOT IN ('url_target', 'doi_target', 'search_query', 'citation');

ALTER TABLE task_pages
    ADD CONSTRAINT task_pages_reason_check CHECK (reason IN ('url_target', 'doi_target', 'search_query', 'citation')),
    ADD CONSTRAINT task_pages_citation_source_check CHECK (reason <> 'citation' OR source_page_id IS NOT NULL);

-- +goose Down
ALTER TABLE task_pages
    DROP CONSTRAINT task_pages_citation_source_check,
    DROP CONSTRAINT task_pages_reason_check;
UPDATE task_pages SET reason = 'target' WHERE reason <> 'citation';
ALTER TABLE task_pages ALTER COLUMN reason SET DEFAULT 'target';
DROP INDEX task_pages_target_idx;
ALTER TABLE task_pages DROP COLUMN target_id;
DROP INDEX targets_source_target_idx;
ALTER TABLE targets
    DROP CONSTRAINT targets_source_check,
    DROP CONSTRAINT targets_via_check,
    DROP COLUMN source_target_id,
    DROP COLUMN via;
