-- The robots.txt responses the fleet read from the web while fetching
-- pages it keeps (what allowed, or paced, those fetches), as received:
-- URL, time, status, the headers a capture keeps, the body (at most
-- 512 KiB: a longer one is cut by the fetcher and not kept) and the
-- request's headers. Written with the page (or the recheck) whose fetch
-- read it; never updated; the WARC export of a task writes, for each of
-- its captured pages, the latest robots.txt of the page's origin read at
-- or before it.

-- +goose Up
CREATE TABLE robots_captures (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    origin          text        NOT NULL, -- scheme://host[:port]
    url             text        NOT NULL,
    captured_at     timestamptz NOT NULL,
    status          integer     NOT NULL CHECK (status BETWEEN 100 AND 999),
    headers         text        NOT NULL CHECK (octet_length(headers) <= 65536),
    body            bytea       NOT NULL CHECK (octet_length(body) <= 524288),
    request_headers text        CHECK (octet_length(request_headers) <= 65536),
    UNIQUE (url, captured_at)
);
CREATE INDEX robots_captures_origin_idx ON robots_captures (origin, captured_at);

-- +goose Down
DROP TABLE robots_captures;
