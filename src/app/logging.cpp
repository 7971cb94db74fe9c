#include "app/logging.hpp"

#include <spdlog/cfg/helpers.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/log_context.hpp"
#include "core/redact.hpp"

namespace chopar::app {
namespace {

// Text lines: the message with the credentials in it redacted.
class RedactedMessageFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const std::string text =
        core::RedactSecrets(std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(text.data(), text.data() + text.size());
  }
  [[nodiscard]] std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<RedactedMessageFlag>();
  }
};

// Text lines: the fields after the message, as key=value.
class FieldsFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    for (const core::LogField& field : core::CurrentLogFields()) {
      dest.push_back(' ');
      dest.append(field.key.data(), field.key.data() + field.key.size());
      dest.push_back('=');
      dest.append(field.value.data(), field.value.data() + field.value.size());
    }
  }
  [[nodiscard]] std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<FieldsFlag>();
  }
};

std::string Rfc3339Millis(spdlog::log_clock::time_point when) {
  const auto since_epoch = when.time_since_epoch();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch - seconds).count();
  const std::time_t time = seconds.count();
  std::tm utc{};
  gmtime_r(&time, &utc);
  char text[32];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  return std::string(text, n) + fmt::format(".{:03}Z", millis);
}

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    nlohmann::ordered_json line;
    line["time"] = Rfc3339Millis(msg.time);
    const auto level = spdlog::level::to_string_view(msg.level);
    line["level"] = std::string(level.data(), level.size());
    line["message"] =
        core::RedactSecrets(std::string_view(msg.payload.data(), msg.payload.size()));
    for (const core::LogField& field : core::CurrentLogFields()) {
      line[std::string(field.key)] = field.value;
    }
    const std::string text =
        line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    dest.append(text.data(), text.data() + text.size());
    dest.push_back('\n');
  }
  [[nodiscard]] std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

}  // namespace

std::vector<std::string> LogLevelNames() {
  return {"trace", "debug", "info", "warn", "error", "critical", "off"};
}

std::vector<std::string> LogFormatNames() { return {"text", "json"}; }

std::unique_ptr<spdlog::formatter> MakeLogFormatter(const std::string& format) {
  if (format == "json") return std::make_unique<JsonFormatter>();
  auto text = std::make_unique<spdlog::pattern_formatter>();
  text->add_flag<FieldsFlag>('*');
  text->add_flag<RedactedMessageFlag>('V');
  // spdlog's default pattern (its message redacted), then the fields.
  text->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %V%*");
  return text;
}

void ConfigureLogging(const LogSettings& settings, const std::string& spdlog_level) {
  spdlog::set_formatter(MakeLogFormatter(settings.format));
  spdlog::set_level(spdlog::level::from_str(settings.level));
  if (!spdlog_level.empty()) spdlog::cfg::helpers::load_levels(spdlog_level);
}

}  // namespace chopar::app
