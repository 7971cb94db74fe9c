#pragma once

#include <string>

#include "channels/provider_registry.hpp"

namespace chopar::channels {

// A secret key of a registered provider's section (a token, a private key):
// the value of `key` (from the file or, better, the environment:
// CHOPAR_<SECTION>_<KEY>) or else the contents of the file that `key`_file
// names (a container secret). The file's contents are taken whole, less
// trailing line breaks and spaces: a PEM key keeps its lines. Throws
// std::invalid_argument naming the keys — never the value — when both are
// set, or the file cannot be read or is empty. "" when neither is set.
std::string SecretValue(const ProviderValues& values, const std::string& key);

}  // namespace chopar::channels
