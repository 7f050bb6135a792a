// `uiscope audit`, `uiscope confirm` and --config, as scripts use them. Runs
// the real binary against a database the test fills through the library.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "memory/audit_log.h"
#include "memory/confirmation_store.h"
#include "memory/state_db.h"
#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

CliRun RunCli(const std::string& args) {
  const std::string err_file = test::TestStateDir() + "/safety-cli-stderr.txt";
  // No DISPLAY, no UISCOPE_CONFIG, and a config home of our own: the
  // user's own configuration never leaks in.
  const std::string cmd =
      "env -u DISPLAY -u UISCOPE_CONFIG XDG_CONFIG_HOME=" + test::TestStateDir() +
      "/no-config " UISCOPE_CLI " " + args + " 2>" + err_file;
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_file);
  r.err.assign(std::istreambuf_iterator<char>(err), {});
  return r;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class SafetyCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(test::TestStateDir()) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_path_ = (dir_ / "state.db").string();
    config_ = (dir_ / "config.json").string();
    std::ofstream(config_) << "{\"database\": \"" << db_path_ << "\"}";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::shared_ptr<memory::Database> Db() {
    auto db = memory::OpenStateDatabase(db_path_);
    EXPECT_TRUE(db.ok());
    return *db;
  }

  fs::path dir_;
  std::string db_path_;
  std::string config_;
};

TEST_F(SafetyCliTest, MalformedConfigStopsEveryCommandWithTheLine) {
  std::ofstream(config_) << "{\n  \"deny_apps\": [],\n  \"rate_limt\": {}\n}\n";
  for (const std::string verb : {"audit", "confirm", "observe", "mcp"}) {
    CliRun r = RunCli(verb + " --config " + config_ + " </dev/null");
    EXPECT_EQ(r.exit_code, 2) << verb << ": " << r.err;
    EXPECT_NE(r.err.find(config_ + ":3: unknown key \"rate_limt\""), std::string::npos)
        << verb << ": " << r.err;
    EXPECT_NE(r.err.find("did you mean \"rate_limit\""), std::string::npos) << r.err;
  }
  CliRun missing = RunCli("audit --config " + (dir_ / "nope.json").string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;
}

TEST_F(SafetyCliTest, ConfigFromTheEnvironment) {
  std::ofstream(config_) << "{\"database\": 7}";
  CliRun r = RunCli("audit");  // UISCOPE_CONFIG is unset by RunCli
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string cmd = "UISCOPE_CONFIG=" + config_ + " " UISCOPE_CLI " audit 2>/dev/null";
  EXPECT_NE(WEXITSTATUS(std::system(cmd.c_str())), 0);
}

TEST_F(SafetyCliTest, AuditWithoutADatabaseIsEmptyAndCreatesNothing) {
  CliRun r = RunCli("audit --json --config " + config_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["database"], db_path_);
  EXPECT_TRUE(j["entries"].empty());
  EXPECT_FALSE(fs::exists(db_path_));
}

TEST_F(SafetyCliTest, AuditPrintsFiltersAndEmitsJson) {
  {
    memory::AuditLog log(Db());
    const int64_t now = NowMs();
    safety::AuditEntry old;
    old.time_ms = now - 3 * 3600 * 1000;
    old.tool = "click";
    old.decision = "done";
    old.target = "btn_1";
    old.target_desc = "button \"OK\" btn_1";
    old.via = "accessibility";
    old.screen_before = "0123456789abcdef";
    old.screen_after = "fedcba9876543210";
    ASSERT_TRUE(log.Append(old).ok());
    safety::AuditEntry dropped;
    dropped.time_ms = now - 1000;
    dropped.tool = "click";
    dropped.decision = "dropped";
    dropped.rule = "R5";
    dropped.reason = "point 5000,5 is outside the screen";
    dropped.arguments = {{"x", 5000}, {"y", 5}};
    ASSERT_TRUE(log.Append(dropped).ok());
    safety::AuditEntry typed;
    typed.time_ms = now - 500;
    typed.tool = "type_text";
    typed.decision = "done";
    typed.arguments = {{"id", "txt_pw"}, {"text", "••••"}};
    ASSERT_TRUE(log.Append(typed).ok());
  }
  CliRun all = RunCli("audit --config " + config_);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("done                  click         button \"OK\" btn_1"),
            std::string::npos)
      << all.out;
  EXPECT_NE(all.out.find("screen=01234567->fedcba98"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("R5: point 5000,5 is outside the screen"), std::string::npos);
  EXPECT_NE(all.out.find("\"text\":\"••••\""), std::string::npos) << all.out;

  CliRun recent = RunCli("audit --json --since 1h --config " + config_);
  ASSERT_EQ(recent.exit_code, 0) << recent.err;
  auto j = nlohmann::json::parse(recent.out);
  ASSERT_EQ(j["entries"].size(), 2u);
  EXPECT_EQ(j["entries"][0]["decision"], "dropped");
  EXPECT_EQ(j["entries"][0]["rule"], "R5");
  EXPECT_EQ(j["entries"][1]["arguments"]["text"], "••••");

  auto count = [&](const std::string& flags) {
    CliRun r = RunCli("audit --json " + flags + " --config " + config_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out)["entries"].size();
  };
  EXPECT_EQ(count("--tool click"), 2u);
  EXPECT_EQ(count("--decision dropped"), 1u);
  EXPECT_EQ(count("--limit 1"), 1u);
  EXPECT_EQ(count("--since @0"), 3u);
  EXPECT_EQ(count("--since 2000-01-01"), 3u);

  CliRun bad = RunCli("audit --since yesterday --config " + config_);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("is not a time"), std::string::npos) << bad.err;
  EXPECT_EQ(RunCli("audit --decision maybe --config " + config_).exit_code, 2);
}

TEST_F(SafetyCliTest, ConfirmListsApprovesAndDenies) {
  {
    memory::SqliteConfirmationStore store(Db());
    for (const char* token : {"tokapprove", "tokdeny222"}) {
      safety::Confirmation c;
      c.token = token;
      c.created_ms = NowMs();
      c.expires_ms = c.created_ms + 300000;
      c.tool = "click";
      c.target = "button \"Save\" btn_a";
      c.rule = "R4";
      c.reason = "2 elements match";
      ASSERT_TRUE(store.Create(c).ok());
    }
  }
  CliRun list = RunCli("confirm --config " + config_);
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("tokapprove  pending  click button \"Save\" btn_a"), std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("R4: 2 elements match"), std::string::npos);

  CliRun approve = RunCli("confirm tokapprove --approve --config " + config_);
  EXPECT_EQ(approve.exit_code, 0) << approve.err;
  CliRun deny = RunCli("confirm tokdeny222 --deny --json --config " + config_);
  EXPECT_EQ(deny.exit_code, 0) << deny.err;
  EXPECT_EQ(nlohmann::json::parse(deny.out)["status"], "denied");

  memory::SqliteConfirmationStore store(Db());
  auto c = store.Get("tokapprove", NowMs());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->status, safety::ConfirmationStatus::kApproved);
  EXPECT_NE(c->decided_by.find("uiscope confirm (user "), std::string::npos) << c->decided_by;

  // The decisions are in the audit log.
  CliRun audit = RunCli("audit --json --config " + config_);
  auto j = nlohmann::json::parse(audit.out);
  ASSERT_EQ(j["entries"].size(), 2u);
  EXPECT_EQ(j["entries"][0]["decision"], "approved");
  EXPECT_EQ(j["entries"][1]["decision"], "rejected");

  // A second decision, an unknown token, and usage errors.
  CliRun twice = RunCli("confirm tokapprove --deny --config " + config_);
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("already approved"), std::string::npos) << twice.err;
  CliRun unknown = RunCli("confirm zzzzzzzzzz --approve --config " + config_);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no confirmation zzzzzzzzzz"), std::string::npos) << unknown.err;
  EXPECT_EQ(RunCli("confirm tokapprove --config " + config_).exit_code, 2);
  EXPECT_EQ(RunCli("confirm tokapprove --approve --deny --config " + config_).exit_code, 2);
  EXPECT_EQ(RunCli("confirm --approve --config " + config_).exit_code, 2);

  CliRun none = RunCli("confirm --json --config " + config_);
  EXPECT_TRUE(nlohmann::json::parse(none.out)["confirmations"].empty());
  CliRun history = RunCli("confirm --all --json --config " + config_);
  EXPECT_EQ(nlohmann::json::parse(history.out)["confirmations"].size(), 2u);
}

// A database that cannot be opened: the server still serves (observe works),
// every action is refused saying why, the reason is logged on stderr, and
// stdout carries nothing but the protocol (a stray log line there would
// break every stdio client).
TEST_F(SafetyCliTest, UnopenableDatabaseRefusesActionsAndKeepsStdoutClean) {
  std::ofstream(dir_ / "file") << "x";
  std::ofstream(config_) << "{\"database\": \"" << (dir_ / "file" / "x.db").string() << "\"}";
  const std::string input = (dir_ / "input.jsonl").string();
  std::ofstream(input)
      << R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}})"
      << "\n"
      << R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      << "\n"
      << R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_start","arguments":{}}})"
      << "\n";
  CliRun r = RunCli("mcp --config " + config_ + " <" + input);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  bool refused = false;
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "not JSON on stdout: " << line;
    if (j.value("id", 0) == 2) {
      refused = j["result"]["isError"].get<bool>() &&
                j["result"]["content"][0]["text"].get<std::string>().find(
                    "audit log cannot be written") != std::string::npos;
    }
  }
  EXPECT_TRUE(refused) << r.out;
  EXPECT_NE(r.err.find("actions will be refused"), std::string::npos) << r.err;
}

TEST_F(SafetyCliTest, TheDatabaseIsPrivate) {
  Db();
  EXPECT_EQ(fs::status(db_path_).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

}  // namespace
}  // namespace uiscope
