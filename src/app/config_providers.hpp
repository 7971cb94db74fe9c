#pragma once

#include <string>
#include <vector>

#include "app/config.hpp"
#include "app/config_binding.hpp"

// The keys of the channels whose provider is chosen from several kinds
// (email, SMS), once as the channel's section and once per entry of its
// [[channels.<channel>.providers]] list. Internal to app/config*.
namespace chopar::app {

// [channels.email]'s keys of `e` in `section`, the provider named by
// `kind_key` ("provider" in the section, "kind" in a list entry).
std::vector<Binding> EmailProviderBindings(const std::string& section, EmailProvider& e,
                                           const std::string& kind_key);
// [channels.sms]'s provider keys, likewise.
std::vector<Binding> SmsProviderBindings(const std::string& section, SmsProvider& s,
                                         const std::string& kind_key);

// [[channels.email.providers]] and [[channels.sms.providers]]: each entry's
// keys (its kind's, and name, weight, failure_threshold, open_seconds and
// the <secret>_file keys), checked against its kind once read.
std::vector<TableList> ProviderLists(Config& c);

// Once the file is read, the keys of every listed entry as section
// "channels.<channel>.providers.<name>": the environment sets them
// (CHOPAR_CHANNELS_EMAIL_PROVIDERS_<NAME>_<KEY>) and their rules are
// checked with the others'.
std::vector<Binding> ListedProviderBindings(Config& c);

// Completes the lists: names unique, a list and the section's `provider`
// not both set, from/timeout_seconds/max_in_flight inherited from the
// section where an entry does not set them, and each <secret>_file read.
// Throws std::runtime_error ("config: …").
void CompleteProviderLists(Config& c);

}  // namespace chopar::app
