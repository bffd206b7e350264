-- A task's own full-text index (task_fragment_terms, migrations/00036).

-- name: TaskTermsFresh :one
-- Whether the task's term rows were made at its work_version: what a
-- recall call asks first; only a stale index is refreshed.
SELECT EXISTS (
    SELECT 1 FROM tasks tk JOIN task_terms_states s ON s.task_id = tk.id
    WHERE tk.id = @task_id AND s.work_version >= tk.work_version
)::boolean AS fresh;

-- name: RefreshTaskTerms :one
-- Brings the task's term rows up to its work_version, in one statement:
-- unless they were made at it already, the fragments of the task's page
-- versions that have none are added (each with its page title's lexemes,
-- as recall ranks it) and the version recorded. Pages join a task only
-- with their fragments and bump its work_version, so rows made at a
-- version hold every fragment the task had then. Refreshes of a task take
-- turns (a transaction lock on the task's key, taken before any row is
-- written), and a later one skips the rows an earlier one added (ON
-- CONFLICT), in one order, so that concurrent ones cannot deadlock.
-- Returns the rows added.
WITH stale AS (
    SELECT tk.id AS task_id, tk.work_version FROM tasks tk
    CROSS JOIN LATERAL (SELECT pg_advisory_xact_lock(hashtextextended('task_terms:' || tk.id::text, 0))) AS turn
    WHERE tk.id = @task_id
      AND NOT EXISTS (SELECT 1 FROM task_terms_states s WHERE s.task_id = tk.id AND s.work_version >= tk.work_version)
), added AS (
    INSERT INTO task_fragment_terms (task_id, page_id, page_version_id, fragment_id, domain, tsv)
    SELECT tp.task_id, tp.page_id, tp.page_version_id, f.id, p.domain, f.tsv || p.title_tsv
    FROM stale
    JOIN task_pages tp ON tp.task_id = stale.task_id AND tp.page_version_id IS NOT NULL
    JOIN pages p ON p.id = tp.page_id
    JOIN fragments f ON f.page_version_id = tp.page_version_id
    WHERE NOT EXISTS (SELECT 1 FROM task_fragment_terms held WHERE held.task_id = tp.task_id AND held.page_version_id = tp.page_version_id)
    ORDER BY tp.page_version_id, f.id
    ON CONFLICT DO NOTHING
    RETURNING 1
), state AS (
    INSERT INTO task_terms_states (task_id, work_version)
    SELECT stale.task_id, stale.work_version FROM stale
    ON CONFLICT (task_id) DO UPDATE SET work_version = GREATEST(task_terms_states.work_version, EXCLUDED.work_version)
)
SELECT count(*) FROM added;

-- name: DeleteTaskTerms :execrows
-- A cleaned-up task's term rows and their state.
WITH state AS (DELETE FROM task_terms_states s WHERE s.task_id = @task_id)
DELETE FROM task_fragment_terms t WHERE t.task_id = @task_id;
