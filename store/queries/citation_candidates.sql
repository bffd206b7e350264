-- citation_graph: a paper's candidates, recorded once per page
-- (migrations/00025_citation_candidates.sql).

-- name: CitationNeighborhood :one
-- The page's recorded neighbourhood; no row: never asked (or not answered).
SELECT page_id, neighbors, embed_model FROM citation_neighborhoods WHERE page_id = @page_id;

-- name: CitationCandidatesOf :many
-- The page's recorded stage 1 candidates, in stage 1 order.
SELECT position, reference, influential, similarity, sources, paper
FROM citation_candidates WHERE page_id = @page_id ORDER BY position;

-- name: InsertCitationNeighborhood :execrows
-- 0 rows: another job recorded the page first (its record stands).
INSERT INTO citation_neighborhoods (page_id, neighbors, embed_model)
VALUES (@page_id, @neighbors, @embed_model)
ON CONFLICT (page_id) DO NOTHING;

-- name: InsertCitationCandidate :exec
INSERT INTO citation_candidates (page_id, position, reference, influential, similarity, sources, paper)
VALUES (@page_id, @position, @reference, @influential, @similarity, @sources, @paper);

-- name: EarlierCitationGraphRunning :one
-- Whether a citation_graph job older than @job_id (of any task) is running
-- on the page: that job asks the academic APIs for it and records its
-- candidates, so this one waits instead of asking them again.
SELECT EXISTS (
    SELECT 1 FROM river_job
    WHERE kind = 'citation_graph' AND state = 'running' AND id < @job_id
      AND args -> 'page_id' = to_jsonb(@page_id::bigint)
)::boolean AS running;
