// Unit tests of the mirror's bookkeeping (platform/atspi/atspi_mirror.h)
// with a fake event stream: no D-Bus, no display.
#include "platform/atspi/atspi_mirror.h"

#include <gtest/gtest.h>

namespace uiscope::atspi {
namespace {

Node AppTree(const std::string& label) {
  Node app;
  app.role = Role::kApplication;
  app.name = "app";
  Node button;
  button.role = Role::kButton;
  button.name = label;
  app.children.push_back(button);
  return app;
}

const std::string kBus = ":1.42";
const std::string kKey = "limits|win@0,0,100,100";

// `kBus` proves its event stream and a walk of it is stored.
void StoreTree(MirrorBook& book) {
  book.OnEvent(kBus, "/org/a11y/atspi/accessible/1");
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Play"));
}

TEST(MirrorBookTest, ServesTheStoredTreeWhileNoEventCame) {
  MirrorBook book;
  StoreTree(book);
  auto kept = book.Lookup(kBus, kKey);
  ASSERT_TRUE(kept.has_value());
  ASSERT_EQ(kept->children.size(), 1u);
  EXPECT_EQ(kept->children[0].name, "Play");
  EXPECT_TRUE(book.Lookup(kBus, kKey).has_value()) << "serving does not use the tree up";
}

TEST(MirrorBookTest, AnyEventMakesTheNextLookupWalk) {
  MirrorBook book;
  StoreTree(book);
  book.OnEvent(kBus, "/org/a11y/atspi/accessible/7");
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
  // The walk that follows is stored and served again.
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Pause"));
  auto kept = book.Lookup(kBus, kKey);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->children[0].name, "Pause");
}

TEST(MirrorBookTest, EventsOfOtherAppsDoNotDirtyIt) {
  MirrorBook book;
  StoreTree(book);
  book.OnEvent(":1.43", "/org/a11y/atspi/accessible/1");
  EXPECT_TRUE(book.Lookup(kBus, kKey).has_value());
}

TEST(MirrorBookTest, AnEventDuringTheWalkLeavesItsTreeDirty) {
  MirrorBook book;
  book.OnEvent(kBus, "/a");
  const MirrorBook::Mark mark = book.MarkOf(kBus);  // the walk begins
  book.OnEvent(kBus, "/b");                          // something changes meanwhile
  book.Store(kBus, kKey, mark, AppTree("Play"));     // the walk ends
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
}

TEST(MirrorBookTest, AnAppThatNeverSentAnEventIsAlwaysWalked) {
  // A toolkit that emits nothing (or a listener it never heard of): its
  // first tree would be served forever.
  MirrorBook book;
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Play"));
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
}

TEST(MirrorBookTest, AnotherKeyIsWalked) {
  // A moved window, another screen, other request limits.
  MirrorBook book;
  StoreTree(book);
  EXPECT_FALSE(book.Lookup(kBus, "limits|win@5,0,100,100").has_value());
}

TEST(MirrorBookTest, AfterAnActionTheAppIsWalkedUntilItSendsAnEvent) {
  // The toolkit may not report the action's effect: until the app shows it
  // reacted (an event), every observation walks it.
  MirrorBook book;
  StoreTree(book);
  book.NoteActed(kBus);
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Stop"));
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value()) << "no event since the action";
  book.OnEvent(kBus, "/reaction");
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value()) << "the event came after the walk";
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Stopped"));
  auto kept = book.Lookup(kBus, kKey);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->children[0].name, "Stopped");
}

TEST(MirrorBookTest, AnActionOnAnAppNotSeenYetCounts) {
  MirrorBook book;
  book.NoteActed(kBus);
  book.OnEvent(kBus, "/a");  // it reacts
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Play"));
  EXPECT_TRUE(book.Lookup(kBus, kKey).has_value());
}

TEST(MirrorBookTest, AnAppThatLeftTheBusLosesItsTree) {
  MirrorBook book;
  StoreTree(book);
  book.OnAppGone(kBus);
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
  EXPECT_EQ(book.stored(), 0u);
}

TEST(MirrorBookTest, AWalkOfAnAppThatLeftDuringItIsNotStored) {
  MirrorBook book;
  book.OnEvent(kBus, "/a");
  const MirrorBook::Mark mark = book.MarkOf(kBus);
  book.OnAppGone(kBus);
  book.OnEvent(kBus, "/late");  // a stray event under the old name
  book.Store(kBus, kKey, mark, AppTree("Play"));
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
}

TEST(MirrorBookTest, ALostStreamDropsEverythingAndWalksInFlightAreNotStored) {
  MirrorBook book;
  StoreTree(book);
  book.OnEvent(":1.50", "/a");
  const MirrorBook::Mark in_flight = book.MarkOf(":1.50");
  book.OnStreamLost();
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
  EXPECT_EQ(book.stored(), 0u);
  book.OnEvent(":1.50", "/a");
  book.OnEvent(":1.50", "/b");
  book.Store(":1.50", kKey, in_flight, AppTree("Play"));
  EXPECT_FALSE(book.Lookup(":1.50", kKey).has_value()) << "stored across a lost stream";
}

TEST(MirrorBookTest, DropForgetsTheTreeButNotTheStream) {
  MirrorBook book;
  StoreTree(book);
  book.Drop(kBus);
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Play"));
  EXPECT_TRUE(book.Lookup(kBus, kKey).has_value());
}

}  // namespace
}  // namespace uiscope::atspi
