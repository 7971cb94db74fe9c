#include "app/secrets.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace chopar::app {
namespace {

namespace fs = std::filesystem;

class SecretsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("chopar-secrets-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The message of the error LoadOrCreateSecret throws, or "" if it succeeds.
  std::string ErrorOf(const std::string& name) {
    try {
      (void)LoadOrCreateSecret(dir_, name);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(SecretsTest, CreatedOnceThenReadBack) {
  const StoredSecret first = LoadOrCreateSecret(dir_, "api_key");
  EXPECT_TRUE(first.generated);
  EXPECT_EQ(first.value.rfind("chp_", 0), 0u);
  EXPECT_EQ(fs::status(first.path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  const StoredSecret again = LoadOrCreateSecret(dir_, "api_key");
  EXPECT_FALSE(again.generated);
  EXPECT_EQ(again.value, first.value);
  // Nothing is left behind but the key.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(SecretsTest, DanglingSymlinkIsAClearErrorNotEndlessRecursion) {
  fs::create_symlink(dir_ / "nowhere" / "key", dir_ / "api_key");
  const std::string error = ErrorOf("api_key");
  EXPECT_NE(error.find((dir_ / "api_key").string()), std::string::npos) << error;
}

TEST_F(SecretsTest, ADirectoryInTheWayIsAClearError) {
  fs::create_directories(dir_ / "api_key");
  const std::string error = ErrorOf("api_key");
  EXPECT_NE(error.find((dir_ / "api_key").string()), std::string::npos) << error;
}

TEST_F(SecretsTest, AnEmptyFileIsAClearError) {
  std::ofstream(dir_ / "api_key").flush();
  EXPECT_NE(ErrorOf("api_key").find("empty"), std::string::npos);
}

// Processes starting at the same moment must all end up with the one key
// that was stored, never an empty or half-written one.
TEST_F(SecretsTest, SimultaneousFirstStartsAllReadTheSameCompleteKey) {
  for (int round = 0; round < 200; ++round) {
    const std::string name = "key" + std::to_string(round);
    std::vector<std::string> values(8);
    std::vector<std::string> errors(8);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < values.size(); ++i) {
      threads.emplace_back([&, i] {
        try {
          values[i] = LoadOrCreateSecret(dir_, name).value;
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      });
    }
    for (auto& thread : threads) thread.join();
    for (std::size_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(errors[i], "") << "round " << round;
      ASSERT_EQ(values[i], values[0]) << "round " << round;
    }
    ASSERT_EQ(values[0].size(), 47u) << "round " << round;
  }
}

}  // namespace
}  // namespace chopar::app
