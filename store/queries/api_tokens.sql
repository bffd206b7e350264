-- Bearer tokens of the service API (internal/apitoken). No statement reads
-- or returns a secret: the table holds its SHA-256 only.

-- name: CreateAPIToken :one
-- A new token: an organization's (organization_id set) or an operator's
-- (NULL); the table's CHECK keeps kind and organization_id agreeing. It is
-- over @lifetime_s seconds from now, on the database clock.
INSERT INTO api_tokens (kind, organization_id, name, secret_hash, hint, expires_at)
SELECT @kind, sqlc.narg(organization_id), @name, @secret_hash, @hint, now() + make_interval(secs => @lifetime_s::float8)
RETURNING id, kind, organization_id, name, hint, created_at, revoked_at, last_used_at, expires_at;

-- name: OrgAPITokens :many
-- The organization's tokens, revoked ones included, oldest first.
SELECT id, kind, organization_id, name, hint, created_at, revoked_at, last_used_at, expires_at
FROM api_tokens
WHERE organization_id = @organization_id
ORDER BY id;

-- name: OperatorAPITokens :many
-- The operator tokens, revoked ones included, oldest first.
SELECT id, kind, organization_id, name, hint, created_at, revoked_at, last_used_at, expires_at
FROM api_tokens
WHERE organization_id IS NULL
ORDER BY id;

-- name: RevokeAPIToken :one
-- Revokes token id of the organization (organization_id NULL: an operator
-- token). Another organization's token, or an operator's when an
-- organization asks, is no row, as one that does not exist. Revoking a
-- revoked token keeps its first revoked_at; was_revoked says it was. The
-- row is locked before it is read, so two revokes agree on the time.
WITH target AS (
    SELECT t.id, t.revoked_at
    FROM api_tokens t
    WHERE t.id = @id AND t.organization_id IS NOT DISTINCT FROM sqlc.narg(organization_id)
    FOR UPDATE
)
UPDATE api_tokens a
SET revoked_at = COALESCE(target.revoked_at, now())
FROM target
WHERE a.id = target.id
RETURNING a.id, a.kind, a.organization_id, a.name, a.hint, a.created_at, a.revoked_at, a.last_used_at, a.expires_at,
          (target.revoked_at IS NOT NULL)::bool AS was_revoked;

-- name: AuthenticateAPIToken :one
-- The live (unrevoked, unexpired) token whose secret hashes to secret_hash, in one
-- round trip with recording its use: last_used_at is written when it is
-- unset or over a minute old, so a token used on every request is written
-- about once a minute, not once a request. A revoke committed before the
-- statement starts is seen: nothing is cached.
WITH token AS (
    SELECT t.id, t.kind, t.organization_id
    FROM api_tokens t
    WHERE t.secret_hash = @secret_hash AND t.revoked_at IS NULL AND t.expires_at > now()
), used AS (
    UPDATE api_tokens a
    SET last_used_at = now()
    FROM token
    WHERE a.id = token.id AND a.revoked_at IS NULL
      AND (a.last_used_at IS NULL OR a.last_used_at < now() - interval '1 minute')
    RETURNING a.id
)
SELECT token.id, token.kind, COALESCE(token.organization_id, '')::text AS organization_id
FROM token;

-- name: LiveAPIToken :one
-- Whether token id is still live (unrevoked, unexpired) on the database
-- clock: an open event stream asks every few seconds, by primary key.
SELECT EXISTS (
    SELECT 1 FROM api_tokens WHERE id = @id AND revoked_at IS NULL AND expires_at > now()
)::bool AS live;

-- name: LockAPITokenForRotation :one
-- Token id of the organization (organization_id NULL: an operator token),
-- locked until commit, for a rotation: another organization's token is no
-- row, as one that does not exist.
SELECT id, kind, organization_id, name, hint, created_at, revoked_at, last_used_at, expires_at
FROM api_tokens
WHERE id = @id AND organization_id IS NOT DISTINCT FROM sqlc.narg(organization_id)
FOR UPDATE;

-- name: ExpireAPITokenWithin :one
-- Brings token id's end forward to @grace_s seconds from now (never later
-- than it was): the old token of a rotation keeps working for the grace.
UPDATE api_tokens
SET expires_at = LEAST(expires_at, now() + make_interval(secs => @grace_s::float8))
WHERE id = @id
RETURNING expires_at;
