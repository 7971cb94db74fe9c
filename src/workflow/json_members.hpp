#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "core/request_error.hpp"

namespace chopar::workflow {

// One settings object under its name ("digest", "steps[2]"): field names in
// errors are "<name>.<member>". Holds a reference to the object.
class Members {
 public:
  Members(const nlohmann::json& object, std::string name, std::span<const std::string_view> known)
      : object_(object), name_(std::move(name)) {
    for (const auto& [member, value] : object.items()) {
      if (std::ranges::find(known, member) == known.end())
        throw core::InvalidField(Field(member), "unknown member " + Field(member));
    }
  }
  Members(const nlohmann::json& object, std::string name,
          std::initializer_list<std::string_view> known)
      : Members(object, std::move(name),
                std::span<const std::string_view>(known.begin(), known.size())) {}

  [[nodiscard]] std::string Field(std::string_view member) const {
    return name_ + "." + std::string(member);
  }

  [[nodiscard]] const nlohmann::json* Find(std::string_view member) const {
    const auto it = object_.find(member);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }

  // An integer in [low, high]; `fallback` when absent, required without one.
  [[nodiscard]] int Int(std::string_view member, int low, int high,
                        std::optional<int> fallback = std::nullopt) const {
    const nlohmann::json* value = Find(member);
    if (value == nullptr) {
      if (fallback) return *fallback;
      throw core::InvalidField(Field(member), Field(member) + " is required");
    }
    if (!value->is_number_integer() || value->get<std::int64_t>() < low ||
        value->get<std::int64_t>() > high) {
      throw core::InvalidField(Field(member), Field(member) + " must be an integer from " +
                                                  std::to_string(low) + " to " +
                                                  std::to_string(high));
    }
    return static_cast<int>(value->get<std::int64_t>());
  }

 private:
  const nlohmann::json& object_;
  std::string name_;
};

}  // namespace chopar::workflow
