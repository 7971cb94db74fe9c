#include "app/components.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace chopar::app {
namespace {

using ::testing::ElementsAre;
using namespace std::chrono_literals;

// A part that writes what happens to it into a shared journal.
class JournalPart {
 public:
  JournalPart(std::vector<std::string>& journal, std::string name)
      : journal_(journal), name_(std::move(name)) {}
  void Start() { journal_.push_back("start " + name_); }
  void Stop() { journal_.push_back("stop " + name_); }

 private:
  std::vector<std::string>& journal_;
  std::string name_;
};

// A part whose stop can be bounded, like the delivery worker's drain.
struct DrainingPart {
  void Start() {}
  void Stop(std::chrono::milliseconds left) { given = left; }
  std::chrono::milliseconds given{-1};
};

TEST(ComponentsTest, StartInTheOrderAddedAndStopInReverse) {
  std::vector<std::string> journal;
  Components parts;
  parts.Emplace<JournalPart>("store", journal, "store");
  parts.Emplace<JournalPart>("worker", journal, "worker");
  parts.Emplace<JournalPart>("server", journal, "server");
  parts.StartAll();
  parts.StopAll(Components::Clock::now());
  EXPECT_THAT(journal, ElementsAre("start store", "start worker", "start server", "stop server",
                                   "stop worker", "stop store"));
  EXPECT_THAT(parts.Names(), ElementsAre("store", "worker", "server"));
}

TEST(ComponentsTest, APartThatFailsToStartStopsThoseStartedBeforeItInReverse) {
  std::vector<std::string> journal;
  Components parts;
  parts.Emplace<JournalPart>("a", journal, "a");
  parts.Emplace<JournalPart>("b", journal, "b");
  parts.AddSteps(
      "failing", [] { throw std::runtime_error("port in use"); },
      [&journal](Components::Clock::time_point) { journal.push_back("stop failing"); });
  parts.Emplace<JournalPart>("never", journal, "never");
  EXPECT_THROW(parts.StartAll(), std::runtime_error);
  EXPECT_THAT(journal, ElementsAre("start a", "start b", "stop b", "stop a"));
}

TEST(ComponentsTest, StopAllIsIdempotentAndTheDestructorStopsWhatRuns) {
  std::vector<std::string> journal;
  {
    Components parts;
    parts.Emplace<JournalPart>("a", journal, "a");
    parts.StartAll();
    parts.StopAll(Components::Clock::now());
    parts.StopAll(Components::Clock::now());
  }
  EXPECT_THAT(journal, ElementsAre("start a", "stop a"));
  journal.clear();
  {
    Components parts;
    parts.Emplace<JournalPart>("a", journal, "a");
    parts.Emplace<JournalPart>("b", journal, "b");
    parts.StartAll();
  }
  EXPECT_THAT(journal, ElementsAre("start a", "start b", "stop b", "stop a"));
}

TEST(ComponentsTest, APartThatThrowsOnStopDoesNotKeepTheOthersRunning) {
  std::vector<std::string> journal;
  Components parts;
  parts.Emplace<JournalPart>("a", journal, "a");
  parts.AddSteps(
      "broken", [] {},
      [](Components::Clock::time_point) { throw std::runtime_error("connection lost"); });
  parts.Emplace<JournalPart>("c", journal, "c");
  parts.StartAll();
  parts.StopAll(Components::Clock::now());
  EXPECT_THAT(journal, ElementsAre("start a", "start c", "stop c", "stop a"));
}

TEST(ComponentsTest, ABoundedStopIsGivenTheTimeLeftBeforeTheDeadline) {
  Components parts;
  DrainingPart& draining = parts.Emplace<DrainingPart>("worker");
  DrainingPart owned_elsewhere;
  parts.Add("owned elsewhere", owned_elsewhere);
  parts.StartAll();
  parts.StopAll(Components::Clock::now() + 1h);
  EXPECT_GT(draining.given, 59min);
  EXPECT_LE(draining.given, 1h);
  EXPECT_GT(owned_elsewhere.given, 59min);

  Components past;
  DrainingPart& overdue = past.Emplace<DrainingPart>("worker");
  past.StartAll();
  past.StopAll(Components::Clock::now() - 1s);
  EXPECT_EQ(overdue.given, 0ms);
}

TEST(ComponentsTest, AnAnnouncementFollowsItsPartsStart) {
  std::vector<std::string> journal;
  Components parts;
  parts.Emplace<JournalPart>("server", journal, "server");
  parts.AfterStart([&journal] { journal.push_back("listening"); });
  parts.Emplace<JournalPart>("worker", journal, "worker");
  parts.StartAll();
  EXPECT_THAT(journal, ElementsAre("start server", "listening", "start worker"));
}

TEST(ComponentsTest, APartCannotBeAddedOnceStarted) {
  std::vector<std::string> journal;
  Components parts;
  parts.Emplace<JournalPart>("a", journal, "a");
  parts.StartAll();
  EXPECT_THROW(parts.Emplace<JournalPart>("b", journal, "b"), std::logic_error);
}

}  // namespace
}  // namespace chopar::app
