-- Claim links proposed by the LLM, accepted or rejected by a person
-- (store/proposals.go, ARCHITECTURE.md §5.8).

-- name: InsertProposedClaimLink :execrows
-- A proposed link between two claims of the task; an existing link of the
-- pair (a person's, or an earlier proposal) is kept as it is.
INSERT INTO claim_links (task_id, from_claim_id, to_claim_id, relation, weight, status, created_by, reason)
VALUES (@task_id, @from_claim_id, @to_claim_id, @relation, @weight, 'proposed', @created_by, @reason)
ON CONFLICT (from_claim_id, to_claim_id) DO NOTHING;

-- name: AcceptProposedClaimLink :execrows
-- Makes the task's proposed link of the pair accepted (it propagates from now on).
UPDATE claim_links SET status = 'accepted'
WHERE task_id = @task_id AND from_claim_id = @from_claim_id AND to_claim_id = @to_claim_id AND status = 'proposed';

-- name: DeleteProposedClaimLink :execrows
-- Deletes the task's proposed link of the pair (an accepted one stays).
DELETE FROM claim_links
WHERE task_id = @task_id AND from_claim_id = @from_claim_id AND to_claim_id = @to_claim_id AND status = 'proposed';
