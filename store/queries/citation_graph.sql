-- citation_graph: the source page (its pages are written by StorePage).

-- name: CitationSourcePage :one
-- A page's academic ids, title and latest text, for its citation graph.
SELECT p.id, COALESCE(p.doi, '')::text AS doi, COALESCE(p.s2_paper_id, '')::text AS s2_paper_id,
       COALESCE(p.openalex_id, '')::text AS openalex_id, COALESCE(p.title, '')::text AS title,
       COALESCE(v.content, '')::text AS content
FROM pages p
LEFT JOIN LATERAL (
    SELECT pv.content FROM page_versions pv WHERE pv.page_id = p.id
    ORDER BY pv.fetched_at DESC, pv.id DESC LIMIT 1
) AS v ON true
WHERE p.id = @id;
