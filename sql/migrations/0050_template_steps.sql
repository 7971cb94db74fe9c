-- A template's workflow steps (docs/api.md "Workflows with steps"): the
-- PUT body's `steps` as parsed (1..20 step objects), NULL when it has none;
-- stored beside digest, throttle and escalate so that every process's
-- cache parses them again with the template. Nullable without a default:
-- nothing is rewritten, and the CHECK finds only NULLs in a small table.
ALTER TABLE chopar.templates ADD COLUMN IF NOT EXISTS steps jsonb
  CONSTRAINT templates_steps_check
  CHECK (steps IS NULL OR (jsonb_typeof(steps) = 'array' AND jsonb_array_length(steps) BETWEEN 1 AND 20));
ALTER TABLE chopar.tenant_templates ADD COLUMN IF NOT EXISTS steps jsonb
  CONSTRAINT tenant_templates_steps_check
  CHECK (steps IS NULL OR (jsonb_typeof(steps) = 'array' AND jsonb_array_length(steps) BETWEEN 1 AND 20));
