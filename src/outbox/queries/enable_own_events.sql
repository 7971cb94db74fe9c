-- Installs the triggers of chopar's own events when they are missing
-- (migration 0010).
SELECT chopar.enable_own_events()
