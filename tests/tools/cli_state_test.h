// Tests only: a fixture for tests that run the real `uiscope` binary against
// a state database they fill through the library (safety_cli_test,
// hostile_text_cli_test): a directory of the test's own under
// TestStateDir(), holding the database and a config.json naming it.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "memory/state_db.h"
#include "support/desktop_fixture.h"

namespace uiscope::test {

class CliStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(TestStateDir()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    db_path_ = (dir_ / "state.db").string();
    config_ = (dir_ / "config.json").string();
    std::ofstream(config_) << "{\"database\": \"" << db_path_ << "\"}";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A new connection to the test's database.
  std::shared_ptr<memory::Database> Db() {
    auto db = memory::OpenStateDatabase(db_path_);
    EXPECT_TRUE(db.ok());
    return *db;
  }

  std::filesystem::path dir_;
  std::string db_path_;
  std::string config_;  // {"database": db_path_}
};

}  // namespace uiscope::test
