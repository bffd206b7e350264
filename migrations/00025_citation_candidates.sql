-- +goose Up
-- A paper's citation-graph candidates (ARCHITECTURE.md §4.6, §5.4),
-- recorded once per page by the first citation_graph job that asks the
-- academic APIs for it, whatever its task: every later task that reaches
-- the page selects among the same candidates, against its own hypothesis,
-- without asking the APIs again. A cache of what the APIs answered: it
-- goes with its page (an orphan sweep deletes both).
--
-- citation_neighborhoods: one row per page whose neighbours were asked
-- for and answered (zero neighbours too); neighbors counts the references
-- and citations reported, merged by DOI; embed_model is the embedder of
-- the stage 1 similarity.
CREATE TABLE citation_neighborhoods (
    page_id     bigint      PRIMARY KEY REFERENCES pages (id) ON DELETE CASCADE,
    neighbors   integer     NOT NULL CHECK (neighbors >= 0),
    embed_model text        NOT NULL,
    fetched_at  timestamptz NOT NULL DEFAULT now()
);

-- citation_candidates: the stage 1 survivors of a page (at most 30), in
-- stage 1 order (position 0 first): whether the page cites the candidate
-- (reference) or the candidate cites the page, Semantic Scholar's
-- isInfluential, the cosine of the page's text and the candidate's title
-- and abstract, the APIs that reported the link ("openalex+semanticscholar")
-- and the paper as the APIs described it (academic.Paper as JSON).
CREATE TABLE citation_candidates (
    page_id     bigint           NOT NULL REFERENCES citation_neighborhoods (page_id) ON DELETE CASCADE,
    position    integer          NOT NULL CHECK (position >= 0),
    reference   boolean          NOT NULL,
    influential boolean          NOT NULL,
    similarity  double precision NOT NULL,
    sources     text             NOT NULL,
    paper       jsonb            NOT NULL,
    PRIMARY KEY (page_id, position)
);

-- +goose Down
DROP TABLE citation_candidates;
DROP TABLE citation_neighborhoods;
