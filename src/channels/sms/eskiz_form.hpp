#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>

namespace chopar::channels::sms {

// The form encodings Eskiz speaks. Pure functions, thread-safe.

struct FormField {
  std::string name;
  std::string value;
};

// A multipart/form-data body (RFC 7578) and its Content-Type header value
// ("multipart/form-data; boundary=..."). The boundary is random (OpenSSL)
// and checked not to occur in any value.
struct MultipartForm {
  std::string content_type;
  std::string body;
};
MultipartForm BuildMultipartForm(std::span<const FormField> fields);

// The fields of a form body: multipart/form-data (recognised by its first
// line, "--boundary") or application/x-www-form-urlencoded ('+' and %XX
// decoded). A repeated name keeps its first value. Malformed parts are
// skipped; never throws.
std::map<std::string, std::string> ParseFormFields(std::string_view body);

}  // namespace chopar::channels::sms
