// Unit tests of the mirror's bookkeeping (platform/atspi/atspi_mirror.h)
// with a fake event stream: no D-Bus, no display.
#include "platform/atspi/atspi_mirror.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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
  ASSERT_EQ(kept->tree.children.size(), 1u);
  EXPECT_EQ(kept->tree.children[0].name, "Play");
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
  EXPECT_EQ(kept->tree.children[0].name, "Pause");
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

TEST(MirrorBookTest, AnAppOfAToolkitThatReportsChangesIsServedAtRest) {
  // LibreOffice at rest sends nothing: without the toolkit's word it would
  // be walked on every call.
  MirrorBook book;
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Play"), StreamTrust::kToolkit);
  ASSERT_TRUE(book.Lookup(kBus, kKey).has_value());
  EXPECT_EQ(book.Dirty(kBus, kKey), std::vector<MirrorBook::DirtyObject>{});
  // Its first event still makes the next observation walk it...
  book.OnEvent(kBus, "/cell", EventChange::kAttributes);
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
  // ...and an action not answered by an event too.
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Play"), StreamTrust::kToolkit);
  book.NoteActed(kBus);
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
}

TEST(MirrorBookTest, AServedTreeSaysAgainWhatItsWalkSaidOfIt) {
  // Calc's sheet is read by its visible cells: the tree served again must
  // still say that it is cut.
  MirrorBook book;
  book.OnEvent(kBus, "/a");
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Play"), StreamTrust::kOnceAnEventCame,
             {"soffice: read only the cells A1:W13"});
  auto kept = book.Lookup(kBus, kKey);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->warnings, std::vector<std::string>{"soffice: read only the cells A1:W13"});
}

TEST(MirrorBookTest, CountsTheHeapItsTreesHold) {
  MirrorBook book;
  EXPECT_EQ(book.bytes(), 0u);
  Node tree = AppTree("Play");
  tree.children[0].description = std::string(100, 'd');  // beyond the inline buffer
  book.Store(kBus, kKey, book.MarkOf(kBus), tree);
  const size_t bytes = book.bytes();
  EXPECT_GE(bytes, 2 * sizeof(Node) + 100);
  EXPECT_LE(bytes, 2 * sizeof(Node) + 100 + 400) << "an estimate, not a multiple";
  book.Drop(kBus);
  EXPECT_EQ(book.bytes(), 0u);
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
  EXPECT_EQ(kept->tree.children[0].name, "Stopped");
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

// Which objects the events since a walk named (the first step to refreshing
// a tree in part): Dirty().

using Dirt = std::vector<MirrorBook::DirtyObject>;
constexpr EventChange kAttrs = EventChange::kAttributes;
constexpr EventChange kSub = EventChange::kSubtree;

TEST(ClassifyEventTest, NamesWhatEachEventMayHaveChanged) {
  EXPECT_EQ(ClassifyEvent("Object", "PropertyChange", "accessible-name"), kAttrs);
  EXPECT_EQ(ClassifyEvent("Object", "PropertyChange", "accessible-value"), kAttrs);
  EXPECT_EQ(ClassifyEvent("Object", "PropertyChange", "accessible-role"), kSub);
  EXPECT_EQ(ClassifyEvent("Object", "PropertyChange", "accessible-parent"),
            EventChange::kElsewhere);
  EXPECT_EQ(ClassifyEvent("Object", "StateChanged", "checked"), kAttrs);
  EXPECT_EQ(ClassifyEvent("Object", "StateChanged", "focused"), kAttrs);
  EXPECT_EQ(ClassifyEvent("Object", "StateChanged", "showing"), kSub);
  EXPECT_EQ(ClassifyEvent("Object", "StateChanged", "visible"), kSub);
  EXPECT_EQ(ClassifyEvent("Object", "StateChanged", "defunct"), kSub);
  EXPECT_EQ(ClassifyEvent("Object", "TextChanged", "insert"), kAttrs);
  EXPECT_EQ(ClassifyEvent("Object", "ChildrenChanged", "add"), kSub);
  EXPECT_EQ(ClassifyEvent("Object", "ChildrenChanged", "remove"), kSub);
  EXPECT_EQ(ClassifyEvent("Object", "BoundsChanged", ""), EventChange::kElsewhere);
  EXPECT_EQ(ClassifyEvent("Object", "VisibleDataChanged", ""), EventChange::kElsewhere);
  EXPECT_EQ(ClassifyEvent("Window", "Activate", ""), EventChange::kElsewhere);
  EXPECT_EQ(ClassifyEvent("Document", "LoadComplete", ""), EventChange::kElsewhere);
  EXPECT_EQ(ClassifyEvent("Focus", "Focus", ""), EventChange::kElsewhere);
  EXPECT_EQ(ClassifyEvent("Object", "SomethingNew", ""), EventChange::kElsewhere);
}

TEST(MirrorBookDirtyTest, NothingDirtyWhileNoEventCame) {
  MirrorBook book;
  StoreTree(book);
  auto dirty = book.Dirty(kBus, kKey);
  ASSERT_TRUE(dirty.has_value());
  EXPECT_TRUE(dirty->empty());
}

TEST(MirrorBookDirtyTest, ListsEachNamedObjectOnceWithItsWidestChange) {
  MirrorBook book;
  StoreTree(book);
  book.OnEvent(kBus, "/label", kAttrs);
  book.OnEvent(kBus, "/list", kSub);
  book.OnEvent(kBus, "/label", kAttrs);
  book.OnEvent(kBus, "/check", kAttrs);
  book.OnEvent(kBus, "/check", kSub);
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value()) << "dirty objects are not served as they were";
  auto dirty = book.Dirty(kBus, kKey);
  ASSERT_TRUE(dirty.has_value());
  EXPECT_EQ(*dirty, (Dirt{{"/label", kAttrs}, {"/list", kSub}, {"/check", kSub}}));
  // Another app's events are not this one's.
  book.OnEvent(":1.43", "/other", kAttrs);
  EXPECT_EQ(book.Dirty(kBus, kKey)->size(), 3u);
}

TEST(MirrorBookDirtyTest, WhatTheWalkSawIsCleanWhatCameDuringItIsDirty) {
  MirrorBook book;
  StoreTree(book);
  book.OnEvent(kBus, "/before", kAttrs);
  const MirrorBook::Mark mark = book.MarkOf(kBus);  // a walk begins
  book.OnEvent(kBus, "/during", kAttrs);
  book.Store(kBus, kKey, mark, AppTree("Pause"));
  auto dirty = book.Dirty(kBus, kKey);
  ASSERT_TRUE(dirty.has_value());
  EXPECT_EQ(*dirty, (Dirt{{"/during", kAttrs}}));
  // Named before and during the walk: dirty.
  book.OnEvent(kBus, "/before", kAttrs);
  const MirrorBook::Mark mark2 = book.MarkOf(kBus);
  book.OnEvent(kBus, "/before", kAttrs);
  book.Store(kBus, kKey, mark2, AppTree("Pause"));
  EXPECT_EQ(*book.Dirty(kBus, kKey), (Dirt{{"/before", kAttrs}}));
}

TEST(MirrorBookDirtyTest, AnEventThatMayChangeOtherObjectsMeansWalk) {
  MirrorBook book;
  StoreTree(book);
  book.OnEvent(kBus, "/label", kAttrs);
  book.OnEvent(kBus, "/panel", EventChange::kElsewhere);
  EXPECT_FALSE(book.Dirty(kBus, kKey).has_value());
  // The same object named again by a local event does not make it local.
  book.OnEvent(kBus, "/panel", kAttrs);
  EXPECT_FALSE(book.Dirty(kBus, kKey).has_value());
  // A walk covers it.
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Play"));
  EXPECT_TRUE(book.Dirty(kBus, kKey).has_value());
}

TEST(MirrorBookDirtyTest, MoreObjectsThanTheBoundMeansWalk) {
  MirrorBook book;
  StoreTree(book);
  for (size_t i = 0; i < MirrorBook::kMaxDirtyObjects; ++i) {
    book.OnEvent(kBus, "/row" + std::to_string(i), kAttrs);
  }
  ASSERT_TRUE(book.Dirty(kBus, kKey).has_value());
  EXPECT_EQ(book.Dirty(kBus, kKey)->size(), MirrorBook::kMaxDirtyObjects);
  book.OnEvent(kBus, "/row0", kAttrs);  // named again: still within the bound
  EXPECT_TRUE(book.Dirty(kBus, kKey).has_value());
  book.OnEvent(kBus, "/one-more", kAttrs);
  EXPECT_FALSE(book.Dirty(kBus, kKey).has_value());
  // A walk that began after the overflow makes the log usable again.
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Play"));
  book.OnEvent(kBus, "/label", kAttrs);
  EXPECT_EQ(*book.Dirty(kBus, kKey), (Dirt{{"/label", kAttrs}}));
}

TEST(MirrorBookDirtyTest, AnOverflowDuringTheWalkKeepsItDirtyBeyondRepair) {
  MirrorBook book;
  StoreTree(book);
  const MirrorBook::Mark mark = book.MarkOf(kBus);
  for (size_t i = 0; i <= MirrorBook::kMaxDirtyObjects; ++i) {
    book.OnEvent(kBus, "/row" + std::to_string(i), kAttrs);
  }
  book.Store(kBus, kKey, mark, AppTree("Play"));
  EXPECT_FALSE(book.Dirty(kBus, kKey).has_value());
}

TEST(MirrorBookDirtyTest, AnActionNotAnsweredByAnEventMeansWalk) {
  MirrorBook book;
  StoreTree(book);
  book.OnEvent(kBus, "/label", kAttrs);
  book.NoteActed(kBus);
  EXPECT_FALSE(book.Dirty(kBus, kKey).has_value()) << "the action's effect is not reported yet";
  book.OnEvent(kBus, "/button", kAttrs);  // the app reacts
  EXPECT_EQ(*book.Dirty(kBus, kKey), (Dirt{{"/label", kAttrs}, {"/button", kAttrs}}));
}

TEST(MirrorBookDirtyTest, NoTreeOrAnotherKeyMeansWalk) {
  MirrorBook book;
  book.OnEvent(kBus, "/label", kAttrs);
  EXPECT_FALSE(book.Dirty(kBus, kKey).has_value()) << "nothing stored";
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Play"));
  EXPECT_FALSE(book.Dirty(kBus, "limits|win@5,0,100,100").has_value());
  book.Drop(kBus);
  EXPECT_FALSE(book.Dirty(kBus, kKey).has_value());
  EXPECT_FALSE(book.Dirty(":1.99", kKey).has_value());
}

TEST(MirrorBookDirtyTest, ALostStreamForgetsTheLog) {
  MirrorBook book;
  StoreTree(book);
  book.OnEvent(kBus, "/label", kAttrs);
  book.OnStreamLost();
  EXPECT_FALSE(book.Dirty(kBus, kKey).has_value());
}

TEST(MirrorBookDirtyTest, AnEventWithoutAKindIsTakenAsChangingAnything) {
  MirrorBook book;
  StoreTree(book);
  book.OnEvent(kBus, "/label");
  EXPECT_FALSE(book.Dirty(kBus, kKey).has_value());
}

}  // namespace
}  // namespace uiscope::atspi
