-- A task's own full-text index, for recall through Postgres (tasks over
-- verify_nli's in-memory index budget): each fragment of the task's page
-- versions with its lexemes and its page title's, under a GIN index on
-- (task_id, tsv) (btree_gin puts the task's id in the same index), so that
-- a claim's query finds the task's matches without reading the task's
-- other fragments or the graph's other matches (store/candidates.go). It is
-- filled when a recall call first needs it and brought up to the
-- task's work_version by the next one after pages join the task
-- (RefreshTaskTerms); rows of page versions that left the task stay until
-- the task's cleanup, and recall leaves them out by the task's page versions.
-- task_terms_states holds the work_version each task's rows were made at.
-- The index takes rows straight into its tree (fastupdate off): a task's
-- rows come in bursts that would otherwise wait in the index's pending
-- list, which every search reads whole, until a vacuum.
-- A page's title is taken when its version's rows are made.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE TABLE task_fragment_terms (
    task_id         bigint   NOT NULL,
    page_id         bigint   NOT NULL,
    page_version_id bigint   NOT NULL,
    fragment_id     bigint   NOT NULL,
    domain          text     NOT NULL,
    tsv             tsvector NOT NULL,
    PRIMARY KEY (task_id, page_version_id, fragment_id)
);
CREATE INDEX task_fragment_terms_tsv_idx ON task_fragment_terms USING gin (task_id, tsv) WITH (fastupdate = off);

CREATE TABLE task_terms_states (
    task_id      bigint PRIMARY KEY,
    work_version bigint NOT NULL
);

-- +goose Down
DROP TABLE task_terms_states;
DROP TABLE task_fragment_terms;
