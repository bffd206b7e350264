-- +goose Up
-- The model that extracted a claim (its id names the prompt version), so that
-- every exported judgement names what produced it. NULL for hypotheses and
-- for claims stored before this column existed.
ALTER TABLE claims ADD COLUMN extractor_model text;

-- +goose Down
ALTER TABLE claims DROP COLUMN extractor_model;
