-- How the pages of a task entered it (ARCHITECTURE.md §3, task_pages and
-- targets), as the evidence export says it (retrieval_context).

-- name: TaskPageOrigins :many
-- Every page of the task with its retrieval context (url_target,
-- doi_target, search_query, citation) and where it came from: the target
-- whose job wrote it (its kind and normalised value), the query target
-- that found that target (search_query; NULL for rows backfilled from a
-- task of several queries), or the page of the task whose citation graph
-- kept it (citation), with which of the two cites the other. By page id.
-- TaskPageOriginsRow.Source picks the one source the context names.
SELECT tp.page_id, p.url, tp.page_version_id, tp.reason AS retrieval_context, tp.depth,
       tp.target_id, t.kind AS target_kind, t.value AS target_value,
       t.source_target_id AS query_target_id, q.value AS query,
       tp.source_page_id, sp.url AS source_page_url,
       (tp.source_page_id IS NOT NULL AND EXISTS (
           SELECT 1 FROM edges e WHERE e.relation = 'cites' AND e.source_type = 'page' AND e.target_type = 'page'
             AND e.source_id = tp.source_page_id AND e.target_id = tp.page_id))::boolean AS source_cites_page,
       (tp.source_page_id IS NOT NULL AND EXISTS (
           SELECT 1 FROM edges e WHERE e.relation = 'cites' AND e.source_type = 'page' AND e.target_type = 'page'
             AND e.source_id = tp.page_id AND e.target_id = tp.source_page_id))::boolean AS page_cites_source
FROM task_pages tp
JOIN pages p ON p.id = tp.page_id
LEFT JOIN targets t ON t.id = tp.target_id
LEFT JOIN targets q ON q.id = t.source_target_id
LEFT JOIN pages sp ON sp.id = tp.source_page_id
WHERE tp.task_id = @task_id
ORDER BY tp.page_id;
