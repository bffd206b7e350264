-- +goose Up
-- The registrable domain (eTLD+1 by the Public Suffix List, ident.Site) of
-- each domain: independent sources are counted by site, so that a.evil.com
-- and b.evil.com are one source. Set when the row is made; rows from before
-- this column count as their own site.
ALTER TABLE domains ADD COLUMN site text;

-- +goose Down
ALTER TABLE domains DROP COLUMN site;
