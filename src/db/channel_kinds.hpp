#pragma once

#include "db/connection.hpp"

namespace chopar::db {

// Records this process's channel kinds (core::AllChannels()) in
// chopar.channel_kinds and, when that adds one, regenerates
// chopar.known_channel(text) and chopar.known_channels(text[]) from the
// table: the CHECK constraints on every channel column call them (migration
// 0027), so the database accepts exactly the kinds some binary has
// registered. Kinds are only ever added: rows of a kind a later binary no
// longer registers stay valid (an update of such a row would otherwise
// fail its CHECK). Serialised across processes by a transaction advisory
// lock; run after Migrate, as every process that opens the database does.
void RegisterChannelKinds(Connection& conn);

}  // namespace chopar::db
