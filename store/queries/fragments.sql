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

-- name: CandidateFragmentDetails :many
-- What stage 2 ranks a recalled fragment by (SQL recall path).
SELECT f.id, p.domain, f.embedding
FROM fragments f
JOIN pages p ON p.id = f.page_id
WHERE f.id = ANY(@ids::bigint[]);

-- name: PairFragments :many
-- What a selected pair needs: the premise text and the source domain's trust.
SELECT f.id, f.text,
       COALESCE(d.trust_level, '')::text AS trust_level, COALESCE(d.category, '')::text AS category
FROM fragments f
JOIN pages p ON p.id = f.page_id
LEFT JOIN domains d ON d.domain = p.domain
WHERE f.id = ANY(@ids::bigint[]);

-- name: TaskVerifyState :one
-- What verify_nli reads first: the task's work_version and how many of its
-- fragments there are and still lack an embedding for the model. The three
-- together key the in-memory task index (internal/taskindex).
SELECT t.work_version,
       count(f.id)::bigint AS fragments,
       count(f.id) FILTER (WHERE f.embedding IS NULL OR f.embed_model <> @embed_model::text)::bigint AS not_embedded
FROM tasks t
LEFT JOIN task_pages tp ON tp.task_id = t.id
LEFT JOIN fragments f ON f.page_version_id = tp.page_version_id
WHERE t.id = @task_id
GROUP BY t.id;
