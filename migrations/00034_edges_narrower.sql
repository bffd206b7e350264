-- A narrower edges table for the NLI write path: idx_edges_relation_trust
-- (relation, source_trust_level, target_trust_level) served no query (none
-- filters edges by trust level; the cites edges are found through
-- idx_edges_cites_unique) and every verify_nli edge paid for its entry.
--
-- +goose Up
DROP INDEX idx_edges_relation_trust;

-- +goose Down
CREATE INDEX idx_edges_relation_trust ON edges (relation, source_trust_level, target_trust_level);
