// The secrets chopar generates are shared through the database: processes
// with different data_dirs (two hosts, as it were) read one value; a file
// an earlier version left in data_dir is adopted when the database has none
// yet; the database wins over a different file; a configured value wins.

#include "app/shared_secrets.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "testing/test_database.hpp"

namespace chopar::app {
namespace {

namespace fs = std::filesystem;

class SharedSecretsTest : public testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    if (!db_) return;
    root_ = fs::temp_directory_path() /
            ("chopar-shared-secrets-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override {
    if (!root_.empty()) fs::remove_all(root_);
  }

  // A data_dir of its own for one process.
  fs::path DataDir(const std::string& name) {
    const fs::path dir = root_ / name;
    fs::create_directories(dir);
    return dir;
  }

  std::string Stored(const std::string& name) {
    return db_->Scalar("SELECT value FROM chopar.generated_secrets WHERE name = '" + name + "'");
  }

  fs::path root_;
};

TEST_F(SharedSecretsTest, ProcessesOnSeparateDataDirsGetOneSecret) {
  for (const std::string name : {"inbox_secret", "sms_callback_secret"}) {
    SCOPED_TRACE(name);
    // Four processes starting at once, each with its own pool and data_dir.
    constexpr int kProcesses = 4;
    std::vector<std::string> values(kProcesses);
    std::vector<std::thread> threads;
    for (int i = 0; i < kProcesses; ++i) {
      const fs::path dir = DataDir(name + "-" + std::to_string(i));
      threads.emplace_back([&, i, dir] {
        db::Pool pool(pool_->settings());
        values[i] = SharedSecret(pool, dir, name, "");
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(values[0].rfind("chp_", 0), 0u) << values[0];
    for (const std::string& value : values) EXPECT_EQ(value, values[0]);
    EXPECT_EQ(Stored(name), values[0]);
    // Nothing was written beside them: the database is where it lives.
    EXPECT_FALSE(fs::exists(root_ / (name + "-0") / name));
  }
  EXPECT_NE(Stored("inbox_secret"), Stored("sms_callback_secret"));
}

TEST_F(SharedSecretsTest, AFileFromAnEarlierVersionIsAdoptedWhenTheDatabaseHasNone) {
  const fs::path old_host = DataDir("old");
  std::ofstream(old_host / "inbox_secret") << "chp_mailed-links-were-signed-with-this\n";
  EXPECT_EQ(SharedSecret(*pool_, old_host, "inbox_secret", ""),
            "chp_mailed-links-were-signed-with-this");
  EXPECT_EQ(SharedSecret(*pool_, DataDir("new"), "inbox_secret", ""),
            "chp_mailed-links-were-signed-with-this");
}

TEST_F(SharedSecretsTest, TheDatabaseWinsOverADifferentFile) {
  const std::string first = SharedSecret(*pool_, DataDir("first"), "sms_callback_secret", "");
  const fs::path other = DataDir("other");
  std::ofstream(other / "sms_callback_secret") << "chp_another-host-made-this\n";
  EXPECT_EQ(SharedSecret(*pool_, other, "sms_callback_secret", ""), first);
  EXPECT_EQ(Stored("sms_callback_secret"), first);
}

TEST_F(SharedSecretsTest, AConfiguredValueWinsAndIsNotStored) {
  EXPECT_EQ(SharedSecret(*pool_, DataDir("a"), "inbox_secret", "configured-secret"),
            "configured-secret");
  EXPECT_EQ(db_->Count("SELECT count(*) FROM chopar.generated_secrets"), 0);
}

}  // namespace
}  // namespace chopar::app
