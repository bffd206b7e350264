-- Self-directed retrieval's planner (internal/planner, ARCHITECTURE.md §5.9).

-- name: LockPlannableTasks :many
-- The active self-directed tasks whose retrieval is not done and that have
-- no job left to run (their stage's work is judged), locked; a task another
-- process plans, or whose row a writer holds, is skipped this round.
SELECT t.id, t.hypothesis, t.budget_class, t.retrieval_stage FROM tasks t
WHERE t.retrieval = 'self_directed' AND t.retrieval_stage < 4 AND t.status = 'active' AND t.id > @after::bigint
  AND NOT EXISTS (
      SELECT 1 FROM river_job j
      WHERE j.args ? 'task_id' AND (j.args ->> 'task_id') = t.id::text
        AND j.state IN ('available', 'pending', 'running', 'retryable', 'scheduled'))
ORDER BY t.id LIMIT @max_rows FOR UPDATE OF t SKIP LOCKED;

-- name: PlannerClaims :many
-- The task's hypothesis claims (the caller's: the ones retrieval serves),
-- with what the planner weighs.
SELECT id, evidence_no, text, belief, independent_sources FROM claims
WHERE task_id = @task_id AND kind = 'hypothesis' AND refused_reason IS NULL ORDER BY id;

-- name: PlannerEdges :many
-- The supporting and refuting NLI edges into the task's hypothesis claims,
-- with the fragment's text and its page's domain (sufficiency).
SELECT e.target_id AS claim_id, e.relation, COALESCE(e.nli_edge_confidence, 0)::float8 AS confidence, f.text, p.domain
FROM edges e
JOIN claims c ON c.id = e.target_id AND c.task_id = @task_id AND c.kind = 'hypothesis'
JOIN fragments f ON f.id = e.source_id
JOIN pages p ON p.id = f.page_id
WHERE e.target_type = 'claim' AND e.source_type = 'fragment' AND e.relation IN ('supports', 'refutes')
ORDER BY e.id;

-- name: PlannerTargets :many
-- The planner's query targets of the task and their results: a result's
-- query names the claim it serves; a deferred result has no job yet.
SELECT q.id AS query_id, q.claim_id, q.value AS query, q.retrieval_stage,
       r.id AS result_id, r.kind AS result_kind, r.value AS result_value, r.stage AS result_stage
FROM targets q
LEFT JOIN targets r ON r.source_target_id = q.id
WHERE q.task_id = @task_id AND q.via = 'planner'
ORDER BY q.id, r.id;

-- name: RegisterPlannerQueries :many
-- Registers the planner's query targets of a claim at a stage; the ones
-- the task had already are left as they are (and not returned).
INSERT INTO targets (task_id, kind, value, via, claim_id, retrieval_stage)
SELECT @task_id, 'query', unnest(@vals::text[]), 'planner', @claim_id::bigint, @retrieval_stage::smallint
ON CONFLICT (task_id, kind, value) DO NOTHING
RETURNING id, value;

-- name: RegisterDeferredTargets :exec
-- Registers a query's results beyond the ones fetched now, with stage
-- 'deferred' and no job; a target the task had already keeps its state.
INSERT INTO targets (task_id, kind, value, via, source_target_id, stage)
SELECT @task_id, unnest(@kinds::text[]), unnest(@vals::text[]), 'query', @source_target_id::bigint, 'deferred'
ON CONFLICT (task_id, kind, value) DO NOTHING;

-- name: ReleaseDeferredTargets :many
-- Deferred results the planner fetches now (their jobs are inserted in the
-- same transaction).
UPDATE targets SET stage = 'queued', updated_at = now()
WHERE task_id = @task_id AND id = ANY(@ids::bigint[]) AND stage = 'deferred'
RETURNING id, kind, value;

-- name: SetRetrievalStage :exec
UPDATE tasks SET retrieval_stage = @retrieval_stage, updated_at = now() WHERE id = @id;

-- name: TaskEvents :many
SELECT id, event_type, payload, created_at FROM event_log
WHERE task_id = @task_id AND id > @after::bigint ORDER BY id LIMIT @max_rows;
