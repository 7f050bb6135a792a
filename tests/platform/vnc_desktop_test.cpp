// The VNC backend against real servers started here: x11vnc on a headless
// desktop with the GTK 3 fixture (capture, click, typing, clipboard, a
// killed server and its return), and TigerVNC's Xvnc with a password file
// (capture, typing into an xterm, wrong and missing passwords).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "platform/clipboard.h"
#include "platform/vnc/vnc_backend.h"
#include "support/desktop_fixture.h"
#include "support/vnc_server.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
namespace fs = std::filesystem;

using test::FreePort;
using test::Listening;
using test::StartX11Vnc;

const std::string& TempDir() { return test::VncTempDir(); }
std::string LogTail(const std::string& path) { return test::VncLogTail(path); }

// The first update after an input is waited for up to 1 s here, not the
// default 150 ms: ctest runs desktop tests two at a time on two cores, and a
// loaded x11vnc answers later. The captures are still not polled, so a
// capture that did not wait for the update at all fails as before.
VncOptions Patient(VncOptions options) {
  options.update_wait = std::chrono::milliseconds(1000);
  return options;
}

Result<std::shared_ptr<VncConnection>> ConnectTo(int port, VncOptions options = {}) {
  return VncConnection::Connect(VncAddress{"127.0.0.1", port}, Patient(options));
}

// Pixels that differ between two images of one size; all of them when the
// sizes differ.
size_t DifferentPixels(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height) return static_cast<size_t>(a.width) * a.height;
  size_t n = 0;
  for (size_t i = 0; i < a.rgb.size(); i += 3) {
    if (a.rgb[i] != b.rgb[i] || a.rgb[i + 1] != b.rgb[i + 1] || a.rgb[i + 2] != b.rgb[i + 2]) ++n;
  }
  return n;
}

ClipboardData Text(const char* text) {
  ClipboardData data;
  data.bytes = text;
  return data;
}

Point Center(const test::ScreenBox& b) { return Point{b.x + b.w / 2, b.y + b.h / 2}; }

// x11vnc on the shared desktop, with the GTK 3 fixture in it.
class X11VncTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    test::TestDesktop& desktop = test::TestDesktop::Shared();
    if (!desktop.ok()) return;
    fixture_ = desktop.LaunchFixture({"--position", "100,80"}).release();
    port_ = FreePort();
    server_ = StartX11Vnc(desktop.info().display_name, port_).release();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    if (fixture_ != nullptr) (void)fixture_->Terminate();
    delete fixture_;
    fixture_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(test::TestDesktop::Shared().ok());
    ASSERT_NE(fixture_, nullptr);
    ASSERT_NE(server_, nullptr);
    auto connection = ConnectTo(port_);
    ASSERT_TRUE(connection.ok()) << connection.error().ToString();
    connection_ = *connection;
    capture_ = OpenVncCapture(connection_);
    input_ = OpenVncInput(connection_);
    // x11vnc applies pointer events only a while after a client connects
    // (vnc_backend.h): wait until it does, as the display itself shows.
    auto x11_input = OpenXTestInput(display());
    ASSERT_TRUE(x11_input.ok());
    const Point probe{7, 7};
    ASSERT_TRUE(test::WaitUntil(
        [&] {
          (void)input_->MovePointer(probe);
          auto at = (*x11_input)->PointerPosition();
          return at.ok() && *at == probe;
        },
        milliseconds(15000)))
        << "x11vnc never applied a pointer move";
  }

  const std::string& display() { return test::TestDesktop::Shared().info().display_name; }

  static Process* fixture_;
  static Process* server_;
  static int port_;
  std::shared_ptr<VncConnection> connection_;
  std::unique_ptr<ScreenCapture> capture_;
  std::unique_ptr<Input> input_;
};
Process* X11VncTest::fixture_ = nullptr;
Process* X11VncTest::server_ = nullptr;
int X11VncTest::port_ = 0;

TEST_F(X11VncTest, CaptureEqualsTheX11CaptureOfTheSameDisplay) {
  auto x11 = OpenScreenCapture(display());
  ASSERT_TRUE(x11.ok()) << x11.error().ToString();
  EXPECT_EQ(capture_->method(), "vnc");
  EXPECT_EQ(capture_->screen_width(), (*x11)->screen_width());
  EXPECT_EQ(capture_->screen_height(), (*x11)->screen_height());
  // The caret of the focused entry blinks, and x11vnc polls (every 5 ms,
  // slower in its first seconds): poll until the two agree.
  size_t best = SIZE_MAX;
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        auto over_x11 = (*x11)->CaptureScreen();
        auto over_vnc = capture_->CaptureScreen();
        if (!over_x11.ok() || !over_vnc.ok()) {
          ADD_FAILURE() << "capture failed";
          return true;
        }
        EXPECT_EQ(over_vnc->method, "vnc");
        EXPECT_EQ(over_vnc->region, over_x11->region);
        EXPECT_NE(over_vnc->frame_hash, 0u);
        best = std::min(best, DifferentPixels(over_vnc->image, over_x11->image));
        if (best == 0) {
          EXPECT_EQ(over_vnc->frame_hash, over_x11->frame_hash);
        }
        return best == 0;
      },
      milliseconds(5000)))
      << best << " pixels differ at best";
}

TEST_F(X11VncTest, RegionsAreClippedAndBadOnesRefused) {
  auto part = capture_->CaptureRegion(Rect{-10, -10, 50, 40});
  ASSERT_TRUE(part.ok()) << part.error().ToString();
  EXPECT_EQ(part->region, (Rect{0, 0, 40, 30}));
  EXPECT_EQ(part->image.width, 40);
  auto outside = capture_->CaptureRegion(Rect{100000, 0, 10, 10});
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE(capture_->CaptureRegion(Rect{0, 0, 0, 5}).ok());
  auto window = capture_->CaptureWindow(0x400001);
  ASSERT_FALSE(window.ok());
  EXPECT_EQ(window.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(window.error().message.find("not known over VNC"), std::string::npos);
}

TEST_F(X11VncTest, ClickOnLoginChangesTheStatusSeenOverTheSameLink) {
  static int round = 0;
  const std::string email = "vnc" + std::to_string(++round) + "@example.org";
  ASSERT_TRUE(test::FixtureCommand(*fixture_, "set-email " + email).ok());
  auto login = test::FixtureBox(*fixture_, "widget login");
  auto status = test::FixtureBox(*fixture_, "widget status");
  ASSERT_TRUE(login.ok() && status.ok());
  // The status label's allocation may be narrow while it is empty: take its row.
  const Rect status_row{0, status->y, capture_->screen_width(), std::max(status->h, 20)};
  // A second capture of the same connection (the web page's tiles beside
  // the engine's) is told of the same change: damage is each capture's own.
  auto other = OpenVncCapture(connection_);
  ASSERT_TRUE(other->CaptureScreen().ok());
  auto before = capture_->CaptureRegion(status_row);
  ASSERT_TRUE(before.ok()) << before.error().ToString();
  ASSERT_TRUE(input_->Click(Center(*login), MouseButton::kLeft, 1).ok());
  // No polling: the first capture after the click must already show it.
  auto after = capture_->CaptureRegion(status_row);
  ASSERT_TRUE(after.ok()) << after.error().ToString();
  EXPECT_GT(DifferentPixels(before->image, after->image), 20u);
  ASSERT_TRUE(after->damage.has_value());
  EXPECT_FALSE(after->damage->empty());
  auto seen_by_other = other->CaptureRegion(status_row);
  ASSERT_TRUE(seen_by_other.ok());
  ASSERT_TRUE(seen_by_other->damage.has_value());
  EXPECT_FALSE(seen_by_other->damage->empty())
      << "the other capture's damage was taken by the first";
  auto text = test::FixtureCommand(*fixture_, "status");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "Logged in as " + email);
}

TEST_F(X11VncTest, TypedAsciiAndUnicodeArrive) {
  auto entry = test::FixtureBox(*fixture_, "widget email");
  ASSERT_TRUE(entry.ok());
  auto shows = [&](const std::string& text) {
    std::string shown;
    const bool same = test::WaitUntil(
        [&] {
          auto now = test::FixtureCommand(*fixture_, "text email");
          if (now.ok()) shown = *now;
          return now.ok() && *now == text;
        },
        milliseconds(3000));
    EXPECT_TRUE(same) << text << " arrived as \"" << shown << "\"";
  };
  // Each text into the emptied field. (Emptied by the fixture, not by
  // select-all: the second click lands where the first did, and a toolkit
  // may read the pair as a double click.)
  for (const std::string text : {"Hello, VNC 123!", "Grüße"}) {
    ASSERT_TRUE(test::FixtureCommand(*fixture_, "set-email").ok());
    ASSERT_TRUE(input_->Click(Center(*entry), MouseButton::kLeft, 1).ok());
    auto before = capture_->CaptureRegion(Rect{entry->x, entry->y, entry->w, entry->h});
    ASSERT_TRUE(before.ok());
    ASSERT_TRUE(input_->TypeText(text).ok());
    auto after = capture_->CaptureRegion(Rect{entry->x, entry->y, entry->w, entry->h});
    ASSERT_TRUE(after.ok());
    EXPECT_GT(DifferentPixels(before->image, after->image), 20u) << text;
    shows(text);
  }
  // A chord with a modifier: select all, then the next key replaces it.
  auto select_all = ParseKeyChord("ctrl+a");
  ASSERT_TRUE(select_all.ok());
  ASSERT_TRUE(input_->PressChord(*select_all).ok());
  ASSERT_TRUE(input_->TypeText("z").ok());
  shows("z");
}

TEST_F(X11VncTest, ClipboardCarriesLatin1TextBothWays) {
  // x11vnc sets up its selection handling some seconds after it starts (its
  // log: "created selwin"), dropping cut text that comes before: offer the
  // text again each second until the display has it. ASCII only this way:
  // x11vnc 0.9.16 answers a UTF8_STRING request with the Latin-1 bytes
  // unconverted ("Grüße" reaches apps as "Gr\xfc\xdfe"); Xvnc converts
  // (XvncTest.ClipboardCarriesNonAsciiLatin1BothWays).
  auto clipboard = OpenVncClipboard(connection_);
  auto x11 = OpenX11Clipboard(display());
  ASSERT_TRUE(x11.ok());
  std::string seen;
  bool arrived = false;
  for (int attempt = 0; attempt < 30 && !arrived; ++attempt) {
    ASSERT_TRUE(clipboard->Own(Selection::kClipboard, Text("hello vnc 1")).ok());
    arrived = test::WaitUntil(
        [&] {
          auto got = (*x11)->Get(Selection::kClipboard, kTextMime, milliseconds(300));
          if (got.ok()) seen = got->bytes;
          return got.ok() && got->bytes == "hello vnc 1";
        },
        milliseconds(1000));
  }
  EXPECT_TRUE(arrived) << "X11 CLIPBOARD holds \"" << seen << "\"";
  auto wide = clipboard->Own(Selection::kClipboard, Text("東京"));
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(clipboard->Own(Selection::kClipboard, ClipboardData{"image/png", "x"}).error().code,
            ErrorCode::kUnsupported);

  // An app on the display copies: the text comes over the link.
  ASSERT_TRUE((*x11)->Own(Selection::kClipboard, Text("from X ä")).ok());
  std::thread serve(
      [&] { (void)(*x11)->Serve(std::chrono::steady_clock::now() + milliseconds(10000)); });
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        auto got = clipboard->Get(Selection::kClipboard, kTextMime, milliseconds(100));
        return got.ok() && got->bytes == "from X ä";
      },
      milliseconds(10000)));
  serve.join();
}

TEST_F(X11VncTest, KilledServerIsAClearErrorAndTheConnectionComesBack) {
  const int port = FreePort();
  auto server = StartX11Vnc(display(), port);
  ASSERT_NE(server, nullptr);
  VncOptions options;
  options.reconnect_interval = milliseconds(200);
  auto connection = ConnectTo(port, options);
  ASSERT_TRUE(connection.ok()) << connection.error().ToString();
  auto capture = OpenVncCapture(*connection);
  ASSERT_TRUE(capture->CaptureScreen().ok());
  kill(server->pid(), SIGKILL);
  (void)server->Wait(milliseconds(5000));
  const std::string url = "vnc://127.0.0.1:" + std::to_string(port);
  ASSERT_TRUE(
      test::WaitUntil([&] { return (*connection)->Health().state != VncState::kConnected; }));
  auto gone = capture->CaptureScreen();
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(gone.error().message.find(url), std::string::npos) << gone.error().message;
  VncHealth health = (*connection)->Health();
  EXPECT_EQ(health.state, VncState::kReconnecting);
  EXPECT_NE(health.problem.find(url), std::string::npos) << health.problem;
  auto input = OpenVncInput(*connection);
  EXPECT_EQ(input->MovePointer(Point{5, 5}).error().code, ErrorCode::kUnavailable);

  auto again = StartX11Vnc(display(), port);
  ASSERT_NE(again, nullptr);
  ASSERT_TRUE(test::WaitUntil([&] { return (*connection)->Health().state == VncState::kConnected; },
                              milliseconds(10000)))
      << (*connection)->Health().problem;
  EXPECT_EQ((*connection)->Health().reconnects, 1);
  ASSERT_TRUE(
      (*connection)->WaitForUpdate(0, std::chrono::steady_clock::now() + milliseconds(5000)));
  auto back = capture->CaptureScreen();
  ASSERT_TRUE(back.ok()) << back.error().ToString();
  EXPECT_FALSE(back->damage.has_value());  // unknown across a reconnection
}

TEST(VncConnect, NothingListeningIsAClearError) {
  const int port = FreePort();
  VncOptions options;
  options.connect_timeout = milliseconds(2000);
  auto connection = ConnectTo(port, options);
  ASSERT_FALSE(connection.ok());
  EXPECT_EQ(connection.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(connection.error().message.find("vnc://127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << connection.error().message;
}

// TigerVNC's Xvnc: its own X display, a VNC password made by vncpasswd -f.
class XvncTest : public ::testing::Test {
 protected:
  static constexpr const char* kPassword = "s3cr3tpw";

  static void SetUpTestSuite() {
    dir_ = TempDir();
    const std::string server_file = dir_ + "/xvnc.passwd";
    const std::string command =
        "printf '%s\\n' '" + std::string(kPassword) + "' | vncpasswd -f > '" + server_file + "'";
    if (std::system(command.c_str()) != 0) return;
    std::ofstream(dir_ + "/client.passwd") << kPassword << "\n";
    std::ofstream(dir_ + "/wrong.passwd") << "wrongpw1\n";
    for (int n = 150; n < 250; ++n) {
      if (!fs::exists("/tmp/.X11-unix/X" + std::to_string(n)) &&
          !fs::exists("/tmp/.X" + std::to_string(n) + "-lock")) {
        display_ = ":" + std::to_string(n);
        break;
      }
    }
    port_ = FreePort();
    SpawnOptions options;
    options.argv = {"Xvnc",       display_,         "-rfbport",  std::to_string(port_),
                    "-localhost", "-SecurityTypes", "VncAuth",   "-PasswordFile",
                    server_file,  "-geometry",      "1024x768",  "-depth",
                    "24",         "-AlwaysShared",  "-nolisten", "tcp"};
    options.log_file = dir_ + "/xvnc.log";
    auto process = Process::Spawn(options);
    if (!process.ok()) return;
    server_ = process->release();
    if (!test::WaitUntil([] { return Listening(port_); }, milliseconds(15000))) {
      ADD_FAILURE() << "Xvnc did not listen: " << LogTail(options.log_file);
    }
  }
  static void TearDownTestSuite() {
    delete terminal_;
    terminal_ = nullptr;
    delete server_;
    server_ = nullptr;
  }

  VncOptions WithPassword(const std::string& file) {
    VncOptions options;
    options.password_file = dir_ + "/" + file;
    return options;
  }

  static std::string dir_;
  static std::string display_;
  static int port_;
  static Process* server_;
  static Process* terminal_;
};
std::string XvncTest::dir_;
std::string XvncTest::display_;
int XvncTest::port_ = 0;
Process* XvncTest::server_ = nullptr;
Process* XvncTest::terminal_ = nullptr;

TEST_F(XvncTest, WrongOrMissingPasswordIsAClearErrorWithoutThePassword) {
  ASSERT_NE(server_, nullptr);
  auto wrong = ConnectTo(port_, WithPassword("wrong.passwd"));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(wrong.error().message.find("refused the password"), std::string::npos)
      << wrong.error().message;
  EXPECT_NE(wrong.error().message.find("vnc://127.0.0.1:" + std::to_string(port_)),
            std::string::npos);
  EXPECT_EQ(wrong.error().message.find("wrongpw1"), std::string::npos) << wrong.error().message;

  auto none = ConnectTo(port_);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kInvalidArgument) << none.error().ToString();
  EXPECT_NE(none.error().message.find("password"), std::string::npos) << none.error().message;

  auto missing = ConnectTo(port_, WithPassword("no-such-file"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no-such-file"), std::string::npos);
}

TEST_F(XvncTest, CaptureEqualsX11AndTypingReachesAnXterm) {
  ASSERT_NE(server_, nullptr);
  SpawnOptions xterm;
  xterm.argv = {"xterm", "-geometry", "80x10+20+20", "-fa", "DejaVu Sans Mono", "-fs", "12"};
  xterm.env = {{"DISPLAY", display_}, {"LANG", "C.UTF-8"}, {"LC_ALL", "C.UTF-8"},
               {"HOME", dir_},        {"PS1", "$ "},       {"SHELL", "/bin/sh"}};
  xterm.working_dir = dir_;
  xterm.log_file = dir_ + "/xterm.log";
  auto process = Process::Spawn(xterm);
  ASSERT_TRUE(process.ok()) << process.error().ToString();
  terminal_ = process->release();

  auto connection = ConnectTo(port_, WithPassword("client.passwd"));
  ASSERT_TRUE(connection.ok()) << connection.error().ToString();
  auto capture = OpenVncCapture(*connection);
  auto input = OpenVncInput(*connection);
  auto x11 = OpenScreenCapture(display_);
  ASSERT_TRUE(x11.ok()) << x11.error().ToString();
  // Wait for the xterm to be drawn (its prompt).
  ASSERT_TRUE(test::WaitUntil(
      [&] {
        auto frame = (*x11)->CaptureRegion(Rect{20, 20, 300, 40});
        if (!frame.ok()) return false;
        for (size_t i = 0; i < frame->image.rgb.size(); ++i) {
          if (frame->image.rgb[i] != frame->image.rgb[0]) return true;
        }
        return false;
      },
      milliseconds(10000)));
  size_t best = SIZE_MAX;
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        auto over_x11 = (*x11)->CaptureScreen();
        auto over_vnc = capture->CaptureScreen();
        if (!over_x11.ok() || !over_vnc.ok()) {
          ADD_FAILURE() << "capture failed";
          return true;
        }
        EXPECT_EQ(over_vnc->region, (Rect{0, 0, 1024, 768}));
        best = std::min(best, DifferentPixels(over_vnc->image, over_x11->image));
        return best == 0;
      },
      milliseconds(5000)))
      << best << " pixels differ at best";

  ASSERT_TRUE(input->Click(Point{200, 60}, MouseButton::kLeft, 1).ok());
  ASSERT_TRUE(input->TypeText("printf '%s' 'Grüße, VNC!' > typed.txt\n").ok());
  const std::string path = dir_ + "/typed.txt";
  std::string got;
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        std::ifstream in(path);
        std::stringstream all;
        all << in.rdbuf();
        got = all.str();
        return got == "Grüße, VNC!";
      },
      milliseconds(5000)))
      << "typed.txt holds \"" << got << "\"";
}

// Xvnc's default security types (VeNCrypt TLSVnc first, then VncAuth), as a
// user's server would have them.
TEST_F(XvncTest, DefaultSecurityTypesTakeThePassword) {
  ASSERT_NE(server_, nullptr);
  std::string display;
  for (int n = 251; n < 350 && display.empty(); ++n) {
    const std::string number = std::to_string(n);
    if (!fs::exists(std::string("/tmp/.X11-unix/X").append(number)) &&
        !fs::exists(std::string("/tmp/.X").append(number).append("-lock"))) {
      display = std::string(":").append(number);
    }
  }
  const int port = FreePort();
  SpawnOptions options;
  options.argv = {"Xvnc",
                  display,
                  "-rfbport",
                  std::to_string(port),
                  "-localhost",
                  "-PasswordFile",
                  dir_ + "/xvnc.passwd",
                  "-geometry",
                  "640x480",
                  "-nolisten",
                  "tcp"};
  options.log_file = dir_ + "/xvnc-default.log";
  auto process = Process::Spawn(options);
  ASSERT_TRUE(process.ok());
  ASSERT_TRUE(test::WaitUntil([&] { return Listening(port); }, milliseconds(15000)))
      << LogTail(options.log_file);
  auto connection = ConnectTo(port, WithPassword("client.passwd"));
  ASSERT_TRUE(connection.ok()) << connection.error().ToString();
  EXPECT_EQ((*connection)->width(), 640);
  auto frame = OpenVncCapture(*connection)->CaptureScreen();
  ASSERT_TRUE(frame.ok()) << frame.error().ToString();
  auto wrong = ConnectTo(port, WithPassword("wrong.passwd"));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, ErrorCode::kInvalidArgument) << wrong.error().ToString();
}

TEST_F(XvncTest, ClipboardCarriesNonAsciiLatin1BothWays) {
  ASSERT_NE(server_, nullptr);
  auto connection = ConnectTo(port_, WithPassword("client.passwd"));
  ASSERT_TRUE(connection.ok()) << connection.error().ToString();
  auto clipboard = OpenVncClipboard(*connection);
  auto x11 = OpenX11Clipboard(display_);
  ASSERT_TRUE(x11.ok()) << x11.error().ToString();
  ASSERT_TRUE(clipboard->Own(Selection::kClipboard, Text("Grüße, Xvnc")).ok());
  std::string seen;
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        auto got = (*x11)->Get(Selection::kClipboard, kTextMime, milliseconds(300));
        if (got.ok()) seen = got->bytes;
        return got.ok() && got->bytes == "Grüße, Xvnc";
      },
      milliseconds(5000)))
      << "X11 CLIPBOARD holds \"" << seen << "\"";

  ASSERT_TRUE((*x11)->Own(Selection::kClipboard, Text("Äpfel from X")).ok());
  std::thread serve(
      [&] { (void)(*x11)->Serve(std::chrono::steady_clock::now() + milliseconds(3000)); });
  EXPECT_TRUE(test::WaitUntil(
      [&] {
        auto got = clipboard->Get(Selection::kClipboard, kTextMime, milliseconds(100));
        if (got.ok()) seen = got->bytes;
        return got.ok() && got->bytes == "Äpfel from X";
      },
      milliseconds(5000)))
      << "VNC cut text holds \"" << seen << "\"";
  serve.join();
}

}  // namespace
}  // namespace uiscope
