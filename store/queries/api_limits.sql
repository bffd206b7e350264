-- name: TakeAPIRequest :one
-- Takes one request from the key's token bucket on the database clock: the
-- bucket (full when new) refills at @rate per second up to @burst since its
-- last request, and one request is taken when a whole one is there.
-- Returns what is left and whether this request was taken. Concurrent
-- requests of one key queue on its row; every API replica shares the
-- bucket. (The parameters are cast in a CTE of their own: sqlc v1.31.1
-- misreads them in arithmetic and in the ON CONFLICT sub-select.)
WITH params AS (
    SELECT @key::text AS key, @rate::float8 AS rate, @burst::float8 AS burst
)
INSERT INTO api_rate_buckets AS b (key, tokens, taken, updated_at)
SELECT p.key, p.burst - 1, true, now() FROM params p
ON CONFLICT (key) DO UPDATE SET
    (tokens, taken, updated_at) = (
        SELECT r.refilled - CASE WHEN r.refilled >= 1 THEN 1 ELSE 0 END, r.refilled >= 1, GREATEST(now(), b.updated_at)
        FROM params p
        CROSS JOIN LATERAL (
            SELECT LEAST(p.burst, b.tokens + p.rate * GREATEST(0, EXTRACT(EPOCH FROM now() - b.updated_at)::float8)) AS refilled
        ) AS r
    )
RETURNING b.tokens, b.taken;

-- name: LockAPIStreams :exec
-- Serialises the opening of one key's event streams (until commit), so
-- that the count that follows is not raced by another replica.
SELECT pg_advisory_xact_lock(hashtextextended('api_event_streams:' || @key::text, 0));

-- name: OpenAPIStream :one
-- Records one more open event stream of the key, a lease of @lifetime_s
-- seconds from now on the database clock (RenewAPIStream extends it while
-- the stream is open), unless it holds @most live ones already (no row
-- then). Run after LockAPIStreams in the same transaction.
WITH params AS (
    SELECT @key::text AS key, @lifetime_s::float8 AS lifetime_s, @most::int AS most
)
INSERT INTO api_event_streams (key, expires_at)
SELECT p.key, now() + make_interval(secs => p.lifetime_s) FROM params p
WHERE (SELECT count(*) FROM api_event_streams s WHERE s.key = p.key AND s.expires_at > now()) < p.most
RETURNING id;

-- name: DeleteExpiredAPIStreams :exec
-- Forgets the key's streams whose lease lapsed (their replica died holding
-- them, or stopped renewing).
DELETE FROM api_event_streams WHERE key = @key AND expires_at <= now();

-- name: CloseAPIStream :exec
DELETE FROM api_event_streams WHERE id = @id;

-- name: RenewAPIStream :one
-- Extends stream id's lease to @lease_s seconds from now, if it has not
-- lapsed: a lapsed lease may have been counted out and its slot taken by
-- another stream, so it is not revived (no row; the stream ends).
UPDATE api_event_streams
SET expires_at = now() + make_interval(secs => @lease_s::float8)
WHERE id = @id AND expires_at > now()
RETURNING id;
