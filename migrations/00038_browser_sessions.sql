-- Browser sessions of every kind of token: River UI's login (operator
-- tokens only, checked where the session is used) and the reviewers'
-- console at /ui/ (an organization's token: the session acts for its
-- organization). The table of operator sessions becomes the table of
-- browser sessions; a session's kind and organization are its token's,
-- read through the join every check makes, so a revoked token's sessions
-- end at once as before.

-- +goose Up
ALTER TABLE operator_sessions RENAME TO browser_sessions;
ALTER TABLE browser_sessions RENAME CONSTRAINT operator_sessions_expire_after_creation TO browser_sessions_expire_after_creation;
ALTER INDEX operator_sessions_pkey RENAME TO browser_sessions_pkey;
ALTER INDEX operator_sessions_secret_hash_key RENAME TO browser_sessions_secret_hash_key;
ALTER INDEX operator_sessions_token_id_idx RENAME TO browser_sessions_token_id_idx;
ALTER INDEX operator_sessions_expires_at_idx RENAME TO browser_sessions_expires_at_idx;
ALTER SEQUENCE operator_sessions_id_seq RENAME TO browser_sessions_id_seq;

-- +goose Down
-- an organization's sessions had no place in the old table
DELETE FROM browser_sessions s USING api_tokens t WHERE t.id = s.token_id AND t.kind <> 'operator';
ALTER SEQUENCE browser_sessions_id_seq RENAME TO operator_sessions_id_seq;
ALTER INDEX browser_sessions_expires_at_idx RENAME TO operator_sessions_expires_at_idx;
ALTER INDEX browser_sessions_token_id_idx RENAME TO operator_sessions_token_id_idx;
ALTER INDEX browser_sessions_secret_hash_key RENAME TO operator_sessions_secret_hash_key;
ALTER INDEX browser_sessions_pkey RENAME TO operator_sessions_pkey;
ALTER TABLE browser_sessions RENAME CONSTRAINT browser_sessions_expire_after_creation TO operator_sessions_expire_after_creation;
ALTER TABLE browser_sessions RENAME TO operator_sessions;
