-- +goose Up
-- The evidence graph (ARCHITECTURE.md §3). Global, reusable across tasks: pages,
-- page_versions, fragments, edges, domains, resource_index. Task-scoped:
-- tasks, task_pages, targets, claims, event_log.

CREATE TABLE tasks (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organization_id  text        NOT NULL DEFAULT 'default',
    hypothesis       text        NOT NULL,
    status           text        NOT NULL DEFAULT 'active'
                     CHECK (status IN ('active', 'stopped', 'completed')),
    budget_class     text        NOT NULL DEFAULT 'standard'
                     CHECK (budget_class IN ('minimal', 'standard', 'deep')),
    next_evidence_no integer     NOT NULL DEFAULT 1 CHECK (next_evidence_no >= 1),
    -- Bumped by every transaction that adds claims or pages to the task;
    -- verify_nli re-checks it before completing so no follow-up is lost.
    work_version     bigint      NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tasks_organization_idx ON tasks (organization_id);

CREATE TABLE domains (
    domain               text PRIMARY KEY,
    trust_level          text        NOT NULL DEFAULT 'UNVERIFIED',
    category             text        NOT NULL DEFAULT 'unverified',
    verification_status  text        NOT NULL DEFAULT 'pending',
    blocked_at           timestamptz,
    block_reason         text,
    cause_id             text,
    original_trust_level text,
    supporting_sources   integer     NOT NULL DEFAULT 0,
    rejection_rate       double precision NOT NULL DEFAULT 0,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pages (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url           text        NOT NULL UNIQUE, -- normalized
    final_url     text,
    domain        text        NOT NULL,
    title         text,
    doi           text,
    pmid          text,
    arxiv_id      text,
    s2_paper_id   text,
    openalex_id   text,
    year          integer,
    venue         text,
    abstract_only boolean     NOT NULL DEFAULT false,
    fetched_at    timestamptz,
    http_status   integer,
    content_type  text,
    error         text,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pages_domain_idx ON pages (domain);

-- A page version is the canonical extracted text of one fetch. It is
-- immutable: every offset in the system points into exactly one version.
CREATE TABLE page_versions (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    page_id    bigint      NOT NULL REFERENCES pages (id),
    sha256     text        NOT NULL,
    content    text        NOT NULL,
    fetched_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (page_id, sha256)
);

-- +goose StatementBegin
CREATE FUNCTION page_versions_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'page_versions rows are immutable (id %)', OLD.id;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER page_versions_no_update BEFORE UPDATE ON page_versions
    FOR EACH ROW EXECUTE FUNCTION page_versions_immutable();

-- Offsets are in characters (Postgres substring semantics), half-open:
-- text = substring(content FROM start_char + 1 FOR end_char - start_char).
CREATE TABLE fragments (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    page_id         bigint   NOT NULL REFERENCES pages (id),
    page_version_id bigint   NOT NULL REFERENCES page_versions (id),
    start_char      integer  NOT NULL,
    end_char        integer  NOT NULL,
    text            text     NOT NULL,
    heading_context text     NOT NULL DEFAULT '',
    tsv             tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED,
    embedding       real[],
    embed_model     text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CHECK (0 <= start_char AND start_char < end_char),
    CHECK ((embedding IS NULL) = (embed_model IS NULL)),
    UNIQUE (page_version_id, start_char, end_char)
);
CREATE INDEX fragments_tsv_idx ON fragments USING gin (tsv);
CREATE INDEX fragments_page_idx ON fragments (page_id);

CREATE TABLE claims (
    id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id              bigint  NOT NULL REFERENCES tasks (id),
    evidence_no          integer NOT NULL CHECK (evidence_no >= 1), -- E-number, stable per task
    text                 text    NOT NULL,
    text_hash            text    NOT NULL,
    kind                 text    NOT NULL CHECK (kind IN ('hypothesis', 'extracted')),
    origin_fragment_id   bigint REFERENCES fragments (id),
    page_version_id      bigint REFERENCES page_versions (id),
    quote_start          integer,
    quote_end            integer,
    llm_claim_confidence double precision,
    adoption_status      text NOT NULL DEFAULT 'pending'
                         CHECK (adoption_status IN ('pending', 'adopted', 'not_adopted')),
    verification_status  text NOT NULL DEFAULT 'pending'
                         CHECK (verification_status IN ('pending', 'verified', 'rejected')),
    -- Cached posterior (ARCHITECTURE.md §5.1); always equal to a recomputation from edges.
    alpha               double precision NOT NULL DEFAULT 1,
    beta                double precision NOT NULL DEFAULT 1,
    confidence          double precision NOT NULL DEFAULT 0.5,
    uncertainty         double precision NOT NULL DEFAULT 0.28867513459481287,
    controversy         double precision NOT NULL DEFAULT 0,
    verdict             text    NOT NULL DEFAULT 'unverified'
                        CHECK (verdict IN ('well_supported', 'supported', 'unverified', 'likely_false', 'contested')),
    supporting_count    integer NOT NULL DEFAULT 0,
    refuting_count      integer NOT NULL DEFAULT 0,
    neutral_count       integer NOT NULL DEFAULT 0,
    independent_sources integer NOT NULL DEFAULT 0,
    evidence_count      integer NOT NULL DEFAULT 0,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (task_id, evidence_no),
    CHECK ((kind = 'extracted') = (origin_fragment_id IS NOT NULL)),
    CHECK ((origin_fragment_id IS NULL) = (page_version_id IS NULL)),
    CHECK ((page_version_id IS NULL) = (quote_start IS NULL) AND (quote_start IS NULL) = (quote_end IS NULL)),
    CHECK (quote_start IS NULL OR (0 <= quote_start AND quote_start < quote_end))
);
CREATE UNIQUE INDEX claims_extracted_span_uniq ON claims (task_id, page_version_id, quote_start, quote_end)
    WHERE kind = 'extracted';
CREATE UNIQUE INDEX claims_hypothesis_text_uniq ON claims (task_id, text_hash)
    WHERE kind = 'hypothesis';

CREATE TABLE edges (
    id                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_type            text   NOT NULL CHECK (source_type IN ('fragment', 'page', 'claim')),
    source_id              bigint NOT NULL,
    target_type            text   NOT NULL CHECK (target_type IN ('claim', 'page')),
    target_id              bigint NOT NULL,
    relation               text   NOT NULL
                           CHECK (relation IN ('origin', 'supports', 'refutes', 'neutral', 'cites')),
    nli_label              text,
    nli_edge_confidence    double precision
                           CHECK (nli_edge_confidence IS NULL OR (nli_edge_confidence >= 0 AND nli_edge_confidence <= 1)),
    nli_model              text,
    source_domain_category text,
    source_trust_level     text,
    target_trust_level     text,
    citation_source        text,
    cause_id               text,
    created_at             timestamptz NOT NULL DEFAULT now()
);
-- One NLI judgement per (fragment, claim) pair, ever.
CREATE UNIQUE INDEX idx_edges_nli_unique ON edges (source_type, source_id, target_type, target_id)
    WHERE source_type = 'fragment' AND target_type = 'claim' AND relation IN ('supports','refutes','neutral');
CREATE UNIQUE INDEX idx_edges_origin_unique ON edges (source_id, target_id)
    WHERE relation = 'origin';
CREATE UNIQUE INDEX idx_edges_cites_unique ON edges (source_id, target_id)
    WHERE relation = 'cites';
CREATE INDEX idx_edges_relation_trust ON edges (relation, source_trust_level, target_trust_level);
CREATE INDEX idx_edges_target ON edges (target_type, target_id);
CREATE INDEX idx_edges_source ON edges (source_type, source_id);

CREATE TABLE resource_index (
    identifier_type text   NOT NULL CHECK (identifier_type IN ('doi', 'pmid', 'arxiv', 'url', 's2', 'openalex')),
    identifier      text   NOT NULL,
    page_id         bigint NOT NULL REFERENCES pages (id),
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (identifier_type, identifier)
);
CREATE INDEX resource_index_page_idx ON resource_index (page_id);

CREATE TABLE task_pages (
    task_id        bigint  NOT NULL REFERENCES tasks (id),
    page_id        bigint  NOT NULL REFERENCES pages (id),
    -- The version the task saw: its fragments are the task's evidence.
    page_version_id bigint REFERENCES page_versions (id),
    reason         text    NOT NULL DEFAULT 'target',
    depth          integer NOT NULL DEFAULT 0,
    source_page_id bigint REFERENCES pages (id),
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (task_id, page_id)
);
CREATE INDEX task_pages_page_idx ON task_pages (page_id);

-- A target is extracted once per task, never again.
CREATE TABLE targets (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id    bigint NOT NULL REFERENCES tasks (id),
    kind       text   NOT NULL CHECK (kind IN ('url', 'query', 'doi')),
    value      text   NOT NULL, -- normalized
    status     text   NOT NULL DEFAULT 'seen' CHECK (status IN ('seen', 'extracted', 'failed')),
    stage      text   NOT NULL DEFAULT 'queued',
    page_id    bigint REFERENCES pages (id),
    error      text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (task_id, kind, value)
);

CREATE TABLE event_log (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id    bigint REFERENCES tasks (id),
    event_type text   NOT NULL,
    payload    jsonb  NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX event_log_task_idx ON event_log (task_id, id);

-- +goose Down
DROP TABLE event_log;
DROP TABLE targets;
DROP TABLE task_pages;
DROP TABLE resource_index;
DROP TABLE edges;
DROP TABLE claims;
DROP TABLE fragments;
DROP TRIGGER page_versions_no_update ON page_versions;
DROP FUNCTION page_versions_immutable();
DROP TABLE page_versions;
DROP TABLE pages;
DROP TABLE domains;
DROP TABLE tasks;
