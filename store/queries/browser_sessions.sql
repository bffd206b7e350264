-- Browser sessions (internal/apitoken): River UI's login and the console's.
-- No statement reads or returns a secret: the table holds its SHA-256 only.

-- name: CreateBrowserSession :one
-- A session of token @token_id for @ttl_s seconds from now on the database
-- clock, only if that token is live (no row otherwise, as for an unknown
-- token: the check and the insert are one statement, so a revoke cannot
-- slip between them).
WITH params AS (
    SELECT @token_id::bigint AS token_id, @secret_hash::bytea AS secret_hash, @ttl_s::float8 AS ttl_s
)
INSERT INTO browser_sessions (token_id, secret_hash, expires_at)
SELECT t.id, p.secret_hash, now() + make_interval(secs => p.ttl_s)
FROM params p
JOIN api_tokens t ON t.id = p.token_id
WHERE t.revoked_at IS NULL AND t.expires_at > now()
RETURNING id, expires_at;

-- name: PruneBrowserSessions :exec
-- Deletes every expired session, and the sessions of token @token_id
-- beyond its newest @keep: a token's logins cannot pile up.
DELETE FROM browser_sessions s
WHERE s.expires_at <= now()
   OR (s.token_id = @token_id AND s.id NOT IN (
        SELECT k.id FROM browser_sessions k
        WHERE k.token_id = @token_id
        ORDER BY k.id DESC
        LIMIT @keep));

-- name: AuthenticateBrowserSession :one
-- The token of the unexpired session whose secret hashes to @secret_hash,
-- its kind, organization and name, if that token is live (not revoked),
-- recording the token's use as AuthenticateAPIToken does. No row for an
-- unknown or expired session or a revoked token: revoking a token ends
-- its sessions.
WITH session AS (
    SELECT t.id AS token_id, t.kind, t.organization_id, t.name
    FROM browser_sessions s
    JOIN api_tokens t ON t.id = s.token_id
    WHERE s.secret_hash = @secret_hash AND s.expires_at > now()
      AND t.revoked_at IS NULL AND t.expires_at > now()
), used AS (
    UPDATE api_tokens a
    SET last_used_at = now()
    FROM session
    WHERE a.id = session.token_id AND a.revoked_at IS NULL AND a.expires_at > now()
      AND (a.last_used_at IS NULL OR a.last_used_at < now() - interval '1 minute')
    RETURNING a.id
)
SELECT session.token_id, session.kind, session.organization_id, session.name FROM session;

-- name: DeleteBrowserSession :exec
-- Ends the session whose secret hashes to @secret_hash (a logout).
DELETE FROM browser_sessions WHERE secret_hash = @secret_hash;
