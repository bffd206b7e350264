-- name: FetchSlot :one
-- One fetch of a domain reserved for the whole fleet, in one statement on
-- the database's clock (ARCHITECTURE.md §5.5). The fetch is granted when
-- the domain's spacing has passed since its latest grant (next_at <=
-- now()) and its budget for the UTC day has room (budget 0: none): next_at
-- becomes now() + spacing, the day's count goes up (from 0 on a new UTC
-- day) and the grant is logged in domain_fetches, whose rows of the domain
-- older than two days go. Otherwise the answer says when to come back:
-- spacing — the next turn promised to a waiter, after next_at and after
-- the turns promised before it (those at most horizon ahead); budget — the
-- next UTC midnight. Concurrent reservations of one domain queue on its
-- row, each deciding on the row as the one before left it, so two grants
-- are at least the spacing apart by construction. (The parameters are
-- cast in a CTE of their own, outside arithmetic and the ON CONFLICT
-- sub-select, where sqlc v1.31.1 misreads them.)
WITH params AS (
    SELECT @domain::text AS domain,
           @spacing_us::bigint AS spacing_us,
           @horizon_us::bigint AS horizon_us,
           @budget::integer AS budget,
           @url::text AS url,
           sqlc.narg(job_id)::bigint AS job_id,
           (now() AT TIME ZONE 'UTC')::date AS today
), args AS (
    SELECT params.*, spacing_us * interval '1 microsecond' AS spacing, horizon_us * interval '1 microsecond' AS horizon FROM params
), slot AS (
    INSERT INTO domain_politeness AS p (domain, next_at, queue_at, day, day_count, last_fetch_at, last_answer, updated_at)
    SELECT a.domain, now() + a.spacing, now() + a.spacing, a.today, 1, now(), 'granted', now() FROM args a
    ON CONFLICT (domain) DO UPDATE SET
        (next_at, queue_at, day, day_count, last_fetch_at, last_answer, updated_at) = (
            SELECT CASE WHEN g.granted THEN now() + a.spacing ELSE p.next_at END,
                   CASE WHEN g.granted THEN greatest(p.queue_at, now() + a.spacing)
                        WHEN r.room THEN greatest(p.next_at, least(p.queue_at, now() + a.horizon)) + a.spacing
                        ELSE p.queue_at END,
                   a.today,
                   c.counted + CASE WHEN g.granted THEN 1 ELSE 0 END,
                   CASE WHEN g.granted THEN now() ELSE p.last_fetch_at END,
                   CASE WHEN g.granted THEN 'granted' WHEN r.room THEN 'spacing' ELSE 'budget' END,
                   now()
            FROM args a,
                 LATERAL (SELECT CASE WHEN p.day = a.today THEN p.day_count ELSE 0 END AS counted) c,
                 LATERAL (SELECT a.budget = 0 OR c.counted < a.budget AS room) r,
                 LATERAL (SELECT r.room AND p.next_at <= now() AS granted) g)
    RETURNING domain, last_answer, day_count, last_fetch_at, queue_at, day
), logged AS (
    INSERT INTO domain_fetches (domain, granted_at, url, job_id)
    SELECT s.domain, s.last_fetch_at, a.url, a.job_id FROM slot s, args a WHERE s.last_answer = 'granted'
), pruned AS (
    DELETE FROM domain_fetches f USING args a
    WHERE f.domain = a.domain AND f.granted_at < now() - interval '2 days'
      AND EXISTS (SELECT 1 FROM slot s WHERE s.last_answer = 'granted')
)
SELECT s.last_answer AS answer,
       (CASE s.last_answer
            WHEN 'spacing' THEN s.queue_at - a.spacing
            WHEN 'budget' THEN (s.day + 1)::timestamp AT TIME ZONE 'UTC'
            ELSE now() END)::timestamptz AS wait_until,
       now()::timestamptz AS at,
       s.day_count
FROM slot s, args a;

-- name: DomainFetchTimes :many
-- The fetches the fleet granted for a domain, oldest first (kept two days).
SELECT granted_at, url, job_id FROM domain_fetches WHERE domain = @domain ORDER BY granted_at, id;
