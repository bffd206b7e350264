-- A page's title analysed once, when it is written, instead of once per
-- recall call and per task index build. Recall ranks each fragment with its
-- page title's lexemes: a sentence's subject is often named only in its
-- article's title ("It was the warmest decade…" on the page "2000s
-- (decade)"), so retrieval over passages indexes each passage with its
-- document's title (as DPR's Wikipedia passages, Karpukhin et al. 2020, and
-- the FEVER sentence-retrieval baselines do). Analysing the titles of a
-- task's pages was a sixth of a Postgres recall call at a 10,000-fragment
-- task (store/candidates.go).
-- The column is generated, so every writer of pages keeps it right. Adding
-- it rewrites pages under an exclusive lock: seconds per million pages.

-- +goose Up
ALTER TABLE pages ADD COLUMN title_tsv tsvector NOT NULL
    GENERATED ALWAYS AS (to_tsvector('english'::regconfig, COALESCE(title, ''))) STORED;

-- +goose Down
ALTER TABLE pages DROP COLUMN title_tsv;
