-- Rechecks of cited sources (ARCHITECTURE.md §5.10): a task's cited pages
-- are fetched again on a schedule, and every cited span is classified
-- against what the page says now. Nothing cited is replaced: a page that
-- changed gets a new page version (with its capture), and every check is
-- kept, so a citation's history reads in order.

-- +goose Up
-- recheck_every: how often the task's cited pages are checked; NULL is the
-- fleet's default (EVF_RECHECK_INTERVAL), 0 never. rechecked_at: when its
-- latest round was started.
ALTER TABLE tasks
    ADD COLUMN recheck_every interval CHECK (recheck_every >= interval '0'),
    ADD COLUMN rechecked_at  timestamptz;

-- One fetch of one cited page for one task's round: what answered.
CREATE TABLE source_checks (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id         bigint      NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    page_id         bigint      NOT NULL REFERENCES pages (id),
    checked_at      timestamptz NOT NULL,
    -- unchanged: a text came (at the address, or after temporary
    -- redirects); moved: after a permanent redirect; gone: 404 or 410;
    -- unreachable: no answer after the retries, or none allowed (robots)
    outcome         text        NOT NULL CHECK (outcome IN ('unchanged', 'moved', 'gone', 'unreachable')),
    http_status     integer,
    final_url       text,
    reason          text,
    -- the version the answer's text is (a new one when the page changed)
    page_version_id bigint      REFERENCES page_versions (id),
    job_id          bigint      NOT NULL,
    CHECK ((page_version_id IS NOT NULL) = (outcome IN ('unchanged', 'moved')))
);
CREATE INDEX source_checks_task_idx ON source_checks (task_id, page_id, id);
CREATE INDEX source_checks_version_idx ON source_checks (page_version_id) WHERE page_version_id IS NOT NULL;
-- a retried job never checks its page twice
CREATE UNIQUE INDEX source_checks_job_idx ON source_checks (job_id, page_id);

-- What became of each cited span of the page at that check.
CREATE TABLE citation_checks (
    check_id        bigint  NOT NULL REFERENCES source_checks (id) ON DELETE CASCADE,
    page_version_id bigint  NOT NULL REFERENCES page_versions (id),
    start_char      integer NOT NULL,
    end_char        integer NOT NULL,
    state           text    NOT NULL CHECK (state IN ('unchanged', 'edited', 'moved', 'gone', 'unreachable')),
    -- where the span's words stand in the check's version
    found_start     integer,
    found_end       integer,
    -- edited: the check's version's text around where the span stood
    around_start    integer,
    around_end      integer,
    PRIMARY KEY (check_id, page_version_id, start_char, end_char),
    CHECK ((found_start IS NULL) = (found_end IS NULL) AND (around_start IS NULL) = (around_end IS NULL))
);
CREATE INDEX citation_checks_span_idx ON citation_checks (page_version_id, start_char, end_char);

-- The spans a task cites: its extracted claims' quotes and the passages of
-- the supporting and refuting NLI edges into its claims (what its evidence
-- export gives as sources). One definition, read by the recheck and the
-- reports of it.
CREATE VIEW task_citations AS
SELECT c.task_id, pv.page_id, c.page_version_id, c.quote_start AS start_char, c.quote_end AS end_char
FROM claims c JOIN page_versions pv ON pv.id = c.page_version_id
WHERE c.kind = 'extracted'
UNION
SELECT c.task_id, f.page_id, f.page_version_id, f.start_char, f.end_char
FROM claims c
JOIN edges e ON e.target_type = 'claim' AND e.target_id = c.id AND e.source_type = 'fragment'
             AND e.relation IN ('supports', 'refutes')
JOIN fragments f ON f.id = e.source_id;

-- The fleet's recheck fetches of each UTC day, against its daily budget
-- (EVF_RECHECK_DAILY_FETCHES).
CREATE TABLE recheck_days (
    day     date    PRIMARY KEY,
    fetches integer NOT NULL CHECK (fetches >= 0)
);

-- +goose Down
DROP TABLE recheck_days;
DROP VIEW task_citations;
DROP TABLE citation_checks;
DROP TABLE source_checks;
ALTER TABLE tasks DROP COLUMN rechecked_at, DROP COLUMN recheck_every;
