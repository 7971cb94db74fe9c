#include "db/channel_kinds.hpp"

#include <string>
#include <vector>

#include "core/channel_kind.hpp"
#include "db/params.hpp"

namespace chopar::db {
namespace {

// Regenerates both functions from the table when the insert added a kind.
// The names are checked by the table's CHECK (lowercase letters, digits and
// '_'), and quoted by format() all the same.
constexpr const char* kRegister = R"sql(
WITH added AS (
  INSERT INTO chopar.channel_kinds (name) SELECT unnest($1::text[])
  ON CONFLICT (name) DO NOTHING
  RETURNING name
)
SELECT count(*) FROM added
)sql";

constexpr const char* kRegenerate = R"sql(
DO $do$
DECLARE
  names text := (SELECT array_agg(name ORDER BY name)::text FROM chopar.channel_kinds);
BEGIN
  EXECUTE format('CREATE OR REPLACE FUNCTION chopar.known_channel(name text) RETURNS boolean '
                 'LANGUAGE sql IMMUTABLE PARALLEL SAFE AS %L',
                 format('SELECT name = ANY (%L::text[])', names));
  EXECUTE format('CREATE OR REPLACE FUNCTION chopar.known_channels(names text[]) RETURNS boolean '
                 'LANGUAGE sql IMMUTABLE PARALLEL SAFE AS %L',
                 format('SELECT names <@ %L::text[]', names));
END
$do$
)sql";

// A key of its own, beside the migrations' (migrate.cpp).
constexpr const char* kLock = "SELECT pg_advisory_xact_lock(109300197384563)";

}  // namespace

void RegisterChannelKinds(Connection& conn) {
  std::vector<std::string> names;
  for (const core::ChannelKind kind : core::AllChannels()) {
    names.emplace_back(core::ChannelName(kind));
  }
  conn.ExecScript("BEGIN");
  try {
    conn.ExecScript(kLock);
    if (conn.ExecText(kRegister, Params(ArrayLiteral(names))).Int(0, 0) > 0) {
      conn.ExecScript(kRegenerate);
    }
    conn.ExecScript("COMMIT");
  } catch (...) {
    if (!conn.IsBroken()) conn.ExecScript("ROLLBACK");
    throw;
  }
}

}  // namespace chopar::db
