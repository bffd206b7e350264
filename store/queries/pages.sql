-- name: UpsertPage :one
-- Returns the page for a normalized URL, creating it on first sight.
WITH ins AS (
    INSERT INTO pages (url, domain)
    VALUES (@url, @domain)
    ON CONFLICT (url) DO NOTHING
    RETURNING id
)
SELECT id FROM ins
UNION ALL
SELECT id FROM pages WHERE url = @url
LIMIT 1;

-- name: RecordPageFetch :exec
UPDATE pages
SET final_url    = @final_url,
    title        = COALESCE(sqlc.narg(title), title),
    fetched_at   = @fetched_at,
    http_status  = @http_status,
    content_type = @content_type,
    error        = sqlc.narg(error)
WHERE id = @id;

-- name: SetPageIdentifiers :exec
UPDATE pages
SET doi      = COALESCE(sqlc.narg(doi), doi),
    pmid     = COALESCE(sqlc.narg(pmid), pmid),
    arxiv_id = COALESCE(sqlc.narg(arxiv_id), arxiv_id)
WHERE id = @id;

-- name: UpsertPageVersion :one
-- Versions are keyed by content hash: the same text fetched again is the same version.
WITH ins AS (
    INSERT INTO page_versions (page_id, sha256, content, fetched_at)
    VALUES (@page_id, @sha256, @content, @fetched_at)
    ON CONFLICT (page_id, sha256) DO NOTHING
    RETURNING id, true AS created
)
SELECT id, created FROM ins
UNION ALL
SELECT id, false AS created FROM page_versions WHERE page_id = @page_id AND sha256 = @sha256
LIMIT 1;

-- name: IndexResources :exec
-- Records identifiers for a page; an identifier already owned by another page keeps its first owner.
INSERT INTO resource_index (identifier_type, identifier, page_id)
SELECT unnest(@types::text[]), unnest(@identifiers::text[]), @page_id
ON CONFLICT (identifier_type, identifier) DO NOTHING;

-- name: PageByResource :one
SELECT page_id FROM resource_index WHERE identifier_type = @identifier_type AND identifier = @identifier;

-- name: EnsureDomain :exec
INSERT INTO domains (domain) VALUES (@domain) ON CONFLICT (domain) DO NOTHING;

-- name: DomainTrust :many
SELECT domain, trust_level, category FROM domains WHERE domain = ANY(@domains::text[]);

-- name: AddTaskPage :one
-- Returns true when the page is new to the task.
WITH ins AS (
    INSERT INTO task_pages (task_id, page_id, page_version_id, reason, depth, source_page_id)
    VALUES (@task_id, @page_id, @page_version_id, @reason, @depth, sqlc.narg(source_page_id))
    ON CONFLICT (task_id, page_id) DO NOTHING
    RETURNING true AS added
)
SELECT COALESCE((SELECT added FROM ins), false)::boolean AS added;

-- name: LockResourceKey :exec
-- Serialises, until the transaction ends, writers resolving the same URL or
-- identifier to a page, so one paper found through two URLs at once still
-- becomes one page.
SELECT pg_advisory_xact_lock(hashtextextended(@resource_key::text, 0));

-- name: PageLatestVersion :one
-- A page's URL and the content of its latest version.
SELECT p.id, p.url, pv.id AS version_id, pv.content, pv.fetched_at
FROM pages p
JOIN page_versions pv ON pv.page_id = p.id
WHERE p.id = @page_id
ORDER BY pv.fetched_at DESC, pv.id DESC
LIMIT 1;

-- name: SetPageAcademic :exec
-- Academic metadata of a paper page (from Semantic Scholar / OpenAlex).
UPDATE pages
SET title         = COALESCE(sqlc.narg(title), title),
    year          = COALESCE(sqlc.narg(year), year),
    venue         = COALESCE(sqlc.narg(venue), venue),
    s2_paper_id   = COALESCE(sqlc.narg(s2_paper_id), s2_paper_id),
    openalex_id   = COALESCE(sqlc.narg(openalex_id), openalex_id),
    authors       = CASE WHEN cardinality(@authors::text[]) > 0 THEN @authors::text[] ELSE authors END,
    abstract_only = @abstract_only
WHERE id = @id;

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
