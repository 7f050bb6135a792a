// X11Clipboard (platform/x11/x11_clipboard.h) against another connection of
// its own on a headless desktop: an owner served from a thread, a reader on
// the test's thread. What the CLI tests cannot stage: an owner that never
// answers, and content over the reader's limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "platform/clipboard.h"
#include "support/desktop_fixture.h"

// Last: Xlib's macros (None, Status) would break the headers above.
// clang-format off
#include <X11/Xatom.h>
#include <X11/Xlib.h>
// clang-format on

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

class X11ClipboardDesktopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::TestDesktop& desktop = test::TestDesktop::Shared();
    ASSERT_TRUE(desktop.ok()) << desktop.error();
    display_ = desktop.info().display_name;
  }
  std::unique_ptr<Clipboard> Open() {
    auto c = OpenX11Clipboard(display_);
    EXPECT_TRUE(c.ok()) << c.error().ToString();
    return c.ok() ? std::move(c).value() : nullptr;
  }
  std::string display_;
};

TEST_F(X11ClipboardDesktopTest, IncrLimitTypesAndLoss) {
  auto owner = Open();
  auto reader = Open();
  ASSERT_TRUE(owner && reader);
  std::string big;
  for (int i = 0; big.size() < 300 * 1024; ++i) big += "line " + std::to_string(i) + " é\n";
  ASSERT_TRUE(owner->Own(Selection::kClipboard, {"text/plain", big}).ok());
  auto served = std::async(std::launch::async,
                           [&] { return owner->Serve(Clock::now() + std::chrono::seconds(20)); });

  auto got = reader->Get(Selection::kClipboard, "text/plain", milliseconds(5000));
  ASSERT_TRUE(got.ok()) << got.error().ToString();
  EXPECT_TRUE(got->bytes == big) << got->bytes.size() << " of " << big.size();

  auto image = reader->Get(Selection::kClipboard, "image/png", milliseconds(5000));
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(image.error().message.find("UTF8_STRING"), std::string::npos) << image.error().message;

  auto targets = reader->Targets(Selection::kClipboard, milliseconds(2000));
  ASSERT_TRUE(targets.ok()) << targets.error().ToString();
  EXPECT_EQ(targets->size(), 8u) << "TARGETS, TIMESTAMP, MULTIPLE and five text types";

  // The wire format another client sees: INCR announcing the size (ICCCM
  // 2.7.2), not one property of 300 KiB; then the pieces, each asked for by
  // deleting the property, until an empty one.
  {
    Display* d = XOpenDisplay(display_.c_str());
    ASSERT_NE(d, nullptr);
    const Window w = XCreateSimpleWindow(d, DefaultRootWindow(d), 0, 0, 1, 1, 0, 0, 0);
    XSelectInput(d, w, PropertyChangeMask);
    const Atom property = XInternAtom(d, "RAW", False);
    XConvertSelection(d, XInternAtom(d, "CLIPBOARD", False), XInternAtom(d, "UTF8_STRING", False),
                      property, w, CurrentTime);
    XFlush(d);
    XEvent e;
    ASSERT_TRUE(
        test::WaitUntil([&] { return XCheckTypedWindowEvent(d, w, SelectionNotify, &e) == True; }));
    ASSERT_EQ(e.xselection.property, property);
    auto read = [&](bool remove, Atom* type) {
      int format = 0;
      unsigned long count = 0, after = 0;
      unsigned char* data = nullptr;
      EXPECT_EQ(XGetWindowProperty(d, w, property, 0, 1 << 20, remove ? True : False,
                                   AnyPropertyType, type, &format, &count, &after, &data),
                Success);
      std::string bytes;
      if (data != nullptr) {
        bytes.assign(reinterpret_cast<char*>(data), format == 32 ? count * sizeof(long) : count);
        XFree(data);
      }
      return bytes;
    };
    // The owner wrote the INCR property before it sent SelectionNotify: its
    // NewValue event is queued already and announces no piece.
    while (XCheckTypedWindowEvent(d, w, PropertyNotify, &e) == True) {
    }
    Atom type = None;
    const std::string announced = read(true, &type);
    EXPECT_EQ(type, XInternAtom(d, "INCR", False));
    ASSERT_EQ(announced.size(), sizeof(long));
    EXPECT_EQ(static_cast<size_t>(*reinterpret_cast<const long*>(announced.data())), big.size());
    XFlush(d);
    std::string received;
    int pieces = 0;
    while (true) {
      ASSERT_TRUE(test::WaitUntil([&] {
        while (XCheckTypedWindowEvent(d, w, PropertyNotify, &e) == True) {
          if (e.xproperty.atom == property && e.xproperty.state == PropertyNewValue) return true;
        }
        return false;
      })) << "piece "
          << pieces;
      const std::string piece = read(true, &type);
      XFlush(d);
      if (piece.empty()) break;
      EXPECT_EQ(type, XInternAtom(d, "UTF8_STRING", False));
      received += piece;
      ++pieces;
    }
    EXPECT_TRUE(received == big) << received.size() << " of " << big.size();
    EXPECT_GE(pieces, 5);
    XCloseDisplay(d);
  }

  // Someone else copies: the owner's Serve() ends.
  ASSERT_TRUE(reader->Own(Selection::kClipboard, {"text/plain", "mine"}).ok());
  ASSERT_EQ(served.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  auto end = served.get();
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(*end, ServeEnd::kLost);

  // Over the reader's limit: refused mid-INCR, nothing kept. The abandoned
  // transfer must not leak into the next request on the same connection.
  auto owner2 = Open();
  ASSERT_TRUE(owner2);
  ASSERT_TRUE(owner2->Own(Selection::kClipboard, {"text/plain", big}).ok());
  const auto until = Clock::now() + std::chrono::milliseconds(2500);
  auto served2 = std::async(std::launch::async, [&] { return owner2->Serve(until); });
  auto limited = reader->Get(Selection::kClipboard, "text/plain", milliseconds(5000), 1000);
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(limited.error().message.find("larger than the limit of 1000 bytes"), std::string::npos)
      << limited.error().message;

  auto again = reader->Get(Selection::kClipboard, "text/plain", milliseconds(2000));
  ASSERT_TRUE(again.ok()) << again.error().ToString();
  EXPECT_TRUE(again->bytes == big) << again->bytes.size() << " of " << big.size();
  auto end2 = served2.get();
  ASSERT_TRUE(end2.ok());
  EXPECT_EQ(*end2, ServeEnd::kExpired) << "the abandoned transfer stalls; the deadline ends it";
}

// ICCCM §2.6.2: a requestor asking MULTIPLE lists (target, property) pairs
// in its property; the owner converts each into its property and writes the
// list back with None for the pairs it refused. xclip never asks it; this
// client does, as Emacs and some toolkits do.
TEST_F(X11ClipboardDesktopTest, MultipleConvertsEachPairAndRefusesWithNone) {
  auto owner = Open();
  ASSERT_TRUE(owner);
  ASSERT_TRUE(owner->Own(Selection::kClipboard, {"text/plain", "h\xc3\xa9llo"}).ok());
  auto served = std::async(std::launch::async,
                           [&] { return owner->Serve(Clock::now() + std::chrono::seconds(5)); });

  Display* d = XOpenDisplay(display_.c_str());
  ASSERT_NE(d, nullptr);
  const Window w = XCreateSimpleWindow(d, DefaultRootWindow(d), 0, 0, 1, 1, 0, 0, 0);
  auto atom = [&](const char* name) { return XInternAtom(d, name, False); };
  const Atom pairs_property = atom("PAIRS");
  const Atom into_utf8 = atom("INTO_UTF8"), into_latin1 = atom("INTO_LATIN1"),
             into_png = atom("INTO_PNG"), into_targets = atom("INTO_TARGETS");
  const long pairs[] = {static_cast<long>(atom("UTF8_STRING")), static_cast<long>(into_utf8),
                        static_cast<long>(XA_STRING),           static_cast<long>(into_latin1),
                        static_cast<long>(atom("image/png")),   static_cast<long>(into_png),
                        static_cast<long>(atom("TARGETS")),     static_cast<long>(into_targets)};
  XChangeProperty(d, w, pairs_property, atom("ATOM_PAIR"), 32, PropModeReplace,
                  reinterpret_cast<const unsigned char*>(pairs), 8);
  XConvertSelection(d, atom("CLIPBOARD"), atom("MULTIPLE"), pairs_property, w, CurrentTime);
  XFlush(d);
  XEvent e;
  ASSERT_TRUE(
      test::WaitUntil([&] { return XCheckTypedWindowEvent(d, w, SelectionNotify, &e) == True; }));
  ASSERT_EQ(e.xselection.property, pairs_property) << "MULTIPLE was refused";
  auto read = [&](Atom property, Atom* type, int* format) {
    unsigned long count = 0, after = 0;
    unsigned char* data = nullptr;
    *type = None;
    *format = 0;
    XGetWindowProperty(d, w, property, 0, 1 << 16, False, AnyPropertyType, type, format, &count,
                       &after, &data);
    std::string bytes;
    if (data != nullptr) {
      bytes.assign(reinterpret_cast<char*>(data), *format == 32 ? count * sizeof(long) : count);
      XFree(data);
    }
    return bytes;
  };
  Atom type = None;
  int format = 0;
  const std::string written = read(pairs_property, &type, &format);
  EXPECT_EQ(type, atom("ATOM_PAIR"));
  ASSERT_EQ(written.size(), sizeof(pairs));
  const long* back = reinterpret_cast<const long*>(written.data());
  EXPECT_EQ(back[1], static_cast<long>(into_utf8));
  EXPECT_EQ(back[3], static_cast<long>(into_latin1));
  EXPECT_EQ(back[5], static_cast<long>(None)) << "image/png is refused: its property is None";
  EXPECT_EQ(back[7], static_cast<long>(into_targets));
  EXPECT_EQ(read(into_utf8, &type, &format), "h\xc3\xa9llo");
  EXPECT_EQ(type, atom("UTF8_STRING"));
  EXPECT_EQ(read(into_latin1, &type, &format), "h\xe9llo");
  EXPECT_EQ(type, XA_STRING);
  read(into_png, &type, &format);
  EXPECT_EQ(type, static_cast<Atom>(None)) << "nothing written for a refused pair";
  const std::string targets = read(into_targets, &type, &format);
  EXPECT_EQ(type, XA_ATOM);
  const long* listed = reinterpret_cast<const long*>(targets.data());
  EXPECT_NE(std::find(listed, listed + targets.size() / sizeof(long),
                      static_cast<long>(atom("MULTIPLE"))),
            listed + targets.size() / sizeof(long))
      << "TARGETS lists MULTIPLE";

  // MULTIPLE without a property to read the pairs from is refused.
  XConvertSelection(d, atom("CLIPBOARD"), atom("MULTIPLE"), None, w, CurrentTime);
  XFlush(d);
  ASSERT_TRUE(
      test::WaitUntil([&] { return XCheckTypedWindowEvent(d, w, SelectionNotify, &e) == True; }));
  EXPECT_EQ(e.xselection.property, static_cast<Atom>(None));
  XCloseDisplay(d);
  // Someone else copies: the owner's Serve() ends.
  auto other = Open();
  ASSERT_TRUE(other && other->Own(Selection::kClipboard, {"text/plain", "theirs"}).ok());
  ASSERT_EQ(served.wait_for(std::chrono::seconds(5)), std::future_status::ready);
}

TEST_F(X11ClipboardDesktopTest, AnOwnerThatNeverAnswersCostsOneDeadline) {
  auto owner = Open();
  auto reader = Open();
  ASSERT_TRUE(owner && reader);
  // Owns, never serves: a hung app.
  ASSERT_TRUE(owner->Own(Selection::kPrimary, {"text/plain", "unreachable"}).ok());
  const auto start = Clock::now();
  auto got = reader->Get(Selection::kPrimary, "text/plain", milliseconds(400));
  const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().code, ErrorCode::kTimeout);
  EXPECT_NE(got.error().message.find("did not answer"), std::string::npos) << got.error().message;
  EXPECT_GE(took.count(), 390);
  EXPECT_LT(took.count(), 900);
}

}  // namespace
}  // namespace uiscope
