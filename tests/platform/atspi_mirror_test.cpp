// Unit tests of the mirror's bookkeeping (platform/atspi/atspi_mirror.h)
// with a fake event stream: no D-Bus, no display.
#include "platform/atspi/atspi_mirror.h"

#include <gtest/gtest.h>

#include <optional>
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
  // (An action not answered by an event yet: still served, see
  // AfterAnActionATrustedToolkitIsServedUntilItsReactionCame.)
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

TEST(MirrorBookTest, AfterAnActionATrustedToolkitIsServedUntilItsReactionCame) {
  // Its toolkit reports every change: before its reaction's events the tree
  // is what a walk would read; the events then name what to read again.
  MirrorBook book;
  book.Store(kBus, kKey, book.MarkOf(kBus), AppTree("Play"), StreamTrust::kToolkit);
  book.NoteActed(kBus);
  EXPECT_TRUE(book.Lookup(kBus, kKey).has_value());
  using Dirty = std::vector<MirrorBook::DirtyObject>;
  EXPECT_EQ(book.Dirty(kBus, kKey), Dirty{});
  book.OnEvent(kBus, "/button", EventChange::kAttributes);
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
  EXPECT_EQ(book.Dirty(kBus, kKey), (Dirty{{"/button", EventChange::kAttributes}}));
  // Not trusted: walked until it reacted.
  MirrorBook other;
  StoreTree(other);
  other.NoteActed(kBus);
  EXPECT_FALSE(other.Lookup(kBus, kKey).has_value());
  EXPECT_FALSE(other.Dirty(kBus, kKey).has_value());
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
  EXPECT_EQ(ClassifyEvent("Object", "BoundsChanged", ""), EventChange::kBounds);
  EXPECT_EQ(ClassifyEvent("Object", "VisibleDataChanged", ""), kSub);
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

TEST(MirrorBookDirtyTest, ABoxThatMovedIsTheNarrowestChange) {
  MirrorBook book;
  StoreTree(book);
  book.OnEvent(kBus, "/label", EventChange::kBounds);
  book.OnEvent(kBus, "/box", EventChange::kBounds);
  book.OnEvent(kBus, "/label", kAttrs);
  auto refresh = book.ForRefresh(kBus, kKey);
  ASSERT_TRUE(refresh.has_value());
  EXPECT_EQ(refresh->dirty, (Dirt{{"/label", kAttrs}, {"/box", EventChange::kBounds}}));
  // The stored walk comes with them, though Lookup() refuses it.
  EXPECT_FALSE(book.Lookup(kBus, kKey).has_value());
  ASSERT_EQ(refresh->kept.tree.children.size(), 1u);
  EXPECT_EQ(refresh->kept.tree.children[0].name, "Play");
  book.OnEvent(kBus, "/window", EventChange::kElsewhere);
  EXPECT_FALSE(book.ForRefresh(kBus, kKey).has_value());
}

// --- MergeRereads: a re-read subtree into a copy of the stored tree ---

Node Make(Role role, const std::string& path, const std::string& name,
          std::optional<Rect> bounds = std::nullopt, std::vector<Node> children = {}) {
  Node n;
  n.role = role;
  n.name = name;
  n.bounds = bounds;
  n.ref = BackendRef{kBus, path};
  n.children = std::move(children);
  return n;
}

// app > window > form panel > [status label, list > rows, OK button]
Node Stored() {
  std::vector<Node> rows;
  for (int i = 0; i < 3; ++i) {
    rows.push_back(Make(Role::kListItem, "/row" + std::to_string(i), "row " + std::to_string(i),
                        Rect{10, 100 + 20 * i, 100, 20}));
  }
  Node form = Make(Role::kPanel, "/form", "form", Rect{0, 0, 400, 300},
                   {Make(Role::kLabel, "/status", "Not logged in", Rect{10, 10, 120, 20}),
                    Make(Role::kList, "/list", "", Rect{10, 100, 100, 60}, rows),
                    Make(Role::kButton, "/ok", "OK", Rect{10, 200, 60, 30},
                         {Make(Role::kLabel, "/ok-label", "OK!", Rect{12, 202, 50, 20})})});
  return Make(Role::kApplication, "/root", "app", std::nullopt,
              {Make(Role::kWindow, "/win", "Login", Rect{0, 0, 400, 300}, {form})});
}

const Node& At(const Node& root, std::initializer_list<size_t> indices) {
  const Node* n = &root;
  for (size_t i : indices) n = &n->children.at(i);
  return *n;
}

TEST(MergeRereadsTest, AnAttributeReadAgainReplacesOnlyThatNode) {
  Node status = Make(Role::kLabel, "/status", "Logged in as a@b.c", Rect{10, 10, 120, 20});
  status.states.Set(State::kFocused);
  auto merged = MergeRereads(Stored(), {Reread{"/status", status}}, MergeRules{});
  ASSERT_TRUE(merged.has_value());
  const Node& form = At(*merged, {0, 0});
  ASSERT_EQ(form.children.size(), 3u);
  EXPECT_EQ(form.children[0].name, "Logged in as a@b.c");
  EXPECT_TRUE(form.children[0].states.Has(State::kFocused));
  EXPECT_EQ(form.children[1].children.size(), 3u) << "the list is untouched";
  EXPECT_EQ(form.children[2].name, "OK");
  EXPECT_EQ(Stored().children[0].children[0].children[0].name, "Not logged in");
}

TEST(MergeRereadsTest, AReadSubtreeBringsItsAddedRemovedAndReorderedChildren) {
  // Row 0 gone, a new row first, row 2 before row 1 (as the walk built them).
  Node list = Make(Role::kList, "/list", "", Rect{10, 100, 100, 60},
                   {Make(Role::kListItem, "/row9", "new", Rect{10, 100, 100, 20}),
                    Make(Role::kListItem, "/row2", "row 2", Rect{10, 120, 100, 20}),
                    Make(Role::kListItem, "/row1", "row 1", Rect{10, 140, 100, 20})});
  auto merged = MergeRereads(Stored(), {Reread{"/list", list}}, MergeRules{});
  ASSERT_TRUE(merged.has_value());
  const Node& got = At(*merged, {0, 0, 1});
  ASSERT_EQ(got.children.size(), 3u);
  EXPECT_EQ(got.children[0].ref.path, "/row9");
  EXPECT_EQ(got.children[1].ref.path, "/row2");
  EXPECT_EQ(got.children[2].ref.path, "/row1");
}

TEST(MergeRereadsTest, ANodeAWalkWouldNotShowIsRemovedWithItsSubtree) {
  auto merged =
      MergeRereads(Stored(), {Reread{"/list", std::nullopt}, Reread{"/status", {}}}, MergeRules{});
  ASSERT_TRUE(merged.has_value());
  const Node& form = At(*merged, {0, 0});
  ASSERT_EQ(form.children.size(), 1u);
  EXPECT_EQ(form.children[0].ref.path, "/ok");
}

TEST(MergeRereadsTest, SeveralReadsUnderOneParentAndApart) {
  Node row1 = Make(Role::kListItem, "/row1", "row one", Rect{10, 120, 100, 20});
  Node status = Make(Role::kLabel, "/status", "Busy", Rect{10, 10, 120, 20});
  auto merged = MergeRereads(
      Stored(), {Reread{"/row0", std::nullopt}, Reread{"/row1", row1}, Reread{"/status", status}},
      MergeRules{});
  ASSERT_TRUE(merged.has_value());
  const Node& list = At(*merged, {0, 0, 1});
  ASSERT_EQ(list.children.size(), 2u);
  EXPECT_EQ(list.children[0].name, "row one");
  EXPECT_EQ(list.children[1].name, "row 2");
  EXPECT_EQ(At(*merged, {0, 0, 0}).name, "Busy");
}

TEST(MergeRereadsTest, WhatCannotBeVouchedForIsWalked) {
  const Node label = Make(Role::kLabel, "/status", "x", Rect{10, 10, 120, 20});
  // Not in the stored tree; the application or a window.
  EXPECT_FALSE(MergeRereads(Stored(), {Reread{"/nowhere", label}}, MergeRules{}));
  EXPECT_FALSE(MergeRereads(Stored(), {Reread{"/win", label}}, MergeRules{}));
  EXPECT_FALSE(MergeRereads(Stored(), {Reread{"/root", label}}, MergeRules{}));
  // One read inside another.
  EXPECT_FALSE(MergeRereads(Stored(), {Reread{"/list", {}}, Reread{"/row1", {}}}, MergeRules{}));
  // The label inside a button names it.
  EXPECT_FALSE(MergeRereads(
      Stored(), {Reread{"/ok-label", Make(Role::kLabel, "/ok-label", "OK", Rect{12, 202, 50, 20})}},
      MergeRules{}));
  // Another application's object.
  Node foreign = label;
  foreign.ref.owner = ":1.77";
  EXPECT_FALSE(MergeRereads(Stored(), {Reread{"/status", foreign}}, MergeRules{}));
}

TEST(MergeRereadsTest, AMovedBoxIsTakenOnlyFromAToolkitThatNamesWhatMoved) {
  // Wider, same place: siblings keep their order.
  const Node wider = Make(Role::kLabel, "/status", "Logged in", Rect{10, 10, 300, 20});
  EXPECT_FALSE(MergeRereads(Stored(), {Reread{"/status", wider}}, MergeRules{}));
  auto merged =
      MergeRereads(Stored(), {Reread{"/status", wider}}, MergeRules{.sends_bounds_events = true});
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(At(*merged, {0, 0, 0}).bounds->w, 300);
  // Moved below the list: a walk would read it after the list.
  const Node below = Make(Role::kLabel, "/status", "x", Rect{10, 170, 120, 20});
  EXPECT_FALSE(
      MergeRereads(Stored(), {Reread{"/status", below}}, MergeRules{.sends_bounds_events = true}));
  // Without a box among placed siblings: the walk's order is the toolkit's.
  const Node unplaced = Make(Role::kLabel, "/status", "x");
  EXPECT_FALSE(MergeRereads(Stored(), {Reread{"/status", unplaced}},
                            MergeRules{.sends_bounds_events = true}));
}

TEST(MergeRereadsTest, ChromiumKeepsDomOrderAndDropsEmptyPanels) {
  const MergeRules chromium{.sends_bounds_events = false, .chromium = true};
  // Same boxes; an empty sizeless unnamed panel is as good as gone.
  auto merged =
      MergeRereads(Stored(), {Reread{"/status", Make(Role::kPanel, "/status", "")}}, chromium);
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(At(*merged, {0, 0}).children.size(), 2u);
  // The only child of its parent: the parent would be dropped too.
  EXPECT_FALSE(MergeRereads(Stored(), {Reread{"/ok-label", std::nullopt}}, chromium));
  // A label named by its text leaf.
  Node tree = Stored();
  tree.children[0].children[0].children[0].children.push_back(
      Make(Role::kText, "/status-text", "Not logged in"));
  EXPECT_FALSE(MergeRereads(tree, {Reread{"/status-text", std::nullopt}}, chromium));
}

}  // namespace
}  // namespace uiscope::atspi
