#include "db/result.hpp"

#include <charconv>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace chopar::db {

std::int64_t Result::AffectedRows() const {
  const char* tuples = PQcmdTuples(result_.get());
  return (tuples == nullptr || *tuples == '\0') ? 0 : std::stoll(tuples);
}

int Result::Column(const char* name) const {
  // Hot loops read every row by column name. PQfnumber copies and case-folds
  // the name on each call (a malloc per field read); an exact match against
  // the result's own column names needs none, and is what our lower-case
  // aliases always hit. PQfnumber keeps its semantics for anything else.
  // strcmp, not string_view equality: most names differ in their first
  // character, and comparing them needs no length of either.
  const int columns = PQnfields(result_.get());
  for (int col = 0; col < columns; ++col) {
    if (std::strcmp(name, PQfname(result_.get(), col)) == 0) return col;
  }
  const int col = PQfnumber(result_.get(), name);
  if (col < 0) throw std::out_of_range(std::string("no column named ") + name);
  return col;
}

std::int64_t Result::Int(int row, int col) const {
  const std::string_view text = Text(row, col);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw std::invalid_argument("not an integer: " + std::string(text));
  }
  return value;
}

double Result::Double(int row, int col) const { return std::stod(String(row, col)); }

}  // namespace chopar::db
