// The stdio transport over real pipes: framing, oversized messages, end of
// input.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <thread>

#include "mcp/stdio_transport.h"
#include "test_tools.h"


// AddressSanitizer, as gcc (__SANITIZE_ADDRESS__) and clang (__has_feature)
// each say it: the sanitizer build is clang's.
#if defined(__SANITIZE_ADDRESS__)
#define UISCOPE_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UISCOPE_UNDER_ASAN 1
#endif
#endif
#ifndef UISCOPE_UNDER_ASAN
#define UISCOPE_UNDER_ASAN 0
#endif

namespace uiscope::mcp {
namespace {

// Reads newline-terminated JSON messages from a file descriptor.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  std::optional<json> Next() {
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return json::parse(line);
      }
      char chunk[4096];
      ssize_t n = read(fd_, chunk, sizeof(chunk));
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    ASSERT_GT(n, 0);
    data.remove_prefix(static_cast<size_t>(n));
  }
}

long MaxRssKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

class StdioTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(pipe(to_server_), 0);
    ASSERT_EQ(pipe(from_server_), 0);
  }
  void TearDown() override {
    for (int fd : {to_server_[0], to_server_[1], from_server_[0], from_server_[1]}) {
      if (fd >= 0) close(fd);
    }
  }
  // Runs the server on a thread; returns its exit code through `rc`.
  std::thread Serve(const Server& server, int* rc, StdioOptions options = {}) {
    return std::thread([this, &server, rc, options] {
      *rc = ServeStdio(server, to_server_[0], from_server_[1], options);
      close(from_server_[1]);
      from_server_[1] = -1;
    });
  }
  void CloseInput() {
    close(to_server_[1]);
    to_server_[1] = -1;
  }

  int to_server_[2] = {-1, -1};
  int from_server_[2] = {-1, -1};
  ToolRegistry tools_ = test::MakeTestTools();
};

TEST_F(StdioTest, ServesUntilEndOfInput) {
  Server server(tools_, ServerOptions{});
  int rc = -1;
  std::thread t = Serve(server, &rc);
  WriteAll(
      to_server_[1],
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      "\"2025-11-25\",\"capabilities\":{}}}\r\n"
      "\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
      "\"arguments\":{\"text\":\"line\\nbreak\"}}}\n");
  // The last message has no newline: delivered at end of input.
  WriteAll(to_server_[1], "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
  CloseInput();
  LineReader reader(from_server_[0]);
  std::map<int, json> replies;
  while (auto m = reader.Next()) replies[(*m)["id"].get<int>()] = *m;
  t.join();
  EXPECT_EQ(rc, 0);
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_EQ(replies[1]["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(replies[2]["result"]["structuredContent"]["text"], "line\nbreak");
  EXPECT_EQ(replies[3]["result"], json::object());
}

// A 64 MiB message is refused as it streams past: the server never holds it,
// answers with an error, and serves the next message.
TEST_F(StdioTest, RefusesA64MiBMessageWithoutKeepingIt) {
  Server server(tools_, ServerOptions{});
  int rc = -1;
  const long rss_before = MaxRssKiB();
  std::thread t = Serve(server, &rc);
  std::thread writer([this] {
    WriteAll(to_server_[1],
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"");
    const std::string mib(1 << 20, 'A');
    for (int i = 0; i < 64; ++i) WriteAll(to_server_[1], mib);
    WriteAll(to_server_[1], "\"}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
    CloseInput();
  });
  LineReader reader(from_server_[0]);
  auto first = reader.Next();
  auto second = reader.Next();
  writer.join();
  t.join();
  ASSERT_TRUE(first && second);
  EXPECT_EQ((*first)["error"]["code"], kInvalidRequest);
  EXPECT_TRUE((*first)["id"].is_null());
  EXPECT_NE((*first)["error"]["message"].get<std::string>().find("message too large: 67108"),
            std::string::npos)
      << first->dump();
  EXPECT_EQ((*second)["id"], 2);
  // The writer's 1 MiB buffer and the 16 MiB line limit, not 64 MiB. Under
  // AddressSanitizer freed memory sits in quarantine and counts as resident,
  // so the bound is checked in the plain build only (ctest runs it there).
#if !UISCOPE_UNDER_ASAN
  EXPECT_LT(MaxRssKiB() - rss_before, 40 * 1024) << "KiB of peak RSS growth";
#else
  (void)rss_before;
#endif
}

// A peer that stops reading ends the loop instead of blocking forever.
TEST_F(StdioTest, StopsWhenTheOutputCloses) {
  Server server(tools_, ServerOptions{});
  int rc = -1;
  signal(SIGPIPE, SIG_IGN);
  close(from_server_[0]);
  from_server_[0] = -1;
  std::thread t = Serve(server, &rc);
  WriteAll(to_server_[1], "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
  t.join();
  EXPECT_EQ(rc, 1);
}

TEST(LineSplitterTest, SplitsAcrossChunksAndRefusesLongLines) {
  LineSplitter splitter(8);
  std::vector<std::string> lines;
  auto sink = [&](const LineSplitter::Line& l) {
    lines.push_back(l.too_long ? "<too long " + std::to_string(l.length) + ">"
                               : std::string(l.text));
  };
  const std::string input = "ab\r\ncd\n0123456789abc\nok\nlast";
  for (char c : input) splitter.Feed(std::string_view(&c, 1), sink);
  splitter.Finish(sink);
  EXPECT_EQ(lines, (std::vector<std::string>{"ab", "cd", "<too long 13>", "ok", "last"}));
}

}  // namespace
}  // namespace uiscope::mcp
