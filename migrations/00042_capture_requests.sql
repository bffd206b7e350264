-- The request a capture answered: its headers as sent (credentials and
-- cookies left out, at most 64 KiB), "Name: value" lines as the response's
-- headers are; what a WARC request record beside the response holds. NULL
-- for captures made before requests were kept.

-- +goose Up
ALTER TABLE page_captures
    ADD COLUMN request_headers text CHECK (octet_length(request_headers) <= 65536);

-- +goose Down
ALTER TABLE page_captures DROP COLUMN request_headers;
