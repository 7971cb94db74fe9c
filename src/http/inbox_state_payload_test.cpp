// How a state change travels from the transaction that makes it to the
// streams of every process: hub::InboxStateWakes' NOTIFY payloads, read back
// by the listener, delivered by the StreamHub.
#include <gtest/gtest.h>

#include <memory>

#include "http/inbox_listener.hpp"
#include "http/stream_hub.hpp"
#include "hub/inbox_state_wake.hpp"

namespace chopar::http {
namespace {

using nlohmann::json;

TEST(InboxStatePayloadTest, ListedIdsTravelInPiecesBelowThePayloadLimit) {
  hub::InboxStateChange change;
  change.change = hub::InboxChange::kRead;
  change.at = "2026-03-01T12:00:00Z";
  change.ids = std::vector<std::int64_t>(1000, 9'000'000'000'000'000'000);
  const auto payloads = hub::InboxStateWakes(42, change);
  ASSERT_EQ(payloads.size(), 4u);  // 300 + 300 + 300 + 100
  std::size_t ids = 0;
  for (const auto& payload : payloads) {
    EXPECT_LT(payload.size(), 7000u);
    const auto wake = ParseInboxStatePayload(payload);
    ASSERT_TRUE(wake);
    EXPECT_EQ(wake->user_id, 42);
    EXPECT_EQ((*wake->state)["change"], "read");
    EXPECT_EQ((*wake->state)["at"], "2026-03-01T12:00:00Z");
    EXPECT_FALSE(wake->state->contains("all"));
    ids += (*wake->state)["ids"].size();
  }
  EXPECT_EQ(ids, 1000u);
}

TEST(InboxStatePayloadTest, TooManyToListIsAllWithTheFilters) {
  hub::InboxStateChange change;
  change.change = hub::InboxChange::kSnoozed;
  change.at = "2026-03-01T12:00:00Z";
  change.snoozed_until = "2026-03-01T13:00:00Z";
  change.filter.categories = {"tasks", "billing"};
  change.filter.tag = "urgent";
  change.filter.tenant = "acme";
  const auto payloads = hub::InboxStateWakes(7, change);
  ASSERT_EQ(payloads.size(), 1u);
  const auto wake = ParseInboxStatePayload(payloads[0]);
  ASSERT_TRUE(wake);
  EXPECT_EQ(*wake->state, (json{{"change", "snoozed"},
                                {"all", true},
                                {"category", {"tasks", "billing"}},
                                {"tag", "urgent"},
                                {"tenant", "acme"},
                                {"at", "2026-03-01T12:00:00Z"},
                                {"snoozed_until", "2026-03-01T13:00:00Z"}}));
}

TEST(InboxStatePayloadTest, OtherPayloadsAreNoStateChange) {
  for (const char* payload : {"", "5", "1,2", "*", "{", "{}", R"({"user_id": 0, "state": {}})",
                              R"({"user_id": 3, "state": {"change": 1}})",
                              R"({"user_id": "3", "state": {"change": "read"}})"}) {
    EXPECT_FALSE(ParseInboxStatePayload(payload)) << payload;
  }
}

class RecordingStream final : public Wakeable {
 public:
  void Wake() override { ++wakes; }
  void Deliver(const std::shared_ptr<const json>& state) override { states.push_back(*state); }
  int wakes = 0;
  std::vector<json> states;
};

TEST(InboxStatePayloadTest, TheHubDeliversToTheUsersStreamsOnly) {
  StreamHub hub;
  auto mine = std::make_shared<RecordingStream>();
  auto theirs = std::make_shared<RecordingStream>();
  hub.Add(1, mine);
  hub.Add(2, theirs);
  hub.DeliverState(1, std::make_shared<const json>(json{{"change", "seen"}}));
  EXPECT_EQ(mine->states, (std::vector<json>{{{"change", "seen"}}}));
  EXPECT_TRUE(theirs->states.empty());
  EXPECT_EQ(theirs->wakes, 0);
}

}  // namespace
}  // namespace chopar::http
