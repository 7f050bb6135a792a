// X11Display against a real X server that goes away under it.
#include "platform/x11/x11_display.h"

#include <gtest/gtest.h>

#include "support/desktop_fixture.h"

namespace uiscope {
namespace {

// Xlib's default is to exit() the whole process when the server goes away;
// a server holding connections to many sessions must survive one stopping.
TEST(X11DisplayTest, ServerGoingAwayMarksTheConnectionBrokenInsteadOfExiting) {
  test::TestDesktop desktop;  // its own: it is stopped under the connection
  ASSERT_TRUE(desktop.ok()) << desktop.error();
  auto display = x11::X11Display::Open(desktop.info().display_name);
  ASSERT_TRUE(display.ok()) << display.error().ToString();
  EXPECT_EQ((*display)->width(), 1920);
  EXPECT_FALSE((*display)->broken());

  ASSERT_TRUE(desktop.desktop()->Stop().ok());
  (void)(*display)->RootStringProperty("_NET_WM_NAME");  // a round trip to the dead server
  EXPECT_TRUE((*display)->broken());
  display->reset();  // XCloseDisplay on the broken connection: no exit either
}

}  // namespace
}  // namespace uiscope
