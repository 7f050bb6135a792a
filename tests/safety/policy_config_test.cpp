// The configuration file: defaults, every key, and errors that name the
// line and the key.
#include "safety/policy_config.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace uiscope::safety {
namespace {

Result<PolicyConfig> Parse(std::string_view text) { return ParsePolicyConfig(text, "cfg.json"); }

std::string ErrorOf(std::string_view text) {
  auto r = Parse(text);
  EXPECT_FALSE(r.ok()) << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  return r.error().message;
}

TEST(PolicyConfig, EmptyObjectGivesTheDocumentedDefaults) {
  auto c = Parse("{}");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->launch_allow.has_value());
  EXPECT_TRUE(c->deny_apps.empty());
  EXPECT_TRUE(c->confirm_tools.empty());
  EXPECT_EQ(c->rate_limit.max_actions, 10);
  EXPECT_EQ(c->rate_limit.window, std::chrono::seconds(60));
  EXPECT_EQ(c->confirmation_expiry, std::chrono::seconds(300));
  EXPECT_EQ(c->elicitation_timeout, std::chrono::seconds(120));
  EXPECT_FALSE(c->agent_may_confirm) << "an agent must not approve its own held actions";
  EXPECT_EQ(c->database, "");
  EXPECT_EQ(c->audit_retention_days, 0);
  EXPECT_EQ(c->source, "cfg.json");
}

TEST(PolicyConfig, EveryKeyWithCommentsAllowed) {
  auto c = Parse(R"({
    // which programs app_launch may start
    "launch_allow": ["gedit", "/usr/bin/xterm"],
    /* never touch these */
    "deny_apps": ["keepassxc", "*password*"],
    "confirm_tools": ["app_close", "session_stop"],
    "rate_limit": {"max_actions": 3, "window_seconds": 10},
    "confirmations": {"expire_seconds": 60, "elicitation_timeout_seconds": 5,
                      "agent_may_confirm": false},
    "database": "/tmp/x/uiscope.db",
    "audit_retention_days": 30,
    "$schema": "https://example.invalid/uiscope-config.json"
  })");
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->launch_allow);
  EXPECT_EQ(*c->launch_allow, (std::vector<std::string>{"gedit", "/usr/bin/xterm"}));
  EXPECT_EQ(c->deny_apps, (std::vector<std::string>{"keepassxc", "*password*"}));
  EXPECT_EQ(c->confirm_tools, (std::vector<std::string>{"app_close", "session_stop"}));
  EXPECT_EQ(c->rate_limit.max_actions, 3);
  EXPECT_EQ(c->rate_limit.window, std::chrono::seconds(10));
  EXPECT_EQ(c->confirmation_expiry, std::chrono::seconds(60));
  EXPECT_EQ(c->elicitation_timeout, std::chrono::seconds(5));
  EXPECT_FALSE(c->agent_may_confirm);
  EXPECT_EQ(c->database, "/tmp/x/uiscope.db");
  EXPECT_EQ(c->audit_retention_days, 30);
}

TEST(PolicyConfig, EmptyAllowListIsNotAbsent) {
  auto c = Parse(R"({"launch_allow": []})");
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->launch_allow);
  EXPECT_TRUE(c->launch_allow->empty());
}

TEST(PolicyConfig, UnknownKeyNamesLineKeyAndNearestKnownKey) {
  const std::string e = ErrorOf("{\n  \"deny_apps\": [],\n  \"rate_limt\": {}\n}");
  EXPECT_NE(e.find("cfg.json:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key \"rate_limt\""), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean \"rate_limit\""), std::string::npos) << e;
  EXPECT_NE(e.find("known keys: launch_allow"), std::string::npos) << e;
}

TEST(PolicyConfig, UnknownNestedKey) {
  const std::string e = ErrorOf("{\n\"rate_limit\": {\n  \"max_actions\": 5,\n  \"per\": 60\n}\n}");
  EXPECT_NE(e.find("cfg.json:4:"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key \"per\" in \"rate_limit\""), std::string::npos) << e;
}

TEST(PolicyConfig, WrongTypesNameTheKeyAndLine) {
  std::string e = ErrorOf("{\n\n\"rate_limit\": {\"max_actions\": \"ten\"}}");
  EXPECT_NE(e.find("cfg.json:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("\"rate_limit.max_actions\" must be an integer"), std::string::npos) << e;
  e = ErrorOf(R"({"rate_limit": {"max_actions": -1}})");
  EXPECT_NE(e.find("must be from 0 to"), std::string::npos) << e;
  e = ErrorOf(R"({"rate_limit": {"window_seconds": 0}})");
  EXPECT_NE(e.find("rate_limit.window_seconds"), std::string::npos) << e;
  e = ErrorOf(R"({"rate_limit": {"max_actions": 1.5}})");
  EXPECT_NE(e.find("must be an integer"), std::string::npos) << e;
  e = ErrorOf(R"({"rate_limit": {"max_actions": 18446744073709551615}})");
  EXPECT_NE(e.find("must be from 0 to"), std::string::npos) << e;
  e = ErrorOf(R"({"deny_apps": "keepassxc"})");
  EXPECT_NE(e.find("\"deny_apps\" must be an array of strings"), std::string::npos) << e;
  e = ErrorOf("{\"deny_apps\": [\n\"a\",\n 7]}");
  EXPECT_NE(e.find("cfg.json:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("\"deny_apps\"[1] must be a string"), std::string::npos) << e;
  e = ErrorOf(R"({"deny_apps": [""]})");
  EXPECT_NE(e.find("is empty"), std::string::npos) << e;
  e = ErrorOf(R"({"confirmations": {"agent_may_confirm": "yes"}})");
  EXPECT_NE(e.find("must be true or false"), std::string::npos) << e;
  e = ErrorOf(R"({"confirmations": []})");
  EXPECT_NE(e.find("\"confirmations\" must be an object"), std::string::npos) << e;
  e = ErrorOf(R"({"database": ""})");
  EXPECT_NE(e.find("\"database\" must be a file path"), std::string::npos) << e;
  e = ErrorOf(R"({"confirmations": {"expire_seconds": 1}})");
  EXPECT_NE(e.find("from 10 to"), std::string::npos) << e;
}

TEST(PolicyConfig, ConfirmToolsMustNameToolsThatAct) {
  const std::string e = ErrorOf("{\"confirm_tools\": [\"click\",\n \"clik\"]}");
  EXPECT_NE(e.find("cfg.json:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("\"clik\", which is not a tool that acts"), std::string::npos) << e;
}

TEST(PolicyConfig, ExecutePlanNamesThePlanAction) {
  auto c = Parse(R"({"confirm_tools": ["execute_plan"]})");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->confirm_tools, std::vector<std::string>{"plan"});
}

TEST(PolicyConfig, DuplicateKeysAreErrors) {
  const std::string e = ErrorOf("{\"deny_apps\": [],\n\"deny_apps\": [\"x\"]}");
  EXPECT_NE(e.find("duplicate key \"deny_apps\" at line 2 (first at line 1)"), std::string::npos)
      << e;
}

TEST(PolicyConfig, SyntaxErrorsGiveLineAndColumn) {
  std::string e = ErrorOf("{\n  \"deny_apps\": [\"a\",]\n}");
  EXPECT_NE(e.find("cfg.json: "), std::string::npos) << e;
  EXPECT_NE(e.find("line 2"), std::string::npos) << e;
  e = ErrorOf("[1, 2]");
  EXPECT_NE(e.find("must be a JSON object"), std::string::npos) << e;
  e = ErrorOf("");
  EXPECT_NE(e.find("cfg.json"), std::string::npos) << e;
}

TEST(PolicyConfig, NumbersAtLineEndsKeepTheirLine) {
  // The lexer reads one character past a number (here the newline).
  const std::string e = ErrorOf("{\"rate_limit\": {\n\"max_actions\": 5\n,\n\"x\": 1}}");
  EXPECT_NE(e.find("cfg.json:4:"), std::string::npos) << e;
}

class ConfigFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("uiscope-config-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_ / "xdg" / "uiscope");
    for (const char* name :
         {"XDG_CONFIG_HOME", "UISCOPE_CONFIG", "UISCOPE_STATE_DIR", "XDG_STATE_HOME", "HOME"}) {
      const char* v = getenv(name);
      saved_.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
    }
    setenv("XDG_CONFIG_HOME", (dir_ / "xdg").c_str(), 1);
    unsetenv("UISCOPE_CONFIG");
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
    std::filesystem::remove_all(dir_);
  }
  void Write(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  std::filesystem::path dir_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST_F(ConfigFiles, MissingDefaultFileMeansDefaults) {
  auto c = LoadPolicyConfig();
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->source, "defaults");
  EXPECT_EQ(DefaultConfigPath(), (dir_ / "xdg" / "uiscope" / "config.json").string());
}

TEST_F(ConfigFiles, DefaultFileIsRead) {
  Write(dir_ / "xdg" / "uiscope" / "config.json", R"({"deny_apps": ["x"]})");
  auto c = LoadPolicyConfig();
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->deny_apps, std::vector<std::string>{"x"});
  EXPECT_EQ(c->source, DefaultConfigPath());
}

TEST_F(ConfigFiles, ExplicitPathMustExist) {
  auto c = LoadPolicyConfig((dir_ / "nope.json").string());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("does not exist"), std::string::npos);
  setenv("UISCOPE_CONFIG", (dir_ / "nope.json").c_str(), 1);
  EXPECT_FALSE(LoadPolicyConfig().ok());
  c = LoadPolicyConfig(dir_.string());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("is a directory"), std::string::npos);
}

TEST_F(ConfigFiles, ErrorsNameTheFile) {
  Write(dir_ / "bad.json", "{\n\"deny_app\": []}");
  auto c = LoadPolicyConfig((dir_ / "bad.json").string());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find((dir_ / "bad.json").string() + ":2: unknown key"),
            std::string::npos)
      << c.error().message;
}

TEST_F(ConfigFiles, DatabasePathFollowsTheStateDirectories) {
  setenv("UISCOPE_STATE_DIR", "/s", 1);
  EXPECT_EQ(DefaultDatabasePath(), "/s/uiscope.db");
  unsetenv("UISCOPE_STATE_DIR");
  setenv("XDG_STATE_HOME", "/x", 1);
  EXPECT_EQ(DefaultDatabasePath(), "/x/uiscope/uiscope.db");
  unsetenv("XDG_STATE_HOME");
  setenv("HOME", "/h", 1);
  EXPECT_EQ(DefaultDatabasePath(), "/h/.local/state/uiscope/uiscope.db");
  PolicyConfig c;
  c.database = "/elsewhere.db";
  EXPECT_EQ(DatabasePath(c), "/elsewhere.db");
}

}  // namespace
}  // namespace uiscope::safety
