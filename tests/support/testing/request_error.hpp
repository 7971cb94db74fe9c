#pragma once

#include <gtest/gtest.h>

#include "core/request_error.hpp"

namespace chopar::testing {

// The core::RequestError that `call()` throws. If it returns instead, the
// test fails and the result is a placeholder error (kUnavailable, message
// and field "accepted") that no expectation of a refusal matches.
template <typename Call>
core::RequestError RequestErrorOf(Call call) {
  try {
    (void)call();
  } catch (const core::RequestError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted; a core::RequestError was expected";
  return core::RequestError(core::ErrorCode::kUnavailable, "accepted", "accepted");
}

}  // namespace chopar::testing
