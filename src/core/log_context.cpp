#include "core/log_context.hpp"

#include <algorithm>

namespace chopar::core {
namespace {

struct ThreadFields {
  std::vector<LogField> stack;  // every live scope, oldest first
  std::vector<LogField> view;   // one per key, rebuilt on change
  void Rebuild() {
    view.clear();
    for (const LogField& field : stack) {
      const auto same = std::find_if(view.begin(), view.end(),
                                     [&](const LogField& f) { return f.key == field.key; });
      if (same == view.end()) {
        view.push_back(field);
      } else {
        same->value = field.value;
      }
    }
  }
};

ThreadFields& Fields() {
  thread_local ThreadFields fields;
  return fields;
}

}  // namespace

LogScope::LogScope(std::string_view key, std::string value) {
  ThreadFields& fields = Fields();
  fields.stack.push_back({key, std::move(value)});
  fields.Rebuild();
}

LogScope::~LogScope() {
  ThreadFields& fields = Fields();
  fields.stack.pop_back();
  fields.Rebuild();
}

const std::vector<LogField>& CurrentLogFields() { return Fields().view; }

}  // namespace chopar::core
