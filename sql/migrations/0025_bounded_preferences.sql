-- A user's preferences are read by every notification to them, so their
-- size is bounded: the API stores at most 16 KiB of compact JSON
-- (src/hub/preferences.hpp); PostgreSQL's text form of the same value adds a
-- space after each ':' and ',', so the last layer here allows twice that.
-- jsonb_typeof = 'object' is 0001's own CHECK, kept.
--
-- NOT VALID: the rows already stored are not read (no scan of users under
-- the migration's lock) and a row stored before the bound is not refused;
-- every row written from now on is checked, so such a row is written again
-- only once its preferences are cleared ("preferences": null) or their
-- oversized members removed (each set to null).
ALTER TABLE chopar.users
  ADD CONSTRAINT users_preferences_bounded
  CHECK (octet_length(preferences::text) <= 32768) NOT VALID;
