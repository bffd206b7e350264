-- The console's audit list (internal/service Audit) pages an
-- organization's changes newest first: domain level changes of its view,
-- claim feedback and edge corrections. Each kind gets an index in that
-- order, so a page is an index walk, not a scan of every organization's
-- rows.

-- +goose Up
CREATE INDEX domain_level_changes_org_at ON domain_level_changes (organization_id, at DESC, id DESC) WHERE organization_id IS NOT NULL;
CREATE INDEX claim_feedback_org_at ON claim_feedback (organization_id, at DESC, id DESC) WHERE organization_id IS NOT NULL;
CREATE INDEX edge_feedback_org_at ON edge_feedback (organization_id, at DESC, id DESC) WHERE organization_id IS NOT NULL;

-- +goose Down
DROP INDEX edge_feedback_org_at;
DROP INDEX claim_feedback_org_at;
DROP INDEX domain_level_changes_org_at;
