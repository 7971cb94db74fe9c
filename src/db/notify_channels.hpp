#pragma once

namespace chopar::db {

// The PostgreSQL NOTIFY channels chopar uses, each named once for the C++
// code. The SQL that sends them spells the same names as literals (a NOTIFY
// inside a statement costs no round trip that way); the files are listed
// with each name, and tests check that they agree.

// Wakes delivery workers: deliveries were queued. Payload: empty.
// Sent by src/hub/queries/insert_notifications.sql and
// src/console/queries/requeue_delivery.sql.
inline constexpr const char* kDeliveriesChannel = "chopar_deliveries";

// Wakes the inbox streams of some users: notifications were created or
// changed. Payload: comma-separated user ids or ranges of them ("5-2004"),
// or "*" for everyone; or a JSON object that carries a change of the state
// of one user's inbox items (hub::InboxStateWakes).
// Sent by src/hub/queries/insert_notifications.sql and
// src/hub/queries/wake_inbox.sql.
inline constexpr const char* kInboxChannel = "chopar_inbox";

// Wakes schedulers: the earliest next_fire_at may have moved. Payload: empty.
// Sent by src/schedule/queries/notify_schedulers.sql.
inline constexpr const char* kSchedulesChannel = "chopar_schedules";

// Refreshes the template caches of every process: a template was stored or
// deleted. Payload: its type. Sent by src/templates/queries/put_template.sql
// and src/templates/queries/delete_template.sql.
inline constexpr const char* kTemplatesChannel = "chopar_templates";
// Refresh the layout and partial caches of every process: a layout or a
// partial was stored or deleted. Payload: its key, or "<tenant>/<key>" for
// a tenant's own. Sent by the tables' triggers (migration 0047).
inline constexpr const char* kLayoutsChannel = "chopar_layouts";
inline constexpr const char* kPartialsChannel = "chopar_partials";
// Wakes outbox relays: events were written to chopar.outbox (in chopar's own
// database or an application's). Payload: empty. Sent by the trigger
// chopar.outbox_wake of sql/migrations/0010_outbox.sql.
inline constexpr const char* kOutboxChannel = "chopar_outbox";

// Wakes broadcast fan-out loops: a broadcast was created. Payload: its id.
// Sent by src/broadcast/queries/insert_broadcast.sql.
inline constexpr const char* kBroadcastsChannel = "chopar_broadcasts";

// Wakes the releasers of delayed notifications: one was asked for, so the
// earliest due_at may have moved. Payload: empty. Sent by
// src/hub/queries/insert_delayed.sql.
inline constexpr const char* kDelayedChannel = "chopar_delayed";

// Wakes the digest closers: a digest window opened, or closes earlier.
// Payload: empty. Sent by src/workflow/queries/write_digests.sql.
inline constexpr const char* kDigestsChannel = "chopar_digests";

// Wakes the snooze returners: a snooze was set, so the earliest
// snoozed_until may have moved. Payload: empty. Sent by
// src/hub/queries/wake_snooze_returners.sql.
inline constexpr const char* kSnoozesChannel = "chopar_snoozes";

// Wakes the workflow step advancers: a run was created or became due (a
// step's delivery ended). Payload: empty. Sent by insert_notifications.sql
// and the deliveries trigger of migration 0049.
inline constexpr const char* kWorkflowsChannel = "chopar_workflows";

// Wakes the erasure loops: a user's erasure was asked for. Payload: empty.
// Sent by src/hub/queries/request_erasures.sql.
inline constexpr const char* kErasuresChannel = "chopar_erasures";

}  // namespace chopar::db
