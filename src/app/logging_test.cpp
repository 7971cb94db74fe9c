#include "app/logging.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "core/log_context.hpp"

namespace chopar::app {
namespace {

// The lines a logger with MakeLogFormatter(format) writes.
class Captured {
 public:
  explicit Captured(const std::string& format)
      : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(out_)), logger_("capture", sink_) {
    logger_.set_formatter(MakeLogFormatter(format));
    logger_.set_level(spdlog::level::trace);
  }
  spdlog::logger& logger() { return logger_; }
  std::vector<std::string> Lines() const {
    std::vector<std::string> lines;
    std::istringstream in(out_.str());
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
  spdlog::logger logger_;
};

TEST(LoggingTest, JsonIsOneObjectALineWithTheScopesFields) {
  Captured log("json");
  log.logger().info("plain");
  {
    const core::LogScope request("request_id", "req-1");
    const core::LogScope user("user_id", "42");
    log.logger().warn("quoted \"text\"\nand a second line");
  }
  const auto lines = log.Lines();
  ASSERT_EQ(lines.size(), 2u);
  const auto first = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(first["level"], "info");
  EXPECT_EQ(first["message"], "plain");
  EXPECT_FALSE(first.contains("request_id"));
  EXPECT_TRUE(std::regex_match(first["time"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
      << first["time"];
  const auto second = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(second["level"], "warning");
  EXPECT_EQ(second["message"], "quoted \"text\"\nand a second line");
  EXPECT_EQ(second["request_id"], "req-1");
  EXPECT_EQ(second["user_id"], "42");
  // time, level and message lead, in that order.
  EXPECT_EQ(lines[1].rfind(R"({"time":)", 0), 0u) << lines[1];
}

TEST(LoggingTest, JsonReplacesBytesThatAreNotUtf8) {
  Captured log("json");
  log.logger().error("bad \xff byte");
  const auto lines = log.Lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(lines[0])["message"], "bad \xEF\xBF\xBD byte");
}

TEST(LoggingTest, TextEndsWithTheScopesFields) {
  Captured log("text");
  const core::LogScope request("request_id", "req-2");
  log.logger().info("handled");
  const auto lines = log.Lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(std::regex_match(lines[0], std::regex(R"(\[.*\] \[info\] handled request_id=req-2)")))
      << lines[0];
}

TEST(LoggingTest, CredentialsInAMessageAreRedactedInBothFormats) {
  for (const std::string format : {"text", "json"}) {
    Captured log(format);
    log.logger().warn("connect to {}: refused", "nats://admin:n4ts-pw@127.0.0.1:4222");
    const auto lines = log.Lines();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].find("n4ts-pw"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("connect to nats://***@127.0.0.1:4222: refused"), std::string::npos)
        << lines[0];
  }
}

TEST(LoggingTest, EveryLevelNameIsOneSpdlogKnows) {
  // spdlog reads a name it does not know as off.
  for (const std::string& name : LogLevelNames()) {
    EXPECT_TRUE(name == "off" || spdlog::level::from_str(name) != spdlog::level::off) << name;
  }
  EXPECT_EQ(spdlog::level::from_str("warning"), spdlog::level::warn);
  EXPECT_EQ(spdlog::level::from_str("loud"), spdlog::level::off);
}

TEST(LoggingTest, SpdlogLevelWinsOverTheConfiguredLevel) {
  const auto previous = spdlog::get_level();
  ConfigureLogging({"info", "text"}, "");
  EXPECT_EQ(spdlog::get_level(), spdlog::level::info);
  ConfigureLogging({"info", "text"}, "debug");
  EXPECT_EQ(spdlog::get_level(), spdlog::level::debug);
  ConfigureLogging({"error", "text"}, "");
  EXPECT_EQ(spdlog::get_level(), spdlog::level::err);
  spdlog::set_level(previous);
  spdlog::set_formatter(MakeLogFormatter("text"));
}

}  // namespace
}  // namespace chopar::app
