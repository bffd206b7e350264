-- The worker's connection pool (internal/fleet NewPool).

-- name: SessionTimeouts :one
-- The timeouts of this session in milliseconds (0: none): what a
-- connection through a transaction-mode pooler runs with.
SELECT
    (extract(epoch FROM current_setting('statement_timeout')::interval) * 1000)::bigint AS statement_timeout,
    (extract(epoch FROM current_setting('lock_timeout')::interval) * 1000)::bigint AS lock_timeout,
    (extract(epoch FROM current_setting('idle_in_transaction_session_timeout')::interval) * 1000)::bigint AS idle_in_transaction_session_timeout;
