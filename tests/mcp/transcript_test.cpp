// Protocol transcripts (STYLE.md "Protocol tests as transcripts"): every file
// in tests/mcp/transcripts is replayed through the same line handling as the
// stdio transport, and every message the server sends must match the next
// expectation. The format is described at the top of lifecycle.txt.
#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>

#include "mcp/server.h"
#include "mcp/stdio_transport.h"
#include "test_tools.h"

namespace uiscope::mcp {
namespace {

class Recorder final : public Outbound {
 public:
  bool Send(const json& message) override {
    std::lock_guard lock(mutex_);
    // Round-trip through text, as the wire does.
    sent_.push_back(json::parse(message.dump(-1, ' ', false, json::error_handler_t::replace)));
    arrived_.notify_all();
    return true;
  }
  // The next message sent, waiting up to `timeout` for it (tools on worker
  // threads answer later); nullopt when none came.
  std::optional<json> Next(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    arrived_.wait_for(lock, timeout, [&] { return !sent_.empty(); });
    if (sent_.empty()) return std::nullopt;
    json j = std::move(sent_.front());
    sent_.pop_front();
    return j;
  }
  std::deque<json> sent_;
  std::mutex mutex_;
  std::condition_variable arrived_;
};

// Subset match: every key of `expected` is in `actual` with a matching
// value; "*" matches anything; arrays match element-wise and in length;
// numbers compare by value (1 == 1.0).
bool Matches(const json& expected, const json& actual, std::string* why, const std::string& path) {
  if (expected.is_string() && expected == "*") return true;
  if (expected.is_object()) {
    if (!actual.is_object()) {
      *why = path + ": expected an object, got " + actual.dump();
      return false;
    }
    for (const auto& [key, value] : expected.items()) {
      if (!actual.contains(key)) {
        *why = path + "." + key + ": missing in " + actual.dump();
        return false;
      }
      if (!Matches(value, actual[key], why, path + "." + key)) return false;
    }
    return true;
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) {
      *why = path + ": expected " + expected.dump() + ", got " + actual.dump();
      return false;
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      if (!Matches(expected[i], actual[i], why, path + "[" + std::to_string(i) + "]")) return false;
    }
    return true;
  }
  if (expected.is_number() && actual.is_number()) {
    if (expected.get<double>() == actual.get<double>()) return true;
  } else if (expected == actual) {
    return true;
  }
  *why = path + ": expected " + expected.dump() + ", got " + actual.dump();
  return false;
}

class TranscriptTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TranscriptTest, Replays) {
  std::ifstream in(GetParam());
  ASSERT_TRUE(in) << GetParam();
  ServerOptions options;
  options.tools_inline = true;
  options.validate_output = true;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# option tools_page_size=", 0) == 0)
      options.tools_page_size = std::stoi(line.substr(25));
    // Tools on worker threads, as over stdio: a call may then wait for the
    // client's answer to a request of the server (elicitation).
    if (line == "# option workers") options.tools_inline = false;
    lines.push_back(line);
  }
  ToolRegistry tools = test::MakeTestTools();
  Server server(tools, options);
  auto session = server.NewSession();
  Recorder out;
  LineSplitter splitter(1 << 20);
  int number = 0;
  for (const std::string& line : lines) {
    ++number;
    const std::string where = GetParam() + ":" + std::to_string(number);
    if (line.rfind("> ", 0) == 0) {
      splitter.Feed(line.substr(2) + "\n",
                    [&](const LineSplitter::Line& l) { HandleLine(*session, l, 1 << 20, out); });
    } else if (line.rfind("< ", 0) == 0) {
      json expected = json::parse(line.substr(2));
      std::optional<json> actual = out.Next(std::chrono::seconds(options.tools_inline ? 0 : 10));
      ASSERT_TRUE(actual) << where << ": expected " << expected.dump()
                          << " but the server sent nothing more";
      std::string why;
      EXPECT_TRUE(Matches(expected, *actual, &why, "")) << where << ": " << why;
    }
  }
  session->Drain();
  for (const json& extra : out.sent_)
    ADD_FAILURE() << GetParam() << ": unexpected " << extra.dump();
}

std::vector<std::string> TranscriptFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(UISCOPE_TRANSCRIPTS)) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

INSTANTIATE_TEST_SUITE_P(Files, TranscriptTest, ::testing::ValuesIn(TranscriptFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return std::filesystem::path(info.param).stem().string();
                         });

}  // namespace
}  // namespace uiscope::mcp
