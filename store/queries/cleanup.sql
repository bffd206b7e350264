-- Cleanup (ARCHITECTURE.md §5.6). Soft: a task's task-scoped rows. Hard: then the
-- orphans of the whole graph, never anything another task reaches.

-- name: StopTask :one
-- Marks a task stopped (the caller holds its lock): writers check the status
-- under the same lock, so nothing is added to it afterwards.
UPDATE tasks SET status = 'stopped', work_version = work_version + 1, updated_at = now()
WHERE id = @id
RETURNING id, status;

-- name: DeleteTaskClaimEdges :execrows
-- Every edge touching one of the task's claims (NLI and origin edges).
DELETE FROM edges e
USING claims c
WHERE c.task_id = @task_id
  AND ((e.target_type = 'claim' AND e.target_id = c.id) OR (e.source_type = 'claim' AND e.source_id = c.id));

-- name: PruneBlockCauses :exec
-- The task's claims, and the edges into them, leave the blocks that cite
-- them (the fleet's and the organizations' views): a block never points
-- at a row that is gone. Each block keeps its audit row
-- (cause_change_id), whose evidence holds what the claims said.
WITH gone_claims AS (
    SELECT COALESCE(array_agg(c.id), '{}')::bigint[] AS ids FROM claims c WHERE c.task_id = @task_id
), gone AS (
    SELECT gc.ids AS claims,
           COALESCE((SELECT array_agg(e.id) FROM edges e WHERE e.target_type = 'claim' AND e.target_id = ANY(gc.ids)), '{}')::bigint[] AS edges
    FROM gone_claims gc
), fleet AS (
    UPDATE domains d SET
        block_claim_ids = ARRAY(SELECT x FROM unnest(d.block_claim_ids) AS x WHERE x <> ALL(g.claims)),
        block_edge_ids = ARRAY(SELECT x FROM unnest(COALESCE(d.block_edge_ids, '{}')) AS x WHERE x <> ALL(g.edges))
    FROM gone g
    WHERE d.block_claim_ids && g.claims
    RETURNING d.domain
), views AS (
    UPDATE org_domain_levels o SET
        block_claim_ids = ARRAY(SELECT x FROM unnest(o.block_claim_ids) AS x WHERE x <> ALL(g.claims)),
        block_edge_ids = ARRAY(SELECT x FROM unnest(COALESCE(o.block_edge_ids, '{}')) AS x WHERE x <> ALL(g.edges))
    FROM gone g
    WHERE o.block_claim_ids && g.claims
    RETURNING o.domain
)
SELECT (SELECT count(*) FROM fleet) + (SELECT count(*) FROM views) AS pruned;

-- name: DeleteTaskRankings :execrows
DELETE FROM task_rankings WHERE task_id = @task_id;

-- name: DeleteTaskClaims :execrows
DELETE FROM claims WHERE task_id = @task_id;

-- name: DeleteTaskPages :execrows
DELETE FROM task_pages WHERE task_id = @task_id;

-- name: DeleteTaskTargets :execrows
DELETE FROM targets WHERE task_id = @task_id;

-- name: DeleteTaskSourceChecks :execrows
-- The task's rechecks, with their citations' findings (cascade).
DELETE FROM source_checks WHERE task_id = @task_id;

-- name: DeleteTaskEvents :execrows
DELETE FROM event_log WHERE task_id = @task_id;

-- name: LockOrphanVersions :many
-- Page versions no task reaches (no task_pages row, no claim, no ranking,
-- no recheck that saw or cited it),
-- locked so that a writer linking one to a task waits for this transaction
-- (its foreign key check takes a key-share lock); versions being linked
-- right now are skipped, not waited for. At most @batch per sweep.
SELECT pv.id FROM page_versions pv
WHERE NOT EXISTS (SELECT 1 FROM task_pages tp WHERE tp.page_version_id = pv.id)
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.page_version_id = pv.id)
  AND NOT EXISTS (SELECT 1 FROM task_rankings r WHERE r.page_version_id = pv.id)
  AND NOT EXISTS (SELECT 1 FROM source_checks sc WHERE sc.page_version_id = pv.id)
  AND NOT EXISTS (SELECT 1 FROM citation_checks cc WHERE cc.page_version_id = pv.id)
ORDER BY pv.id
LIMIT @batch
FOR UPDATE SKIP LOCKED;

-- name: DeleteOrphanEdges :execrows
-- Edges whose claim, fragment or page no longer exists (left by soft
-- cleanups of claims, or by fragments deleted below), at most @batch per sweep.
DELETE FROM edges WHERE id IN (
    SELECT e.id FROM edges e
    WHERE (e.target_type = 'claim' AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.id = e.target_id))
       OR (e.source_type = 'claim' AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.id = e.source_id))
       OR (e.source_type = 'fragment' AND NOT EXISTS (SELECT 1 FROM fragments f WHERE f.id = e.source_id))
       OR (e.source_type = 'page' AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = e.source_id))
       OR (e.target_type = 'page' AND NOT EXISTS (SELECT 1 FROM pages p WHERE p.id = e.target_id))
    LIMIT @batch);

-- name: DeleteOrphanFragments :execrows
-- The fragments of the locked orphan versions that no edge references. Fresh
-- statement, fresh snapshot: a task_pages row committed since the lock was
-- taken keeps its version's fragments.
DELETE FROM fragments f
WHERE f.page_version_id = ANY(@version_ids::bigint[])
  AND NOT EXISTS (SELECT 1 FROM task_pages tp WHERE tp.page_version_id = f.page_version_id)
  AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.source_type = 'fragment' AND e.source_id = f.id)
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.origin_fragment_id = f.id);

-- name: DeleteOrphanVersions :execrows
-- The locked orphan versions left without fragments.
DELETE FROM page_versions pv
WHERE pv.id = ANY(@version_ids::bigint[])
  AND NOT EXISTS (SELECT 1 FROM task_pages tp WHERE tp.page_version_id = pv.id)
  AND NOT EXISTS (SELECT 1 FROM fragments f WHERE f.page_version_id = pv.id)
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.page_version_id = pv.id);

-- name: LockOrphanPages :many
-- Pages nothing reaches any more: no version, no task, no target, no
-- fragment, no ranking, no cites edge (a citation keeps both of its pages,
-- so another task's citation graph is never cut). Locked as the versions
-- are, skipping pages a writer holds.
SELECT p.id FROM pages p
WHERE NOT EXISTS (SELECT 1 FROM page_versions pv WHERE pv.page_id = p.id)
  AND NOT EXISTS (SELECT 1 FROM task_pages tp WHERE tp.page_id = p.id OR tp.source_page_id = p.id)
  AND NOT EXISTS (SELECT 1 FROM targets t WHERE t.page_id = p.id)
  AND NOT EXISTS (SELECT 1 FROM fragments f WHERE f.page_id = p.id)
  AND NOT EXISTS (SELECT 1 FROM task_rankings r WHERE r.page_id = p.id)
  AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.relation = 'cites' AND e.source_type = 'page'
                  AND (e.source_id = p.id OR e.target_id = p.id))
ORDER BY p.id
LIMIT @batch
FOR UPDATE SKIP LOCKED;

-- name: DeletePageIdentifiers :execrows
DELETE FROM resource_index WHERE page_id = ANY(@page_ids::bigint[]);

-- name: DeletePageEdges :execrows
DELETE FROM edges
WHERE (source_type = 'page' AND source_id = ANY(@page_ids::bigint[]))
   OR (target_type = 'page' AND target_id = ANY(@page_ids::bigint[]));

-- name: DeletePages :execrows
DELETE FROM pages WHERE id = ANY(@page_ids::bigint[]);
