-- name: LockClaimStatus :one
SELECT verification_status FROM claims WHERE id = @id FOR UPDATE;

-- name: RejectClaim :exec
UPDATE claims SET verification_status = 'rejected', adoption_status = 'not_adopted', updated_at = now() WHERE id = @id;

-- name: UnrejectClaim :exec
-- The tally decides again (RecomputePosteriors).
UPDATE claims SET verification_status = 'pending', updated_at = now() WHERE id = @id;

-- name: RecordClaimFeedback :exec
INSERT INTO claim_feedback (claim_id, action, reason, set_by) VALUES (@claim_id, @action, @reason, @set_by);
