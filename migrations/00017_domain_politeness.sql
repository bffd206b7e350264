-- +goose Up
-- Fleet-wide politeness (ARCHITECTURE.md §5.5): one row per domain, which
-- every worker process reserves its fetches against in one statement
-- (store FetchSlot), on the database's clock, so replicas with skewed
-- clocks agree. No foreign key: a domain is reserved before any page of it
-- is stored (its domains row comes with the first page).
CREATE TABLE domain_politeness (
    domain        text        PRIMARY KEY,
    -- No fetch of the domain is granted before next_at: the latest grant
    -- plus the spacing it was granted with.
    next_at       timestamptz NOT NULL,
    -- The end of the turns promised to jobs told to wait: the next waiter
    -- is promised queue_at (at most a horizon ahead), so waiters wake one
    -- after another instead of all at once.
    queue_at      timestamptz NOT NULL,
    day           date        NOT NULL,                          -- the UTC day day_count counts
    day_count     integer     NOT NULL CHECK (day_count >= 0),   -- fetches granted on day
    last_fetch_at timestamptz,                                   -- the latest grant
    -- The answer to the latest reservation: granted, spacing (not the
    -- domain's turn yet) or budget (the day's budget is used up).
    last_answer   text        NOT NULL CHECK (last_answer IN ('granted', 'spacing', 'budget')),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- Every fetch the fleet granted, by the database's clock: what was fetched
-- when, and by which job. A domain's rows older than two days are deleted
-- by its next grant, so the log stays within two days' budget per domain.
CREATE TABLE domain_fetches (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    domain     text        NOT NULL,
    granted_at timestamptz NOT NULL,
    url        text        NOT NULL,
    job_id     bigint
);
CREATE INDEX domain_fetches_domain_granted ON domain_fetches (domain, granted_at);

-- +goose Down
DROP TABLE domain_fetches;
DROP TABLE domain_politeness;
