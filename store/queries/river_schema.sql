-- The part of River's schema that evidencefleet's own queries read. Used by
-- sqlc for type checking only; River's real schema comes from rivermigrate.
CREATE TABLE river_job (
    id           bigserial PRIMARY KEY,
    args         jsonb NOT NULL DEFAULT '{}',
    attempt      smallint NOT NULL DEFAULT 0,
    attempted_at timestamptz,
    attempted_by text[],
    created_at   timestamptz NOT NULL DEFAULT now(),
    errors       jsonb[],
    finalized_at timestamptz,
    kind         text NOT NULL,
    max_attempts smallint NOT NULL,
    metadata     jsonb NOT NULL DEFAULT '{}',
    priority     smallint NOT NULL DEFAULT 1,
    queue        text NOT NULL DEFAULT 'default',
    state        text NOT NULL DEFAULT 'available',
    scheduled_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE river_queue (
    name       text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now(),
    metadata   jsonb NOT NULL DEFAULT '{}',
    paused_at  timestamptz,
    updated_at timestamptz NOT NULL
);
