-- +goose Up
-- Browser sessions of operators (River UI's login form, internal/api):
-- a session is opened with an operator token and lasts until expires_at,
-- its logout, or its token's revoke — every check joins api_tokens, so a
-- revoked token's sessions end at once. As for tokens, only the SHA-256
-- of the session secret (the cookie, 256 random bits) is stored.
CREATE TABLE operator_sessions (
    id bigserial PRIMARY KEY,
    token_id bigint NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
    secret_hash bytea NOT NULL UNIQUE CHECK (octet_length(secret_hash) = 32),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    CONSTRAINT operator_sessions_expire_after_creation CHECK (expires_at > created_at)
);

-- A token's sessions, newest last (a login keeps the newest few).
CREATE INDEX operator_sessions_token_id_idx ON operator_sessions (token_id, id);

-- Expired sessions, deleted at each login.
CREATE INDEX operator_sessions_expires_at_idx ON operator_sessions (expires_at);

-- +goose Down
DROP TABLE operator_sessions;
