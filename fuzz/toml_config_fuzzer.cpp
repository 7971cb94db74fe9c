// The configuration file: any text loads or is refused with a
// std::runtime_error whose message starts "config: "; nothing else escapes,
// and a configuration that loads passes its own checks.
#include <string>

#include "app/config.hpp"
#include "fuzz_support.hpp"

using namespace chopar;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const app::Config config = app::LoadConfigText(fuzz::AsText(data, size), {});
    fuzz::Require(config.database.pool_size > 0, "pool_size positive");
    fuzz::Require(config.server.http.handler_threads > 0, "handler_threads positive");
  } catch (const std::runtime_error& e) {
    fuzz::Require(std::string(e.what()).rfind("config: ", 0) == 0, "refusals start with config:");
  }
  return 0;
}
