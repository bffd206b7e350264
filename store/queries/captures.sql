-- The captures of a task's evidence (page_captures), for its WARC export.

-- name: TaskEvidenceVersions :many
-- Every page version of a task's evidence, and whether it has a capture:
-- the versions its pages were seen in, its claims were taken from, and the
-- passages of NLI edges into its claims came from.
WITH v AS (
    SELECT tp.page_version_id AS id FROM task_pages tp WHERE tp.task_id = @task_id AND tp.page_version_id IS NOT NULL
    UNION
    SELECT c.page_version_id FROM claims c WHERE c.task_id = @task_id AND c.page_version_id IS NOT NULL
    UNION
    SELECT f.page_version_id FROM claims c
    JOIN edges e ON e.target_type = 'claim' AND e.target_id = c.id AND e.source_type = 'fragment'
    JOIN fragments f ON f.id = e.source_id
    WHERE c.task_id = @task_id
)
SELECT v.id::bigint AS page_version_id, (pc.page_version_id IS NOT NULL)::bool AS captured
FROM v LEFT JOIN page_captures pc ON pc.page_version_id = v.id
ORDER BY v.id;

-- name: PageCapturesOf :many
-- The captures of these page versions, in version order, with their page.
SELECT pc.page_version_id, pv.page_id, pc.url, pc.captured_at, pc.status, pc.headers, pc.body, pc.request_headers
FROM page_captures pc
JOIN page_versions pv ON pv.id = pc.page_version_id
WHERE pc.page_version_id = ANY(@ids::bigint[])
ORDER BY pc.page_version_id;
