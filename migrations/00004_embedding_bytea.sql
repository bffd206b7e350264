-- +goose Up
-- Embeddings as bytea: 4 bytes per dimension, big-endian IEEE 754 float4 (as
-- float4send writes them), instead of real[]. Half the bytes of real[]'s wire
-- format, and Postgres sends it without calling a send function per element:
-- reading a 10,000-fragment task's embeddings took 200 ms of server time as
-- real[] (see README "Performance"). Ranking stays in Go (ARCHITECTURE.md §5.2).
-- +goose StatementBegin
CREATE FUNCTION evf_float4_array_to_bytea(v real[]) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT COALESCE(string_agg(float4send(x), ''::bytea ORDER BY n), ''::bytea)
    FROM unnest(v) WITH ORDINALITY AS u(x, n)
$$;
-- +goose StatementEnd
ALTER TABLE fragments ALTER COLUMN embedding TYPE bytea USING evf_float4_array_to_bytea(embedding);
DROP FUNCTION evf_float4_array_to_bytea(real[]);
ALTER TABLE fragments ADD CONSTRAINT fragments_embedding_float4 CHECK (embedding IS NULL OR (length(embedding) > 0 AND length(embedding) % 4 = 0));

-- +goose Down
-- Embeddings are recomputable: the down migration drops them (embed jobs
-- fill them again) rather than decoding bytes in SQL.
UPDATE fragments SET embedding = NULL, embed_model = NULL WHERE embed_model IS NOT NULL;
ALTER TABLE fragments DROP CONSTRAINT fragments_embedding_float4;
ALTER TABLE fragments ALTER COLUMN embedding TYPE real[] USING NULL;
