-- +goose Up
-- Bearer tokens of the service API (internal/apitoken): an organization's
-- tokens act for that organization only; operator tokens belong to no
-- organization. Only the SHA-256 of a secret is stored: a secret is 256
-- random bits (crypto/rand), so nobody can guess one whose hash matches,
-- and a fast hash is right — a slow password hash (bcrypt, argon2) exists
-- to protect low-entropy secrets and would only slow every request. The
-- hint is the secret's first 8 characters after its kind prefix, for
-- people to tell their tokens apart; it is not enough to use one.
CREATE TABLE api_tokens (
    id bigserial PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('organization', 'operator')),
    organization_id text CHECK (char_length(organization_id) BETWEEN 1 AND 200),
    name text NOT NULL DEFAULT '' CHECK (char_length(name) <= 200),
    secret_hash bytea NOT NULL UNIQUE CHECK (octet_length(secret_hash) = 32),
    hint text NOT NULL CHECK (char_length(hint) BETWEEN 1 AND 16),
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz,
    last_used_at timestamptz,
    CONSTRAINT api_tokens_organization_by_kind CHECK ((kind = 'organization') = (organization_id IS NOT NULL))
);

-- An organization's tokens in id order (enqueue org token list); the
-- operator tokens are the rows whose organization_id IS NULL, the same
-- index's first range.
CREATE INDEX api_tokens_organization_id_idx ON api_tokens (organization_id, id);

-- +goose Down
DROP TABLE api_tokens;
