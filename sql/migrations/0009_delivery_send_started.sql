-- A lease covers what is being sent now. send_started_at: when the current
-- attempt was handed to its provider, stamped (with a fresh lease) just
-- before the channel's batch starts; NULL while the row is only claimed. A
-- lease that runs out on a row whose send had started is not sent again
-- blindly (the provider may have it): see delivery/claim_plan.hpp.
-- A nullable column without a default: no table rewrite, a moment's lock.
ALTER TABLE chopar.deliveries ADD COLUMN send_started_at timestamptz;
