-- embed: the fragments to embed (SetEmbeddings is store/embeddings.go).

-- name: VersionFragments :many
SELECT id, start_char, end_char, (embedding IS NULL OR embed_model <> @embed_model::text)::boolean AS needs_embedding
FROM fragments WHERE page_version_id = @page_version_id ORDER BY start_char;

-- name: FragmentsToEmbed :many
-- Of the given fragments, those lacking an embedding for the model, with
-- their page's title (a passage is embedded with it, models.PassageModel).
SELECT f.id, f.text, COALESCE(p.title, '')::text AS title
FROM fragments f
JOIN pages p ON p.id = f.page_id
WHERE f.id = ANY(@ids::bigint[]) AND (f.embedding IS NULL OR f.embed_model <> @embed_model::text)
ORDER BY f.id;
