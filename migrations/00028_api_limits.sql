-- The API's request rate and event-stream limits, shared by every API
-- replica: one token bucket per key (an organization token: "token:<id>"),
-- refilled on the database clock, and the open event streams of each key,
-- each with the time it is over by at the latest (a replica that dies
-- holding a stream leaves its row, which stops counting then).

-- +goose Up
CREATE TABLE api_rate_buckets (
    key text PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 200),
    tokens float8 NOT NULL,
    taken boolean NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE TABLE api_event_streams (
    id bigserial PRIMARY KEY,
    key text NOT NULL CHECK (length(key) BETWEEN 1 AND 200),
    opened_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX api_event_streams_key_idx ON api_event_streams (key, expires_at);

-- +goose Down
DROP TABLE api_event_streams;
DROP TABLE api_rate_buckets;
