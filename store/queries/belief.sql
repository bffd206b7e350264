-- Claim links and the propagated belief (store/belief.go, internal/belief,
-- ARCHITECTURE.md §5.8).

-- name: AcceptedLinksOfClaimTasks :many
-- The accepted links of the tasks the claims belong to: the DAG the
-- propagated belief runs over.
SELECT l.from_claim_id, l.to_claim_id, l.relation, l.weight
FROM claim_links l
WHERE l.status = 'accepted'
  AND l.task_id IN (SELECT c.task_id FROM claims c WHERE c.id = ANY(@claim_ids::bigint[]))
ORDER BY l.from_claim_id, l.to_claim_id;

-- name: ClaimLocalBeliefs :many
-- The claims' own log-odds, as last recomputed.
SELECT c.id, c.belief_log_odds FROM claims c WHERE c.id = ANY(@ids::bigint[]) ORDER BY c.id;

-- name: UpdatePropagatedBeliefs :exec
-- The propagated log-odds and belief of claims downstream of a change
-- (parallel arrays; the rows are locked by the caller).
UPDATE claims c SET propagated_log_odds = v.log_odds, propagated_belief = v.belief, updated_at = now()
FROM (SELECT unnest(@ids::bigint[]) AS id, unnest(@log_odds::float8[]) AS log_odds,
             unnest(@beliefs::float8[]) AS belief) AS v
WHERE c.id = v.id;

-- name: TaskClaimsByEvidenceNo :many
-- The task's claims of the given E-numbers.
SELECT c.id, c.evidence_no FROM claims c
WHERE c.task_id = @task_id AND c.evidence_no = ANY(@evidence_nos::int[])
ORDER BY c.evidence_no;

-- name: TaskClaimLinks :many
-- The task's claim links with the E-numbers of both ends, in E-number order.
SELECT l.id, l.from_claim_id, cf.evidence_no AS from_evidence_no, l.to_claim_id, ct.evidence_no AS to_evidence_no,
       l.relation, l.weight, l.status, l.created_by, l.reason, l.created_at
FROM claim_links l
JOIN claims cf ON cf.id = l.from_claim_id
JOIN claims ct ON ct.id = l.to_claim_id
WHERE l.task_id = @task_id
ORDER BY cf.evidence_no, ct.evidence_no;

-- name: UpsertClaimLink :one
-- A link between two claims of the task; linking the same pair again
-- replaces its relation, weight, status and reason.
INSERT INTO claim_links (task_id, from_claim_id, to_claim_id, relation, weight, status, created_by, reason)
VALUES (@task_id, @from_claim_id, @to_claim_id, @relation, @weight, @status, @created_by, @reason)
ON CONFLICT (from_claim_id, to_claim_id) DO UPDATE
SET relation = EXCLUDED.relation, weight = EXCLUDED.weight, status = EXCLUDED.status,
    created_by = EXCLUDED.created_by, reason = EXCLUDED.reason
RETURNING id;

-- name: DeleteClaimLink :execrows
DELETE FROM claim_links WHERE task_id = @task_id AND from_claim_id = @from_claim_id AND to_claim_id = @to_claim_id;

-- name: ShareLockClaimTasks :many
-- Share-locks the rows of the claims' tasks, in id order, before their
-- claims are locked (the one lock order: task rows, then claims by id): a
-- link change holds its task's row FOR UPDATE, so the claim links read
-- under this lock stay as read until commit.
-- Returns each task with its count of accepted links, read from the
-- locked row (so as the last link writer left it).
SELECT t.id, t.accepted_links FROM tasks t
WHERE t.id IN (SELECT c.task_id FROM claims c WHERE c.id = ANY(@claim_ids::bigint[]))
ORDER BY t.id FOR SHARE;

-- name: ShareLockEdgeTask :many
-- Share-locks the row of the task of an NLI edge's claim (a correction
-- takes it before the edge's row, in the one lock order).
SELECT t.id FROM tasks t
WHERE t.id = (SELECT c.task_id FROM edges e JOIN claims c ON c.id = e.target_id
              WHERE e.id = @edge_id AND e.target_type = 'claim')
FOR SHARE;

-- name: RecountAcceptedLinks :exec
-- Sets the task's count of accepted links; its writers run it holding the
-- task's row FOR UPDATE, after their change.
UPDATE tasks SET accepted_links = (SELECT count(*) FROM claim_links l WHERE l.task_id = @task_id AND l.status = 'accepted')
WHERE id = @task_id;
