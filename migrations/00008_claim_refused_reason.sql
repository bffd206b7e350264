-- +goose Up
-- Why the fleet does not work a claim: its text is longer than a claim may
-- be (jobs.MaxTextRunes), so it cannot be embedded, indexed or judged.
-- verify_nli marks such a claim once and skips it; the task's other claims
-- go on. NULL for every claim the fleet works. Claims enter through
-- internal/intake, which refuses such texts; this catches rows written
-- around it (plain SQL, older versions).
ALTER TABLE claims ADD COLUMN refused_reason text;

-- +goose Down
ALTER TABLE claims DROP COLUMN refused_reason;
