-- +goose Up
-- The current ranking of a task's fragments for one query (ARCHITECTURE.md §5.3),
-- written by the rerank job. Task-scoped: one ranking per (task, query); a
-- re-run replaces it in one transaction. Each row keeps the raw score of
-- every stage and the domain trust weight separately: trust adjusts the
-- order only and never enters a claim's posterior. Every row resolves to an
-- exact span of the page version the task saw (ARCHITECTURE.md §5.7): the span is the
-- fragment's own, enforced by the composite foreign key.
CREATE TABLE task_rankings (
    task_id         bigint           NOT NULL REFERENCES tasks (id),
    query_hash      text             NOT NULL, -- rank.QueryHash(query)
    query           text             NOT NULL, -- the effective query (the hypothesis when the job gave none)
    rank            integer          NOT NULL CHECK (rank >= 1),
    fragment_id     bigint           NOT NULL REFERENCES fragments (id),
    page_id         bigint           NOT NULL REFERENCES pages (id),
    page_version_id bigint           NOT NULL REFERENCES page_versions (id),
    start_char      integer          NOT NULL,
    end_char        integer          NOT NULL,
    lexical_score   double precision NOT NULL, -- stage 1: ts_rank of the OR-of-terms query
    cosine          double precision NOT NULL, -- stage 2: cosine of query and fragment embeddings (0 without one)
    stage2_score    double precision NOT NULL, -- w·lexical_norm + (1−w)·cosine
    rerank_score    double precision NOT NULL, -- stage 3: the reranker's raw score
    trust_level     text             NOT NULL, -- the fragment's domain trust level when ranked
    trust_weight    double precision NOT NULL CHECK (trust_weight > 0 AND trust_weight <= 1),
    final_score     double precision NOT NULL, -- rerank score × trust weight (see internal/rank)
    embed_model     text             NOT NULL,
    rerank_model    text             NOT NULL,
    ranked_at       timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (task_id, query_hash, rank),
    UNIQUE (task_id, query_hash, fragment_id),
    FOREIGN KEY (page_version_id, start_char, end_char)
        REFERENCES fragments (page_version_id, start_char, end_char)
);
CREATE INDEX task_rankings_fragment_idx ON task_rankings (fragment_id);

-- +goose Down
DROP TABLE task_rankings;
