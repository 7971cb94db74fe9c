#include "app/closest_name.hpp"

#include <gtest/gtest.h>

namespace chopar::app {
namespace {

TEST(EditDistanceTest, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("batch", "batch"), 0u);
  EXPECT_EQ(EditDistance("bach", "batch"), 1u) << "insertion";
  EXPECT_EQ(EditDistance("batchsize", "batch"), 4u) << "deletions";
  EXPECT_EQ(EditDistance("listem", "listen"), 1u) << "substitution";
  EXPECT_EQ(EditDistance("api_kye", "api_key"), 1u) << "a swap of neighbours is one edit";
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("ca", "abc"), 3u) << "optimal string alignment edits no substring twice";
}

TEST(EditDistanceTest, IgnoresCase) {
  EXPECT_EQ(EditDistance("API_KEY", "api_key"), 0u);
  EXPECT_EQ(EditDistance("Api_Kye", "api_key"), 1u);
}

TEST(ClosestNameTest, PicksTheNearestCandidateWithinAThirdOfTheName) {
  const std::vector<std::string> keys = {"listen", "api_key", "inbox_secret", "data_dir",
                                         "public_url"};
  EXPECT_EQ(ClosestName("api_kye", keys), 1u);
  EXPECT_EQ(ClosestName("lisen", keys), 0u);
  EXPECT_EQ(ClosestName("inbox_secert", keys), 2u);
  EXPECT_EQ(ClosestName("datadir", keys), 3u);
  EXPECT_EQ(ClosestName("nonsense", keys), std::nullopt);
  EXPECT_EQ(ClosestName("x", keys), std::nullopt);
  EXPECT_EQ(ClosestName("api_key", {}), std::nullopt);
}

TEST(ClosestNameTest, ShortNamesMayBeTwoEditsAway) {
  EXPECT_EQ(ClosestName("frm", {"from"}), 0u);
  EXPECT_EQ(ClosestName("ur", {"url"}), 0u);
  EXPECT_EQ(ClosestName("xyz", {"url"}), std::nullopt);
}

TEST(ClosestNameTest, AnExtendedOrShortenedNameIsNearWhateverItsDistance) {
  EXPECT_EQ(ClosestName("batchsize", {"lease_seconds", "batch"}), 1u);
  EXPECT_EQ(ClosestName("bot", {"provider", "bot_username"}), 1u);
  EXPECT_EQ(ClosestName("ab", {"abcdefgh"}), std::nullopt)
      << "two characters are too few to be a prefix";
}

TEST(ClosestNameTest, PrefersTheSmallestDistanceThenTheFirst) {
  EXPECT_EQ(ClosestName("batch", {"batch_size", "batches", "match", "batch"}), 3u);
  EXPECT_EQ(ClosestName("sms", {"sma", "smx"}), 0u);
}

}  // namespace
}  // namespace chopar::app
