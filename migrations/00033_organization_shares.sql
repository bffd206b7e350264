-- Fair shares between organizations (internal/workers/fairshare.go): while
-- another organization has jobs of a kind waiting, an organization holds at
-- most its share of that kind's running jobs; a job over it snoozes. The
-- share is EVF_ORG_SHARE unless an operator set one for the organization
-- here (enqueue org share).
--
-- +goose Up
CREATE TABLE organization_shares (
    organization_id text PRIMARY KEY CHECK (length(organization_id) BETWEEN 1 AND 200),
    share double precision NOT NULL CHECK (share > 0 AND share <= 1),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- The active tasks of each organization: which organizations have work
-- waiting is asked of these alone, one probe of river_job_evf_task_idx each,
-- however many tasks are finished.
CREATE INDEX tasks_active_organization_idx ON tasks (organization_id, id) WHERE status = 'active';

-- +goose Down
DROP INDEX tasks_active_organization_idx;
DROP TABLE organization_shares;
