-- When the earliest active workflow run is due (NULL: none): one lookup
-- at the start of workflow_runs_due.
SELECT min(due_at)::text AS due_at FROM chopar.workflow_runs WHERE status = 'active'
