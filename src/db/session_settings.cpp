#include "db/session_settings.hpp"

#include <libpq-fe.h>

#include <stdexcept>

#include "core/c_handle.hpp"

namespace chopar::db {
namespace {

using ConninfoOptions = core::CHandle<PQconninfoOption, PQconninfoFree>;

// A value of a key=value connection string: single-quoted, with backslashes
// and quotes escaped (libpq's own syntax).
std::string Quote(const std::string& value) {
  std::string quoted = "'";
  for (const char c : value) {
    if (c == '\\' || c == '\'') quoted += '\\';
    quoted += c;
  }
  return quoted + "'";
}

// libpq parses a URL or key=value pairs; a bare word is a database name to
// PQconnectdbParams, so it is made one here too.
ConninfoOptions Parse(const std::string& conninfo) {
  const bool bare_name = !conninfo.empty() && conninfo.find('=') == std::string::npos &&
                         conninfo.find("://") == std::string::npos;
  char* error = nullptr;
  PQconninfoOption* parsed =
      PQconninfoParse((bare_name ? "dbname=" + Quote(conninfo) : conninfo).c_str(), &error);
  if (parsed == nullptr) {
    const std::string message = error != nullptr ? error : "out of memory";
    PQfreemem(error);
    throw std::invalid_argument("database connection string does not parse: " + message);
  }
  return ConninfoOptions(parsed);
}

}  // namespace

std::string WithSessionSettings(const std::string& conninfo, const SessionSettings& settings) {
  const ConninfoOptions parsed = Parse(conninfo);
  std::string out;
  std::string options;
  for (const PQconninfoOption* option = parsed.get(); option->keyword != nullptr; ++option) {
    const std::string keyword = option->keyword;
    if (keyword == "options") {
      if (option->val != nullptr) options = option->val;
      continue;
    }
    if (keyword == "connect_timeout" || option->val == nullptr) continue;
    out += keyword + "=" + Quote(option->val) + " ";
  }
  // Later -c settings win, so this one overrides any earlier statement_timeout.
  if (!options.empty()) options += " ";
  options += "-c statement_timeout=" + std::to_string(settings.statement_timeout.count() * 1000);
  out += "connect_timeout=" + Quote(std::to_string(settings.connect_timeout.count())) + " ";
  out += "options=" + Quote(options);
  return out;
}

std::string ConninfoValue(const std::string& conninfo, const std::string& keyword) {
  ConninfoOptions parsed;
  try {
    parsed = Parse(conninfo);
  } catch (const std::invalid_argument&) {
    return "";
  }
  for (const PQconninfoOption* option = parsed.get(); option->keyword != nullptr; ++option) {
    if (keyword == option->keyword) return option->val != nullptr ? option->val : "";
  }
  return "";
}

}  // namespace chopar::db
