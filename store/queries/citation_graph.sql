-- citation_graph: the source page (its pages are written by StorePage).

-- name: CitationSourcePage :one
-- A page of the task, with its academic ids, title, the text of the
-- version the task saw and its depth in the task, for its citation graph.
-- No row: the page is not the task's (or does not exist).
SELECT p.id, COALESCE(p.doi, '')::text AS doi, COALESCE(p.s2_paper_id, '')::text AS s2_paper_id,
       COALESCE(p.openalex_id, '')::text AS openalex_id, COALESCE(p.title, '')::text AS title,
       COALESCE(v.content, '')::text AS content, tp.depth
FROM task_pages tp
JOIN pages p ON p.id = tp.page_id
LEFT JOIN page_versions v ON v.id = tp.page_version_id
WHERE tp.task_id = @task_id AND tp.page_id = @page_id;
