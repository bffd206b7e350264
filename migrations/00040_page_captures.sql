-- The HTTP response each page version was first seen in, as received: the
-- URL it came from (after redirects), when, its status, its headers and
-- its body (Content-Encoding undone; the charset as sent). A version's
-- text is what the fleet cites; its capture is what the web said, kept so
-- that the evidence can be handed to web-archive tools as WARC records
-- and checked against the page later. Written with the version, in the
-- same transaction; never updated.

-- +goose Up
CREATE TABLE page_captures (
    page_version_id bigint      PRIMARY KEY REFERENCES page_versions (id) ON DELETE CASCADE,
    url             text        NOT NULL,
    captured_at     timestamptz NOT NULL,
    status          integer     NOT NULL CHECK (status BETWEEN 100 AND 999),
    -- "Name: value" lines, CRLF-terminated, in name order; hop-by-hop,
    -- encoding and cookie headers left out, at most 64 KiB
    headers         text        NOT NULL CHECK (octet_length(headers) <= 65536),
    body            bytea       NOT NULL
);

-- +goose Down
DROP TABLE page_captures;
