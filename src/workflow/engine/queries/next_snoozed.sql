-- When the earliest snooze ends (NULL: none): one lookup at the start of
-- each partition's notifications_snoozed index.
SELECT min(snoozed_until)::text AS snoozed_until FROM chopar.notifications
WHERE snoozed_until IS NOT NULL
