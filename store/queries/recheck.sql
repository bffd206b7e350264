-- Rechecks of cited sources (ARCHITECTURE.md §5.10).

-- name: StartDueRechecks :many
-- The sweep: of the tasks not stopped, younger than @max_age, with a
-- citation, whose interval (their own, else @default_every; 0 never) has
-- passed since their latest round began (or since they were created), at
-- most @max_rows, oldest due first: each round's start is recorded, and
-- their ids returned for the round jobs inserted in the same transaction.
-- A task whose row a writer holds is left to the next sweep.
UPDATE tasks t SET rechecked_at = now()
WHERE t.id IN (
    SELECT d.id FROM tasks d
    WHERE d.status IN ('active', 'paused', 'completed')
      AND d.created_at > now() - @max_age::interval
      AND COALESCE(d.recheck_every, @default_every::interval) > interval '0'
      AND COALESCE(d.rechecked_at, d.created_at) <= now() - COALESCE(d.recheck_every, @default_every::interval)
      AND EXISTS (SELECT 1 FROM claims c WHERE c.task_id = d.id AND c.kind = 'extracted')
    ORDER BY COALESCE(d.rechecked_at, d.created_at) + COALESCE(d.recheck_every, @default_every::interval), d.id
    LIMIT @max_rows
    FOR UPDATE SKIP LOCKED)
RETURNING t.id;

-- name: StartRecheckRound :one
-- A round of the task begins: its start recorded, with the spans it cites
-- in pages from the web (the status's "of M citations"). No row: the task
-- is missing or stopped.
UPDATE tasks SET rechecked_at = now(),
                 recheck_citations = (SELECT count(*) FROM (
                     SELECT DISTINCT tc.page_version_id, tc.start_char, tc.end_char
                     FROM task_citations tc JOIN pages p ON p.id = tc.page_id
                     WHERE tc.task_id = @task_id AND NOT p.abstract_only) AS cited)
WHERE id = @task_id AND status <> 'stopped' RETURNING id;

-- name: TaskCitedPages :many
-- The pages the task cites that came from the web (an academic API's
-- abstract has no address to fetch again), after page @after, at most
-- @max_rows, in id order.
SELECT DISTINCT tc.page_id FROM task_citations tc JOIN pages p ON p.id = tc.page_id
WHERE tc.task_id = @task_id AND tc.page_id > @after::bigint AND NOT p.abstract_only
ORDER BY tc.page_id LIMIT @max_rows;

-- name: PageToRecheck :one
-- The page of a recheck: its address, whether it came from the web, and
-- the task's status (NULL: no such task).
SELECT p.url, p.abstract_only, (SELECT t.status FROM tasks t WHERE t.id = @task_id)::text AS task_status
FROM pages p WHERE p.id = @page_id;

-- name: PageCitations :many
-- The spans the task cites in the page, by version, at most @max_rows.
SELECT DISTINCT c.page_version_id::bigint AS page_version_id, c.start_char::integer AS start_char, c.end_char::integer AS end_char
FROM task_citations c
WHERE c.task_id = @task_id AND c.page_id = @page_id
ORDER BY 1, 2, 3
LIMIT @max_rows;

-- name: CitedVersions :many
-- The texts of these versions of a page, each with the address its capture
-- came from (when it has none: the page's first address after redirects).
SELECT pv.id, pv.content, COALESCE(pc.url, p.final_url, p.url)::text AS captured_url
FROM page_versions pv
JOIN pages p ON p.id = pv.page_id
LEFT JOIN page_captures pc ON pc.page_version_id = pv.id
WHERE pv.id = ANY(@ids::bigint[])
ORDER BY pv.id;

-- name: ReserveRecheckFetch :one
-- One recheck fetch of the UTC day, when the fleet's @budget for the day
-- has room: the day's count after it, or no row when the budget is used.
INSERT INTO recheck_days AS d (day, fetches) VALUES ((now() AT TIME ZONE 'UTC')::date, 1)
ON CONFLICT (day) DO UPDATE SET fetches = d.fetches + 1 WHERE d.fetches < @budget::integer
RETURNING fetches, now()::timestamptz AS at;

-- name: RefundRecheckFetch :exec
-- A recheck fetch reserved and not made (its domain's turn had not come,
-- or robots.txt refused the page) is given back.
UPDATE recheck_days SET fetches = fetches - 1 WHERE day = (now() AT TIME ZONE 'UTC')::date AND fetches > 0;

-- name: InsertSourceCheck :one
INSERT INTO source_checks (task_id, page_id, checked_at, outcome, http_status, final_url, reason, page_version_id, job_id)
VALUES (@task_id, @page_id, @checked_at, @outcome, sqlc.narg(http_status), sqlc.narg(final_url), sqlc.narg(reason),
        sqlc.narg(page_version_id), @job_id)
RETURNING id;

-- name: InsertCitationChecks :exec
INSERT INTO citation_checks (check_id, page_version_id, start_char, end_char, state, found_start, found_end, around_start, around_end)
SELECT @check_id, v.page_version_id, v.start_char, v.end_char, v.state,
       NULLIF(v.found_start, -1), NULLIF(v.found_end, -1), NULLIF(v.around_start, -1), NULLIF(v.around_end, -1)
FROM (SELECT unnest(@version_ids::bigint[]) AS page_version_id, unnest(@starts::integer[]) AS start_char,
             unnest(@ends::integer[]) AS end_char, unnest(@states::text[]) AS state,
             unnest(@found_starts::integer[]) AS found_start, unnest(@found_ends::integer[]) AS found_end,
             unnest(@around_starts::integer[]) AS around_start, unnest(@around_ends::integer[]) AS around_end) AS v;

-- name: InsertUnreachableChecks :execrows
-- Every span the task cites in the page, unreachable at the check.
INSERT INTO citation_checks (check_id, page_version_id, start_char, end_char, state)
SELECT DISTINCT @check_id::bigint, tc.page_version_id, tc.start_char, tc.end_char, 'unreachable'
FROM task_citations tc WHERE tc.task_id = @task_id AND tc.page_id = @page_id;

-- name: TaskCitationChecks :many
-- The latest check of every span the task cites that was checked (the
-- whole graph's), with when, what answered and, for an edited span, the
-- text now around where it stood, cut from the seen version for the latest
-- check alone. SpanCitationChecks is the same for some spans.
WITH latest AS (
    SELECT DISTINCT ON (cc.page_version_id, cc.start_char, cc.end_char)
           cc.page_version_id, cc.start_char, cc.end_char, cc.state, cc.around_start, cc.around_end,
           sc.checked_at, sc.final_url, sc.page_version_id AS seen_version_id
    FROM source_checks sc
    JOIN citation_checks cc ON cc.check_id = sc.id
    WHERE sc.task_id = @task_id
    ORDER BY cc.page_version_id, cc.start_char, cc.end_char, sc.id DESC
)
SELECT l.page_version_id, l.start_char, l.end_char, l.state, l.checked_at, l.final_url, l.seen_version_id,
       COALESCE(substring(pv.content FROM l.around_start + 1 FOR l.around_end - l.around_start), '')::text AS around
FROM latest l
LEFT JOIN page_versions pv ON pv.id = l.seen_version_id AND l.around_start IS NOT NULL;

-- name: SpanCitationChecks :many
-- TaskCitationChecks of the spans of @page_version_ids, @starts and @ends
-- alone (an export page's, a claim's), found by span
-- (citation_checks_span_idx), so a page of a large task does not read all
-- of the task's checks.
WITH wanted AS (
    SELECT DISTINCT w.page_version_id, w.start_char, w.end_char
    FROM (SELECT unnest(@page_version_ids::bigint[]) AS page_version_id, unnest(@starts::integer[]) AS start_char,
                 unnest(@ends::integer[]) AS end_char) AS w
), latest AS (
    SELECT DISTINCT ON (w.page_version_id, w.start_char, w.end_char)
           w.page_version_id, w.start_char, w.end_char, cc.state, cc.around_start, cc.around_end,
           sc.checked_at, sc.final_url, sc.page_version_id AS seen_version_id
    FROM wanted w
    JOIN citation_checks cc ON cc.page_version_id = w.page_version_id AND cc.start_char = w.start_char AND cc.end_char = w.end_char
    JOIN source_checks sc ON sc.id = cc.check_id
    WHERE sc.task_id = @task_id
    ORDER BY w.page_version_id, w.start_char, w.end_char, sc.id DESC
)
SELECT l.page_version_id::bigint AS page_version_id, l.start_char::integer AS start_char, l.end_char::integer AS end_char, l.state, l.checked_at, l.final_url, l.seen_version_id,
       COALESCE(substring(pv.content FROM l.around_start + 1 FOR l.around_end - l.around_start), '')::text AS around
FROM latest l
LEFT JOIN page_versions pv ON pv.id = l.seen_version_id AND l.around_start IS NOT NULL;

-- name: TaskRecheckSummary :one
-- The task's citations (of pages from the web, as its latest round counted
-- them; 0 before one), how many were checked and how the latest check of
-- each found it, and when the latest was.
WITH latest AS (
    SELECT DISTINCT ON (cc.page_version_id, cc.start_char, cc.end_char) cc.state, sc.checked_at
    FROM source_checks sc JOIN citation_checks cc ON cc.check_id = sc.id
    WHERE sc.task_id = @task_id
    ORDER BY cc.page_version_id, cc.start_char, cc.end_char, sc.id DESC
)
SELECT COALESCE(t.recheck_citations, 0)::int AS citations,
       count(l.state)::int AS checked,
       count(*) FILTER (WHERE l.state = 'unchanged')::int AS unchanged,
       count(*) FILTER (WHERE l.state = 'edited')::int AS edited,
       count(*) FILTER (WHERE l.state = 'moved')::int AS moved,
       count(*) FILTER (WHERE l.state = 'gone')::int AS gone,
       count(*) FILTER (WHERE l.state = 'unreachable')::int AS unreachable,
       (lc.checked_at IS NOT NULL)::bool AS ever_checked,
       COALESCE(lc.checked_at, 'epoch'::timestamptz)::timestamptz AS last_checked_at, -- epoch when never
       t.rechecked_at AS round_started_at
FROM tasks t
LEFT JOIN LATERAL (SELECT sc.checked_at FROM source_checks sc WHERE sc.task_id = t.id ORDER BY sc.id DESC LIMIT 1) lc ON true
LEFT JOIN latest l ON true
WHERE t.id = @task_id
GROUP BY t.id, lc.checked_at, t.recheck_citations;

-- name: SetRecheckEvery :exec
-- The task's interval between recheck rounds (NULL: the fleet's default).
UPDATE tasks SET recheck_every = sqlc.narg(every)::interval WHERE id = @id;
