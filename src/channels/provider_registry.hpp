#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "channels/channel.hpp"
#include "core/channel_kind.hpp"
#include "core/clock.hpp"
#include "db/pool.hpp"
#include "net/http_client.hpp"

namespace chopar::channels {

// One key of a registered provider's configuration section
// ([channels.pager] prefix): read as a string from the file or from
// CHOPAR_<SECTION>_<KEY>.
struct ProviderKey {
  std::string name;           // "prefix": lowercase letters, digits and '_'
  std::string default_value;  // what the factory is given when neither sets it
  std::string doc;            // one line saying what the key is, for its reader
};

// The section's values, as one provider reads them: every key the provider
// registered, with its default where the configuration does not set it.
using ProviderValues = std::map<std::string, std::string>;

// What a provider's factory is given to build its Channel. The references
// outlive the Channel built (they belong to app::ChannelProviders and the
// process's pool and clock), so the Channel may keep them.
struct ProviderContext {
  core::ChannelKind kind;
  std::string section;  // "channels.pager": for the factory's own messages
  ProviderValues values;
  net::HttpClient& http;  // the client every provider shares
  db::Pool& pool;
  const core::Clock& clock;
  std::string public_url;  // [server] public_url: where links to this server start

  // values's entry for `key`. Throws std::invalid_argument for a key the
  // provider did not register (a mistake of the factory's, not the user's).
  [[nodiscard]] const std::string& Value(std::string_view key) const;
};

// Builds a provider. Throws std::invalid_argument for values it cannot
// take (the message names the key, not the section: the caller adds it);
// returns the Channel, owned by the caller from then on, never null.
using ProviderFactory = std::function<std::unique_ptr<Channel>(const ProviderContext&)>;

// A provider of a registered channel, chosen by `provider = "<provider>"` in
// the channel's settings section (core::ChannelInfo::settings_section).
struct ProviderRegistration {
  std::string channel;            // "pager": a channel registered with core::RegisterChannel
  std::string provider;           // "pager": the name `provider` takes to choose it
  std::vector<ProviderKey> keys;  // the other keys of the section it reads
  ProviderFactory factory;
};

// How many providers one process may register.
inline constexpr std::size_t kMaxProviders = 32;

// Adds a provider for a registered channel and returns the copy the
// registry keeps (valid for the life of the process). Like
// core::RegisterChannel, call it before anything reads the configuration
// (the top of main, or a namespace-scope constant of the binary that
// provides it); the registry has no lock.
//
// Throws std::invalid_argument, naming what is wrong, for a channel that is
// not registered or is one of the built-in four (their sections and
// providers are chopar's own), a channel registered without a settings
// section, a provider name that is not lowercase letters, digits and '_'
// (1 to 32, starting with a letter) or is "sink", a key name of the same
// kind that is "provider" or repeated, no factory, or a (channel, provider)
// registered already; std::length_error past kMaxProviders.
const ProviderRegistration& RegisterProvider(ProviderRegistration registration);

// The providers registered for `kind`, in registration order (none for the
// built-in four).
std::vector<const ProviderRegistration*> ProvidersOf(core::ChannelKind kind);

// `kind`'s provider named `provider`, or null.
const ProviderRegistration* FindProvider(core::ChannelKind kind, std::string_view provider);

// The values `registration`'s factory is given for the keys `set` (by the
// file or the environment): each of its keys, set or else its default.
// Throws std::invalid_argument for a key of `set` the provider does not
// read ("key x does not apply to provider y"), naming the keys it reads.
ProviderValues ValuesFor(const ProviderRegistration& registration, const ProviderValues& set);

}  // namespace chopar::channels
