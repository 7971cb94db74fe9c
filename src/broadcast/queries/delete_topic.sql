-- Deletes topic $1 and its subscriptions (ON DELETE CASCADE); with $2, a
-- key confined to tenant $2, only a topic of that tenant. Broadcasts
-- already running to it stop at their next batch: no subscriber is left.
DELETE FROM chopar.topics WHERE key = $1 AND ($2::text IS NULL OR tenant = $2::text)
