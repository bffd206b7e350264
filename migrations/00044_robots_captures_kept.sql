-- robots.txt captures are kept while a page capture needs them: a page's
-- capture is exported with the latest robots.txt its origin had at or
-- before it, so the cleanup's orphan sweep deletes a robots.txt capture no
-- page capture falls after and before the origin's next one
-- (DeleteUnneededRobotsCaptures). page_captures gains the origin
-- (scheme://host[:port], as robots_captures has it; the writer sets it from
-- the URL as it sets the robots.txt's), with an index for that question.
-- Rows written before it take it from their URL here.

-- +goose Up
ALTER TABLE page_captures ADD COLUMN origin text;
UPDATE page_captures
SET origin = COALESCE(lower(substring(url from '^([A-Za-z][A-Za-z0-9+.-]*)://')) || '://'
                      || regexp_replace(substring(url from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)'), '^[^@]*@', ''), url);
ALTER TABLE page_captures ALTER COLUMN origin SET NOT NULL;
CREATE INDEX page_captures_origin_idx ON page_captures (origin, captured_at);

-- +goose Down
DROP INDEX page_captures_origin_idx;
ALTER TABLE page_captures DROP COLUMN origin;
