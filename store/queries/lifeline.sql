-- Worker process lifelines (internal/fleet/lifeline.go).

-- name: TakeLifelineLock :exec
-- Waits for and takes the session advisory lock of key on this connection.
-- A worker process holds the lock of its River client id on a connection of
-- its own, straight to Postgres (never through a transaction pooler, where
-- a session lock stays on a server connection other clients get next);
-- another process whose lock no session holds (LifelineHeld) is dead, and
-- its running jobs are returned to work (RescueRunningJobsOf).
SELECT pg_advisory_lock(hashtextextended(@key::text, 0));

-- name: LifelineHeld :one
-- Whether some session holds the lock of key, read from pg_locks: it takes
-- and leaves no lock, so it may run on any connection, a pooled one too. A
-- bigint advisory key is kept as its high 32 bits (classid), its low 32
-- bits (objid) and objsubid 1.
SELECT EXISTS (
    SELECT 1 FROM pg_catalog.pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
      AND l.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
      AND l.classid = ((hashtextextended(@key::text, 0) >> 32) & 4294967295)::oid
      AND l.objid = (hashtextextended(@key::text, 0) & 4294967295)::oid
)::bool AS held;

-- name: RunningJobOwners :many
-- The processes, other than self, whose client id starts with prefix and
-- that run jobs now: the last entry of each running job's attempted_by.
SELECT DISTINCT attempted_by[cardinality(attempted_by)]::text AS owner
FROM river_job
WHERE state = 'running' AND cardinality(attempted_by) > 0
  AND starts_with(attempted_by[cardinality(attempted_by)], @prefix::text)
  AND attempted_by[cardinality(attempted_by)] <> @self::text;

-- name: RescueRunningJobsOf :many
-- Makes the running jobs of a dead process available again, each with an
-- error saying so (its attempt counts, as for any crash) and the count of
-- such deaths in its metadata ("worker_deaths", read by workers.Middleware);
-- a death during an attempt the job ran alone in its process
-- (it marked the attempt "solo_attempt", MarkSoloAttempt) also counts in
-- "worker_deaths_solo": a job that kills its worker dies alone too, one that
-- died beside it need not be the killer.
UPDATE river_job SET
    state = 'available', scheduled_at = now(),
    errors = array_append(errors, jsonb_build_object('at', now(), 'attempt', attempt, 'error', @message::text, 'trace', '')),
    metadata = metadata || jsonb_build_object(
        'worker_deaths', COALESCE((metadata->>'worker_deaths')::int, 0) + 1,
        'worker_deaths_solo', COALESCE((metadata->>'worker_deaths_solo')::int, 0)
            + (CASE WHEN (metadata->>'solo_attempt')::int = attempt THEN 1 ELSE 0 END))
WHERE state = 'running' AND attempted_by[cardinality(attempted_by)] = @owner::text
RETURNING id, kind, attempt;

-- name: MarkSoloAttempt :exec
-- Records that the job's current attempt runs alone in its
-- process (see RescueRunningJobsOf).
UPDATE river_job SET metadata = metadata || jsonb_build_object('solo_attempt', @attempt::int)
WHERE id = @id AND state = 'running';

