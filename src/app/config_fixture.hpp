#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include "app/config.hpp"

namespace chopar::app {

// Loads configurations from TOML text written to a file of its own temporary
// folder, with an environment given as a map (the process's own is not read).
class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("chopar-config-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The path of a new file holding `toml`.
  std::filesystem::path Write(const std::string& toml) {
    const std::filesystem::path path = dir_ / ("chopar-" + std::to_string(++files_) + ".toml");
    std::ofstream(path) << toml;
    return path;
  }

  Config Load(const std::string& toml, const Environment& environment = {}) {
    return LoadConfig(Write(toml), environment);
  }

  // The message LoadConfig throws, or "(loaded)" when it does not throw.
  std::string Refusal(const std::optional<std::string>& toml, const Environment& environment = {}) {
    try {
      LoadConfig(toml ? std::optional(Write(*toml)) : std::nullopt, environment);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "(loaded)";
  }
  std::string FileRefusal(const std::string& toml) { return Refusal(toml); }
  std::string EnvRefusal(const Environment& environment) {
    return Refusal(std::nullopt, environment);
  }

  std::filesystem::path dir_;
  int files_ = 0;
};

}  // namespace chopar::app
