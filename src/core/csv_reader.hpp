#pragma once

#include <cstddef>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace chopar::core {

// A CSV text that is not RFC 4180. what() is the problem; line() is the
// line (counted from 1) where the record starts.
class CsvSyntaxError : public std::runtime_error {
 public:
  CsvSyntaxError(std::size_t line, const std::string& problem)
      : std::runtime_error(problem), line_(line) {}
  [[nodiscard]] std::size_t line() const { return line_; }

 private:
  std::size_t line_;
};

// RFC 4180 records read from `in` one at a time, with the line each starts
// on: comma-separated, fields may be "quoted", "" inside quotes is a quote,
// a quoted field may span lines, CRLF or LF line ends, an optional UTF-8
// byte-order mark. Reads one record's lines at a time (never the whole
// input). `in` must outlive the reader; not thread-safe.
class CsvReader {
 public:
  explicit CsvReader(std::istream& in) : in_(in) {}

  // The next record into `fields` and the line it starts on; false at the
  // end of input. Throws CsvSyntaxError.
  bool Next(std::vector<std::string>& fields, std::size_t& start_line);

 private:
  bool ReadLine(std::string& line);

  std::istream& in_;
  std::size_t line_ = 0;
};

}  // namespace chopar::core
