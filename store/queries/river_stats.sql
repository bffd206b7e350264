-- name: RiverLiveJobCounts :many
-- Jobs per queue in the states that are not history (available, scheduled,
-- retryable, running, pending). River's fetch index (state, queue, priority,
-- scheduled_at, id) answers it without reading finished jobs, so its cost
-- follows the backlog, not the millions of completed rows a busy table holds.
SELECT queue, state::text AS state, count(*)::bigint AS jobs
FROM river_job
WHERE state IN ('available', 'scheduled', 'retryable', 'running', 'pending')
GROUP BY queue, state;

-- name: RiverOldestAvailableAge :many
-- Per queue, how long the oldest available job has been due, in seconds by
-- the database's clock: one probe of River's fetch index per queue and
-- priority (1–4), whatever the backlog. Queues without available jobs are
-- left out.
SELECT q.queue::text AS queue,
       GREATEST(extract(epoch FROM now() - min(o.scheduled_at)), 0)::float8 AS age_seconds
FROM unnest(@queues::text[]) AS q(queue)
CROSS JOIN generate_series(1, 4) AS p(priority)
CROSS JOIN LATERAL (
    SELECT j.scheduled_at FROM river_job j
    WHERE j.state = 'available' AND j.queue = q.queue AND j.priority = p.priority
    ORDER BY j.scheduled_at
    LIMIT 1
) AS o
GROUP BY q.queue;
