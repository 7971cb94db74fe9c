#include "core/csv_reader.hpp"

#include <utility>

namespace chopar::core {

bool CsvReader::Next(std::vector<std::string>& fields, std::size_t& start_line) {
  std::string line;
  if (!ReadLine(line)) return false;
  start_line = line_;
  fields.clear();
  std::string field;
  std::size_t i = 0;
  bool quoted = false;      // inside a quoted field
  bool was_quoted = false;  // the current field was quoted (only a separator may follow)
  for (;;) {
    if (i == line.size()) {
      if (!quoted) break;
      // A quoted field spans lines: the line break is part of it.
      std::string more;
      if (!ReadLine(more)) throw CsvSyntaxError(start_line, "a quoted field is not closed");
      field += '\n';
      line = std::move(more);
      i = 0;
      continue;
    }
    const char c = line[i++];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i < line.size() && line[i] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
        was_quoted = true;
      }
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
      was_quoted = false;
    } else if (was_quoted) {
      throw CsvSyntaxError(line_, "only a comma may follow a closing quote");
    } else if (c == '"' && field.empty()) {
      quoted = true;
    } else {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return true;
}

bool CsvReader::ReadLine(std::string& line) {
  if (!std::getline(in_, line)) return false;
  ++line_;
  if (line_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

}  // namespace chopar::core
