-- Tokens with a lifetime: every API token is over at expires_at (a
-- token past it authenticates no more, as a revoked one). Tokens are made
-- with EVF_API_TOKEN_TTL (at most EVF_API_TOKEN_MAX_TTL) and rotated with
-- `enqueue org token rotate ID --grace D`, which sets the old token's
-- expires_at to now + D. The tokens of before this migration get the
-- default lifetime from now on (90 days): none lives for ever, and none
-- breaks a client on the day of the upgrade. The column's default is the
-- same 90 days, for a row made by hand or by an enqueue of before.
--
-- api_event_streams rows are leases from now on (a few seconds, renewed
-- by the open stream; internal/apiserver), in the same column expires_at:
-- no schema change.

-- +goose Up
ALTER TABLE api_tokens ADD COLUMN expires_at timestamptz NOT NULL DEFAULT now() + interval '90 days';

-- +goose Down
ALTER TABLE api_tokens DROP COLUMN expires_at;
