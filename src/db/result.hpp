#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/c_handle.hpp"

namespace chopar::db {

// The rows of one statement, text format. Move-only owner of the PGresult.
// Accessors throw std::out_of_range for a bad column name and
// std::invalid_argument when a value does not convert.
class Result {
 public:
  explicit Result(PGresult* result) : result_(result) {}

  [[nodiscard]] ExecStatusType Status() const { return PQresultStatus(result_.get()); }
  // Gives up ownership of the PGresult (to Connection's error check).
  [[nodiscard]] PGresult* Release() { return result_.release(); }
  [[nodiscard]] int Rows() const { return PQntuples(result_.get()); }
  [[nodiscard]] bool Empty() const { return Rows() == 0; }
  [[nodiscard]] int Columns() const { return PQnfields(result_.get()); }
  // The number of rows an INSERT/UPDATE/DELETE touched.
  [[nodiscard]] std::int64_t AffectedRows() const;
  // Column index by name.
  [[nodiscard]] int Column(const char* name) const;

  [[nodiscard]] bool IsNull(int row, int col) const {
    return PQgetisnull(result_.get(), row, col) != 0;
  }
  [[nodiscard]] std::string_view Text(int row, int col) const {
    return {PQgetvalue(result_.get(), row, col),
            static_cast<std::size_t>(PQgetlength(result_.get(), row, col))};
  }
  [[nodiscard]] std::string String(int row, int col) const { return std::string(Text(row, col)); }
  [[nodiscard]] std::int64_t Int(int row, int col) const;
  [[nodiscard]] double Double(int row, int col) const;
  [[nodiscard]] bool Bool(int row, int col) const { return Text(row, col) == "t"; }

  [[nodiscard]] std::optional<std::string> OptString(int row, int col) const {
    if (IsNull(row, col)) return std::nullopt;
    return String(row, col);
  }
  [[nodiscard]] std::optional<std::int64_t> OptInt(int row, int col) const {
    if (IsNull(row, col)) return std::nullopt;
    return Int(row, col);
  }

  // The same accessors by column name.
  [[nodiscard]] std::string_view Text(int row, const char* col) const { return Text(row, Column(col)); }
  [[nodiscard]] std::string String(int row, const char* col) const { return String(row, Column(col)); }
  [[nodiscard]] std::int64_t Int(int row, const char* col) const { return Int(row, Column(col)); }
  [[nodiscard]] double Double(int row, const char* col) const { return Double(row, Column(col)); }
  [[nodiscard]] bool Bool(int row, const char* col) const { return Bool(row, Column(col)); }
  [[nodiscard]] bool IsNull(int row, const char* col) const { return IsNull(row, Column(col)); }
  [[nodiscard]] std::optional<std::string> OptString(int row, const char* col) const {
    return OptString(row, Column(col));
  }
  [[nodiscard]] std::optional<std::int64_t> OptInt(int row, const char* col) const {
    return OptInt(row, Column(col));
  }

 private:
  core::CHandle<PGresult, PQclear> result_;
};

}  // namespace chopar::db
