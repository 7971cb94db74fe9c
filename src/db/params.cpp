#include "db/params.hpp"

namespace chopar::db::detail {

void AppendQuotedArrayElement(std::string& out, std::string_view text) {
  out += '"';
  std::size_t from = 0;
  for (std::size_t special = text.find_first_of("\"\\"); special != std::string_view::npos;
       special = text.find_first_of("\"\\", special + 1)) {
    out.append(text.substr(from, special - from));
    out += '\\';
    from = special;
  }
  out.append(text.substr(from));
  out += '"';
}

}  // namespace chopar::db::detail
