-- +goose Up
-- The NLI unique index, keyed by claim first. verify_nli reads a round's
-- claims' edges (JudgedPairs, ClaimTallies) by target_id; with the fragment
-- first, Postgres scanned every NLI edge of the graph to find them (40,000
-- index entries for 1,000 edges in the bench), a cost that grew with the
-- graph. ON CONFLICT infers the index from its columns and predicate, not
-- their order, so the arbiter of InsertNLIEdges is unchanged. target_type and
-- source_type are constant under the predicate, so they go last.
CREATE UNIQUE INDEX idx_edges_nli_unique_by_claim ON edges (target_id, source_id, target_type, source_type)
    WHERE source_type = 'fragment' AND target_type = 'claim' AND relation IN ('supports','refutes','neutral');
DROP INDEX idx_edges_nli_unique;
ALTER INDEX idx_edges_nli_unique_by_claim RENAME TO idx_edges_nli_unique;

-- +goose Down
CREATE UNIQUE INDEX idx_edges_nli_unique_by_fragment ON edges (source_type, source_id, target_type, target_id)
    WHERE source_type = 'fragment' AND target_type = 'claim' AND relation IN ('supports','refutes','neutral');
DROP INDEX idx_edges_nli_unique;
ALTER INDEX idx_edges_nli_unique_by_fragment RENAME TO idx_edges_nli_unique;
