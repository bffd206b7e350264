-- +goose Up
-- A paper page's authors (from Semantic Scholar / OpenAlex), for the
-- self-citation check of the citation graph (internal/citecheck).
ALTER TABLE pages ADD COLUMN authors text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE pages DROP COLUMN authors;
