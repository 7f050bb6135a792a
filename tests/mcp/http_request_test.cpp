// The HTTP/1.1 request parser, bytes in: framing, limits, and the requests
// it refuses (each with the status the connection loop answers).
#include "mcp/http_request.h"

#include <gtest/gtest.h>

namespace uiscope::mcp {
namespace {

HttpRequestParser::Limits Small() {
  HttpRequestParser::Limits l;
  l.max_head_bytes = 256;
  l.max_body_bytes = 64;
  return l;
}

// Feeds `bytes` one at a time (the worst split) and returns the parser.
HttpRequestParser FeedBytewise(std::string_view bytes, size_t* used = nullptr) {
  HttpRequestParser p(Small());
  size_t n = 0;
  for (size_t i = 0; i < bytes.size() && p.state() != HttpRequestParser::State::kDone &&
                     p.state() != HttpRequestParser::State::kError;
       ++i) {
    n += p.Feed(bytes.substr(i, 1));
  }
  if (used) *used = n;
  return p;
}

TEST(HttpRequestParserTest, ParsesARequestWithABody) {
  const std::string text =
      "POST /mcp?x=1 HTTP/1.1\r\nHost: localhost\r\ncontent-length: 5\r\nX-A:  b \r\n\r\nhello";
  for (bool bytewise : {false, true}) {
    HttpRequestParser p(Small());
    if (bytewise) {
      p = FeedBytewise(text);
    } else {
      EXPECT_EQ(p.Feed(text), text.size());
    }
    ASSERT_EQ(p.state(), HttpRequestParser::State::kDone) << p.error_message();
    const HttpRequest& r = p.request();
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.target, "/mcp?x=1");
    EXPECT_EQ(r.path, "/mcp");
    EXPECT_EQ(r.Header("HOST"), "localhost");
    EXPECT_EQ(r.Header("x-a"), "b");
    EXPECT_EQ(r.body, "hello");
    EXPECT_TRUE(r.KeepAlive());
  }
}

TEST(HttpRequestParserTest, LeavesPipelinedBytesForTheNextRequest) {
  const std::string first = "GET /mcp HTTP/1.1\r\nHost: a\r\n\r\n";
  const std::string second = "DELETE /mcp HTTP/1.0\r\n\r\n";
  HttpRequestParser p(Small());
  const size_t used = p.Feed(first + second);
  EXPECT_EQ(used, first.size());
  ASSERT_EQ(p.state(), HttpRequestParser::State::kDone);
  p.Reset();
  EXPECT_EQ(p.Feed(second), second.size());
  ASSERT_EQ(p.state(), HttpRequestParser::State::kDone);
  EXPECT_EQ(p.request().method, "DELETE");
  EXPECT_FALSE(p.request().KeepAlive());  // HTTP/1.0 without keep-alive
}

TEST(HttpRequestParserTest, DechunksBodies) {
  const std::string text =
      "POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\n1\r\n!\r\n0\r\nTrailer: x\r\n\r\nNEXT";
  size_t used = 0;
  HttpRequestParser p = FeedBytewise(text, &used);
  ASSERT_EQ(p.state(), HttpRequestParser::State::kDone) << p.error_message();
  EXPECT_EQ(p.request().body, "hello!");
  EXPECT_EQ(used, text.size() - 4);
}

TEST(HttpRequestParserTest, RefusesWhatItShould) {
  struct Case {
    std::string text;
    int status;
  };
  const std::vector<Case> cases = {
      {"GARBAGE\r\n\r\n", 400},
      {"GET /mcp HTTP/2.0\r\n\r\n", 505},
      {"GET /mcp HTTP/1.1\r\n folded: x\r\n\r\n", 400},
      {"GET /mcp HTTP/1.1\r\nNo colon\r\n\r\n", 400},
      {"POST /mcp HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"POST /mcp HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
      {"POST /mcp HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
      {"POST /mcp HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400},
      {"POST /mcp HTTP/1.1\r\nContent-Length: 65\r\n\r\n", 413},
      {"POST /mcp HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
      {"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n", 400},
      {"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n41\r\n", 413},
      {"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab", 400},
      {"GET /mcp HTTP/1.1\r\nX: " + std::string(300, 'a') + "\r\n\r\n", 431},
      {"GET /" + std::string(300, 'a'), 431},  // a head that never ends is cut at the limit
  };
  for (const auto& c : cases) {
    HttpRequestParser whole(Small());
    whole.Feed(c.text);
    EXPECT_EQ(whole.state(), HttpRequestParser::State::kError) << c.text;
    EXPECT_EQ(whole.error_status(), c.status) << c.text << ": " << whole.error_message();
    HttpRequestParser bytewise = FeedBytewise(c.text);
    EXPECT_EQ(bytewise.error_status(), c.status) << c.text;
  }
}

TEST(HttpRequestParserTest, ReportsExpectContinue) {
  HttpRequestParser p(Small());
  p.Feed("POST /mcp HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
  EXPECT_EQ(p.state(), HttpRequestParser::State::kBody);
  EXPECT_TRUE(p.ExpectsContinue());
  p.Feed("{}");
  EXPECT_EQ(p.state(), HttpRequestParser::State::kDone);
}

}  // namespace
}  // namespace uiscope::mcp
