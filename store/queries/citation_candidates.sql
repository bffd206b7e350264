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
