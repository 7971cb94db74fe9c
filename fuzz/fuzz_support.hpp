#pragma once

// What the fuzz targets share: the input as text, and a check that stops the
// run (abort: libFuzzer records the input) when an invariant fails.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace chopar::fuzz {

inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// An invariant of the code under test; a failure is a finding, like a crash.
inline void Require(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "invariant broken: %s\n", what);
  std::abort();
}

}  // namespace chopar::fuzz
