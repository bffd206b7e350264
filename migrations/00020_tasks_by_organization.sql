-- +goose Up
-- An organization's tasks newest first (enqueue task list, service.ListTasks):
-- one index range per page, from the cursor's id down, whatever the number
-- of the organization's tasks. It replaces the index on organization_id
-- alone, which it covers.
CREATE INDEX tasks_organization_id_idx ON tasks (organization_id, id);
DROP INDEX tasks_organization_idx;

-- +goose Down
CREATE INDEX tasks_organization_idx ON tasks (organization_id);
DROP INDEX tasks_organization_id_idx;
