-- The captures of a task's evidence (page_captures), for its WARC export.

-- name: TaskEvidenceVersions :many
-- Every page version of a task's evidence, and whether it has a capture:
-- the versions its pages were seen in, its claims were taken from, the
-- passages of NLI edges into its claims came from, and those its rechecks
-- saw.
WITH v AS (
    SELECT tp.page_version_id AS id FROM task_pages tp WHERE tp.task_id = @task_id AND tp.page_version_id IS NOT NULL
    UNION
    SELECT c.page_version_id FROM claims c WHERE c.task_id = @task_id AND c.page_version_id IS NOT NULL
    UNION
    SELECT f.page_version_id FROM claims c
    JOIN edges e ON e.target_type = 'claim' AND e.target_id = c.id AND e.source_type = 'fragment'
    JOIN fragments f ON f.id = e.source_id
    WHERE c.task_id = @task_id
    UNION
    SELECT sc.page_version_id FROM source_checks sc WHERE sc.task_id = @task_id AND sc.page_version_id IS NOT NULL
)
SELECT v.id::bigint AS page_version_id, (pc.page_version_id IS NOT NULL)::bool AS captured
FROM v LEFT JOIN page_captures pc ON pc.page_version_id = v.id
ORDER BY v.id;

-- name: PageCapturesOf :many
-- The captures of these page versions, in version order, with their page.
SELECT pc.page_version_id, pv.page_id, pc.url, pc.origin, pc.captured_at, pc.status, pc.headers, pc.body, pc.request_headers
FROM page_captures pc
JOIN page_versions pv ON pv.id = pc.page_version_id
WHERE pc.page_version_id = ANY(@ids::bigint[])
ORDER BY pc.page_version_id;

-- name: InsertRobotsCaptures :exec
-- robots.txt responses read while fetching a page; one kept per URL and time.
INSERT INTO robots_captures (origin, url, captured_at, status, headers, body, request_headers)
SELECT v.origin, v.url, v.captured_at, v.status, v.headers, COALESCE(v.body, ''::bytea), NULLIF(v.request_headers, '')
FROM (SELECT unnest(@origins::text[]) AS origin, unnest(@urls::text[]) AS url, unnest(@captured_ats::timestamptz[]) AS captured_at,
             unnest(@statuses::integer[]) AS status, unnest(@headers::text[]) AS headers, unnest(@bodies::bytea[]) AS body,
             unnest(@request_headers::text[]) AS request_headers) AS v
ON CONFLICT (url, captured_at) DO NOTHING;

-- name: RobotsCapturesBefore :many
-- For each (origin, time) asked, the latest robots.txt of the origin read
-- at or before that time; each capture once, in id order.
SELECT DISTINCT rc.id, rc.url, rc.captured_at, rc.status, rc.headers, rc.body, rc.request_headers
FROM (SELECT unnest(@origins::text[]) AS origin, unnest(@ats::timestamptz[]) AS at) AS a
CROSS JOIN LATERAL (
    SELECT r.* FROM robots_captures r WHERE r.origin = a.origin AND r.captured_at <= a.at
    ORDER BY r.captured_at DESC LIMIT 1) rc
ORDER BY rc.id;

-- name: DeleteUnneededRobotsCaptures :execrows
-- robots.txt captures no page capture needs: none of the origin's page
-- captures falls at or after it and before the origin's next robots.txt
-- capture (RobotsCapturesBefore pairs each page with the latest at or
-- before it). Only those read before @kept_since: a page fetched under a
-- robots.txt the fetcher still holds may not be written yet. At most @batch.
DELETE FROM robots_captures WHERE id IN (
    SELECT r.id FROM robots_captures r
    WHERE r.captured_at < @kept_since
      AND NOT EXISTS (
          SELECT 1 FROM page_captures pc
          WHERE pc.origin = r.origin AND pc.captured_at >= r.captured_at
            AND pc.captured_at < COALESCE((SELECT min(n.captured_at) FROM robots_captures n
                                           WHERE n.origin = r.origin AND n.captured_at > r.captured_at), 'infinity'))
    ORDER BY r.id
    LIMIT @batch);
