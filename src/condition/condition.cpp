#include "condition/condition.hpp"

#include <utility>

#include "condition/parser.hpp"
#include "condition/program.hpp"

namespace chopar::condition {

SyntaxError::SyntaxError(const std::string& problem, std::size_t position, std::size_t column)
    : std::runtime_error(problem + " at position " + std::to_string(column)),
      problem_(problem),
      position_(position),
      column_(column) {}

Condition::Condition(std::shared_ptr<const detail::Program> program)
    : program_(std::move(program)) {}

Condition Condition::Parse(std::string_view source) {
  auto program = std::make_shared<detail::Program>();
  program->source = std::string(source);
  detail::ParseInto(*program);
  return Condition(std::move(program));
}

bool Condition::Evaluate(const nlohmann::json& context) const noexcept {
  return detail::Evaluate(*program_, context);
}

const std::string& Condition::source() const { return program_->source; }

const std::vector<std::string>& Condition::roots() const { return program_->roots; }

const std::vector<std::string>& Condition::paths() const { return program_->paths; }

}  // namespace chopar::condition
