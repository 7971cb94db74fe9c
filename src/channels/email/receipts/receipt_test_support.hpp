#pragma once

#include <chrono>
#include <ostream>
#include <string_view>

#include "channels/email/receipts/receipt.hpp"
#include "core/time_format.hpp"

namespace chopar::channels::email::receipts {

// A receipt as gtest prints it when an expectation on it fails.
inline void PrintTo(const EmailReceipt& r, std::ostream* out) {
  *out << "{" << r.provider << ", " << r.provider_message_id << ", " << ReceiptKindName(r.kind)
       << (r.permanent ? " (permanent)" : "") << ", " << r.recipient << ", \"" << r.detail << "\", "
       << core::FormatRfc3339Micros(r.at) << "}";
}

// What the tests of the providers' receipts share: times as the providers
// write them.
namespace testing {

inline core::TimePoint Time(std::string_view rfc3339) {
  return core::ParseRfc3339(rfc3339).value();
}

inline core::TimePoint UnixSeconds(double seconds) {
  return core::TimePoint(std::chrono::duration_cast<core::TimePoint::duration>(
      std::chrono::duration<double>(seconds)));
}

}  // namespace testing
}  // namespace chopar::channels::email::receipts
