-- name: LockClaimStatus :one
SELECT verification_status, COALESCE(reviewer_status, '')::text AS reviewer_status FROM claims WHERE id = @id FOR UPDATE;

-- name: SetReviewerStatus :exec
-- A person's word on a claim; RecomputePosteriors applies it.
UPDATE claims SET reviewer_status = @reviewer_status, updated_at = now() WHERE id = @id;

-- name: RecordClaimFeedback :exec
INSERT INTO claim_feedback (claim_id, action, reason, set_by, organization_id, token_id)
VALUES (@claim_id, @action, @reason, @set_by, sqlc.narg(organization_id), sqlc.narg(token_id));

-- name: LockNLIEdge :one
-- An NLI edge (fragment → claim), locked for a correction.
SELECT id, target_id AS claim_id, relation, (corrected_at IS NOT NULL)::bool AS corrected
FROM edges
WHERE id = @id AND source_type = 'fragment' AND target_type = 'claim' AND relation IN ('supports', 'refutes', 'neutral')
FOR UPDATE;

-- name: CorrectEdge :exec
-- The person's relation counts at confidence 1; the model's first word is
-- kept.
UPDATE edges SET
    model_relation = COALESCE(model_relation, relation),
    model_confidence = COALESCE(model_confidence, nli_edge_confidence),
    relation = @relation,
    nli_edge_confidence = 1,
    corrected_by = @set_by,
    corrected_at = now()
WHERE id = @id;

-- name: RecordEdgeFeedback :exec
INSERT INTO edge_feedback (edge_id, old_relation, new_relation, reason, set_by, organization_id, token_id)
VALUES (@edge_id, @old_relation, @new_relation, @reason, @set_by, sqlc.narg(organization_id), sqlc.narg(token_id));

-- name: CorrectedPairs :many
-- Corrected NLI edges as labelled pairs: the fragment's text at its span of
-- its page version, the claim's text, the person's relation and the model's.
SELECT e.id, e.relation, COALESCE(e.model_relation, '')::text AS model_relation,
       substring(pv.content FROM f.start_char + 1 FOR f.end_char - f.start_char)::text AS premise,
       c.text AS hypothesis
FROM edges e
JOIN fragments f ON f.id = e.source_id
JOIN page_versions pv ON pv.id = f.page_version_id
JOIN claims c ON c.id = e.target_id
WHERE e.corrected_at IS NOT NULL AND e.source_type = 'fragment' AND e.target_type = 'claim'
  AND (sqlc.narg(task_id)::bigint IS NULL OR c.task_id = sqlc.narg(task_id)::bigint)
  AND c.task_id IN (SELECT id FROM tasks WHERE organization_id = @organization_id)
ORDER BY e.id;
