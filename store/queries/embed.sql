-- embed: the fragments to embed (SetEmbeddings is store/embeddings.go).

-- name: VersionFragments :many
SELECT id, start_char, end_char, (embedding IS NULL OR embed_model <> @embed_model::text)::boolean AS needs_embedding
FROM fragments WHERE page_version_id = @page_version_id ORDER BY start_char;

-- name: FragmentsToEmbed :many
-- Of the given fragments, those lacking an embedding for the model.
SELECT id, text FROM fragments
WHERE id = ANY(@ids::bigint[]) AND (embedding IS NULL OR embed_model <> @embed_model::text)
ORDER BY id;
