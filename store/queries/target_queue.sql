-- target_queue: the writes of store.WritePage / StorePage /
-- WriteQuerySearch / FailTarget (store/target_queue.go) and the target's own
-- bookkeeping. InsertCitesEdge
-- and AddTaskPage serve citation_graph too; VersionFragments is in embed.sql.

-- name: InsertOrSelectTarget :one
-- A target of the task, inserted on first sight (via 'user': a job whose
-- target nobody registered was inserted by a person or a service), with
-- how it was registered. Call it through EnsureTarget, which runs it again
-- when it returns no row (RetryOnRace).
WITH ins AS (
    INSERT INTO targets (task_id, kind, value) VALUES (@task_id, @kind, @value)
    ON CONFLICT (task_id, kind, value) DO NOTHING
    RETURNING id, status, via
)
SELECT id, status, via FROM ins
UNION ALL
SELECT id, status, via FROM targets WHERE task_id = @task_id AND kind = @kind AND value = @value
LIMIT 1;

-- name: FinishTarget :exec
UPDATE targets
SET status = @status, stage = @stage, page_id = sqlc.narg(page_id), error = sqlc.narg(error), updated_at = now()
WHERE id = @id;

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

-- name: EnsureDomain :exec
-- A domain's row on first sight, at the level the domain policy gives it;
-- a known domain keeps the level of record.
INSERT INTO domains (domain, site, trust_level, category, level_source, level_rule)
VALUES (@domain, @site, @trust_level, lower(@trust_level::text), @level_source, @level_rule)
ON CONFLICT (domain) DO NOTHING;

-- name: DomainTrustLevel :one
-- The level of a domain in the task's organization's view (empty when it
-- has no row yet).
SELECT COALESCE((SELECT effective_trust_level(d.trust_level, o.trust_level) FROM domains d
                 LEFT JOIN org_domain_levels o ON o.domain = d.domain AND o.organization_id = (SELECT tk.organization_id FROM tasks tk WHERE tk.id = @task_id)
                 WHERE d.domain = @domain), '')::text AS trust_level;

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

-- name: InsertFragments :exec
INSERT INTO fragments (page_id, page_version_id, start_char, end_char, text, heading_context)
SELECT @page_id, @page_version_id, unnest(@starts::int[]), unnest(@ends::int[]),
       unnest(@texts::text[]), unnest(@headings::text[])
ON CONFLICT (page_version_id, start_char, end_char) DO NOTHING;

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

-- name: IndexResources :exec
-- Records identifiers for a page; an identifier already owned by another page keeps its first owner.
INSERT INTO resource_index (identifier_type, identifier, page_id)
SELECT unnest(@types::text[]), unnest(@identifiers::text[]), @page_id
ON CONFLICT (identifier_type, identifier) DO NOTHING;

-- name: SetPageIdentifiers :exec
UPDATE pages
SET doi      = COALESCE(sqlc.narg(doi), doi),
    pmid     = COALESCE(sqlc.narg(pmid), pmid),
    arxiv_id = COALESCE(sqlc.narg(arxiv_id), arxiv_id)
WHERE id = @id;

-- name: SetPageDeclaredIdentifiers :exec
-- The ids a page declares about itself, where no verified one is recorded.
UPDATE pages
SET doi      = COALESCE(doi, sqlc.narg(doi)),
    pmid     = COALESCE(pmid, sqlc.narg(pmid)),
    arxiv_id = COALESCE(arxiv_id, sqlc.narg(arxiv_id))
WHERE id = @id;

-- name: PageByResource :one
SELECT page_id FROM resource_index WHERE identifier_type = @identifier_type AND identifier = @identifier;

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

-- name: InsertCitesEdge :execrows
-- citing cites cited; one edge per pair (idx_edges_cites_unique).
INSERT INTO edges (source_type, source_id, target_type, target_id, relation, citation_source)
VALUES ('page', @citing_page_id, 'page', @cited_page_id, 'cites', @citation_source)
ON CONFLICT (source_id, target_id) WHERE relation = 'cites' DO NOTHING;

-- name: ExistingExtractedClaims :many
SELECT id, evidence_no, quote_start, quote_end FROM claims
WHERE task_id = @task_id AND kind = 'extracted' AND page_version_id = @page_version_id;

-- name: InsertExtractedClaims :many
-- E-numbers are allocated by the caller under the task's row lock (LockTask).
INSERT INTO claims (task_id, evidence_no, text, text_hash, kind, origin_fragment_id,
                    page_version_id, quote_start, quote_end, llm_claim_confidence, extractor_model)
SELECT @task_id, unnest(@evidence_nos::int[]), unnest(@texts::text[]), unnest(@text_hashes::text[]),
       'extracted', unnest(@origin_fragment_ids::bigint[]), @page_version_id,
       unnest(@quote_starts::int[]), unnest(@quote_ends::int[]), unnest(@llm_confidences::float8[]),
       @extractor_model::text
ON CONFLICT DO NOTHING
RETURNING id, evidence_no, origin_fragment_id;

-- name: InsertOriginEdges :exec
INSERT INTO edges (source_type, source_id, target_type, target_id, relation, source_domain_category, source_trust_level)
SELECT 'fragment', unnest(@fragment_ids::bigint[]), 'claim', unnest(@claim_ids::bigint[]), 'origin',
       sqlc.narg(domain_category), sqlc.narg(trust_level)
ON CONFLICT (source_id, target_id) WHERE relation = 'origin' DO NOTHING;

-- name: AddTaskPage :one
-- Links a page to the task with how it entered (@reason, its retrieval
-- context: migrations/00019_target_origin.sql) and returns true when the
-- page is new to the task. A page already linked keeps the version the
-- task saw; its origin gives way only to a more direct one (url_target,
-- doi_target, search_query, citation, in that order), so it does not
-- depend on which job wrote first. Its writers hold the task's row lock,
-- so the earlier row, if any, is committed and seen.
WITH prev AS (
    SELECT 1 FROM task_pages known WHERE known.task_id = @task_id AND known.page_id = @page_id
), up AS (
    INSERT INTO task_pages (task_id, page_id, page_version_id, reason, depth, source_page_id, target_id)
    VALUES (@task_id, @page_id, @page_version_id, @reason, @depth, sqlc.narg(source_page_id), sqlc.narg(target_id))
    ON CONFLICT (task_id, page_id) DO UPDATE
    SET reason = EXCLUDED.reason, depth = EXCLUDED.depth,
        source_page_id = EXCLUDED.source_page_id, target_id = EXCLUDED.target_id
    WHERE array_position(ARRAY['url_target', 'doi_target', 'search_query', 'citation'], EXCLUDED.reason)
        < array_position(ARRAY['url_target', 'doi_target', 'search_query', 'citation'], task_pages.reason)
)
SELECT COALESCE(NOT EXISTS (SELECT 1 FROM prev), true)::boolean AS added;

-- name: InsertPageCapture :exec
-- The response a new page version was first seen in (page_captures); a
-- version keeps its first capture.
INSERT INTO page_captures (page_version_id, url, origin, captured_at, status, headers, body, request_headers)
VALUES (@page_version_id, @url, @origin, @captured_at, @status, @headers, @body, sqlc.narg(request_headers))
ON CONFLICT (page_version_id) DO NOTHING;
