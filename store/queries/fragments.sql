-- name: InsertFragments :exec
INSERT INTO fragments (page_id, page_version_id, start_char, end_char, text, heading_context)
SELECT @page_id, @page_version_id, unnest(@starts::int[]), unnest(@ends::int[]),
       unnest(@texts::text[]), unnest(@headings::text[])
ON CONFLICT (page_version_id, start_char, end_char) DO NOTHING;

-- name: VersionFragments :many
SELECT id, start_char, end_char, (embedding IS NULL OR embed_model <> @embed_model::text)::boolean AS needs_embedding
FROM fragments WHERE page_version_id = @page_version_id ORDER BY start_char;

-- name: FragmentsToEmbed :many
-- Of the given fragments, those lacking an embedding for the model.
SELECT id, text FROM fragments
WHERE id = ANY(@ids::bigint[]) AND (embedding IS NULL OR embed_model <> @embed_model::text)
ORDER BY id;

-- name: CountTaskFragmentsNotEmbedded :one
SELECT count(*) FROM task_pages tp
JOIN fragments f ON f.page_version_id = tp.page_version_id
WHERE tp.task_id = @task_id AND (f.embedding IS NULL OR f.embed_model <> @embed_model::text);

-- name: CandidateFragmentDetails :many
SELECT f.id, f.page_id, p.domain, f.text, f.embedding,
       COALESCE(d.trust_level, '')::text AS trust_level, COALESCE(d.category, '')::text AS category
FROM fragments f
JOIN pages p ON p.id = f.page_id
LEFT JOIN domains d ON d.domain = p.domain
WHERE f.id = ANY(@ids::bigint[]);
