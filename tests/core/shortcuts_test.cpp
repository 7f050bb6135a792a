// The shortcut registry's pure half (core/shortcuts.h): AT-SPI key bindings
// and tooltips to chords, a tree to entries, merging and lookup.
#include "core/shortcuts.h"

#include <gtest/gtest.h>

#include "test_trees.h"

namespace uiscope {
namespace {

using testing::MakeNode;

TEST(ShortcutsTest, SplitsGtkKeyBindings) {
  KeyBinding b = SplitKeyBinding("n;<Alt>f:n;<Primary>n");
  EXPECT_EQ(b.mnemonic, "n");
  EXPECT_EQ(b.path, "<Alt>f:n");
  EXPECT_EQ(b.accelerator, "<Primary>n");
  EXPECT_EQ(SplitKeyBinding("<Control>q").accelerator, "<Control>q");
  EXPECT_EQ(SplitKeyBinding("s;<Alt>f:s;").accelerator, "");
}

TEST(ShortcutsTest, NormalisesEverySpellingToOne) {
  EXPECT_EQ(NormaliseChord("<Primary>n"), "Ctrl+N");
  EXPECT_EQ(NormaliseChord("<Shift><Primary>s"), "Ctrl+Shift+S");
  EXPECT_EQ(NormaliseChord("<Primary><Shift>S"), "Ctrl+Shift+S");
  EXPECT_EQ(NormaliseChord("<Control><Alt>Page_Down"), "Ctrl+Alt+Page_Down");
  EXPECT_EQ(NormaliseChord("shift+ctrl+s"), "Ctrl+Shift+S");
  EXPECT_EQ(NormaliseChord("Ctrl+Shift+S"), "Ctrl+Shift+S");
  EXPECT_EQ(NormaliseChord("Alt+F4"), "Alt+F4");
  EXPECT_EQ(NormaliseChord("f5"), "F5");
  EXPECT_EQ(NormaliseChord("Esc"), "Escape");
  EXPECT_EQ(NormaliseChord("Ctrl++"), "Ctrl++");
  EXPECT_EQ(NormaliseChord("Super+e"), "Super+E");
  EXPECT_EQ(NormaliseChord(""), std::nullopt);
  EXPECT_EQ(NormaliseChord("<Bogus>n"), std::nullopt);
  EXPECT_EQ(NormaliseChord("Ctrl+Frobnicate"), std::nullopt);
  EXPECT_EQ(NormaliseChord("Ctrl+Shift"), std::nullopt) << "modifiers only";
  EXPECT_EQ(NormaliseChord("Save+S"), std::nullopt) << "not a modifier";
}

TEST(ShortcutsTest, TakesTheAcceleratorNeverTheMnemonic) {
  EXPECT_EQ(ChordFromKeyBinding("n;<Alt>f:n;<Primary>n"), "Ctrl+N");
  EXPECT_EQ(ChordFromKeyBinding("a;<Alt>f:a;<Shift><Primary>s"), "Ctrl+Shift+S");
  // A menu item without an accelerator: mnemonic and path only.
  EXPECT_EQ(ChordFromKeyBinding("s;<Alt>f:s;"), std::nullopt);
  // A GTK button's mnemonic alone ("<Alt>s"), as gedit 44's popover items give.
  EXPECT_EQ(ChordFromKeyBinding("<Alt>s"), std::nullopt);
  // An accelerator alone (Qt's spelling) is a shortcut.
  EXPECT_EQ(ChordFromKeyBinding("Ctrl+Q"), "Ctrl+Q");
  EXPECT_EQ(ChordFromKeyBinding("<Alt>F4"), "Alt+F4");
  // LibreOffice 7.4's VCL menu model (path without ':') writes the mnemonic
  // where the accelerator is not a character key (Recalculate is F9): not
  // taken; its letter accelerators are.
  EXPECT_EQ(ChordFromKeyBinding("r;<Alt>dlr;R"), std::nullopt);
  EXPECT_EQ(ChordFromKeyBinding("a;<Alt>va;<Control>a"), std::nullopt);
  EXPECT_EQ(ChordFromKeyBinding("t;<Alt>tt;<Control>T"), std::nullopt);
  EXPECT_EQ(ChordFromKeyBinding("a;<Alt>fa;<Shift><Control>s"), "Ctrl+Shift+S");
  EXPECT_EQ(ChordFromKeyBinding("u;<Alt>eu;<Control>z"), "Ctrl+Z");
  // GTK's own path keeps an accelerator on the mnemonic's key.
  EXPECT_EQ(ChordFromKeyBinding("d;<Alt>s:i:d;<Primary>d"), "Ctrl+D");
  EXPECT_EQ(ChordFromKeyBinding(""), std::nullopt);
}

TEST(ShortcutsTest, ReadsChordsWrittenIntoTooltips) {
  EXPECT_EQ(ChordsInText("Save document (Ctrl+S)"), std::vector<std::string>{"Ctrl+S"});
  EXPECT_EQ(ChordsInText("Close [Escape]"), std::vector<std::string>{"Escape"});
  EXPECT_EQ(ChordsInText("Zoom in (Ctrl++) or out (Ctrl+-)"),
            (std::vector<std::string>{"Ctrl++", "Ctrl+-"}));
  EXPECT_TRUE(ChordsInText("Option (a) and [1]").empty());
  EXPECT_TRUE(ChordsInText("Open a file (recent files)").empty());
  EXPECT_TRUE(ChordsInText("unbalanced (Ctrl+S").empty());
}

TEST(ShortcutsTest, PressableChordsAreWhatKeysAccepts) {
  EXPECT_EQ(PressableChord("Ctrl+Shift+S"), "ctrl+shift+s");
  EXPECT_EQ(PressableChord("F5"), "F5");
  EXPECT_EQ(PressableChord("Ctrl+Page_Down"), "ctrl+pgdn");
  EXPECT_EQ(PressableChord("Ctrl++"), "ctrl+plus");
}

// A GTK 3 window as the tree gives it with hidden nodes: a menu bar whose
// closed menus hold their items.
Node GtkApp() {
  Node new_item = MakeNode(Role::kMenuItem, "New");
  new_item.key_binding = "n;<Alt>f:n;<Primary>n";
  Node save = MakeNode(Role::kMenuItem, "Save      ");  // padded for the accelerator column
  save.key_binding = "s;<Alt>f:s;";
  Node save_as = MakeNode(Role::kMenuItem, "Save _As…");
  save_as.key_binding = "a;<Alt>f:a;<Shift><Primary>s";
  Node undo = MakeNode(Role::kMenuItem, "Undo");
  undo.key_binding = "u;<Alt>e:u;<Primary>z";
  Node button = MakeNode(Role::kButton, "Save");
  button.key_binding = "<Alt>s";
  button.description = "Save the document (Ctrl+S)";
  Node bar = MakeNode(Role::kMenuBar, "",
                      {MakeNode(Role::kMenu, "File", {new_item, save, save_as}),
                       MakeNode(Role::kMenu, "Edit", {undo})});
  Node window = MakeNode(Role::kWindow, "Doc", {bar, MakeNode(Role::kToolBar, "", {button})});
  Node app = MakeNode(Role::kApplication, "editor", {window});
  return app;
}

TEST(ShortcutsTest, ReadsMenusAndTooltipsFromATree) {
  std::vector<Shortcut> got = ShortcutsFromTree(GtkApp());
  ASSERT_EQ(got.size(), 4u);
  // Sorted by category, then action.
  EXPECT_EQ(got[0], (Shortcut{"editor", "Ctrl+Z", "Undo", "edit", "menu", "Edit > Undo"}));
  EXPECT_EQ(got[1], (Shortcut{"editor", "Ctrl+N", "New", "file", "menu", "File > New"}));
  EXPECT_EQ(got[2],
            (Shortcut{"editor", "Ctrl+Shift+S", "Save As…", "file", "menu", "File > Save As…"}));
  EXPECT_EQ(got[3], (Shortcut{"editor", "Ctrl+S", "Save", "general", "menu", ""}));
}

// Inkscape 1.2: the tool bar (its tooltip "Save (Ctrl+S)") comes before the
// menu bar in the tree; the menu item, which says where it lives, wins.
TEST(ShortcutsTest, AMenuItemWinsOverTheSameChordInATooltipBeforeIt) {
  Node button = MakeNode(Role::kButton, "Save (Ctrl+S)");
  Node save = MakeNode(Role::kMenuItem, "Save");
  save.key_binding = "s;<Alt>f:s;<Primary>s";
  Node window = MakeNode(
      Role::kWindow, "Doc",
      {MakeNode(Role::kToolBar, "", {button}),
       MakeNode(Role::kMenuBar, "", {MakeNode(Role::kMenu, "File", {save})})});
  std::vector<Shortcut> got = ShortcutsFromTree(MakeNode(Role::kApplication, "ink", {window}));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (Shortcut{"ink", "Ctrl+S", "Save", "file", "menu", "File > Save"}));
}

// A verified press that added one named dialog teaches chord -> dialog title.
TEST(ShortcutsTest, APressThatOpenedOneNamedDialogIsLearned) {
  auto diff_adding = [](std::vector<Node> nodes) {
    TreeDiff d;
    for (Node& n : nodes) {
      n.app = "gedit";
      d.added.push_back(AddedNode{"app_1", std::move(n), 1});
    }
    return d;
  };
  const TreeDiff save_as = diff_adding({MakeNode(Role::kDialog, "Save As")});
  auto learned = LearnFromPress("ctrl+shift+s", save_as);
  ASSERT_TRUE(learned.has_value());
  EXPECT_EQ(*learned, (Shortcut{"gedit", "Ctrl+Shift+S", "Save As", "ai-added", "learned", ""}));
  EXPECT_EQ(LearnFromPress("F1", diff_adding({MakeNode(Role::kDialog, "Help")}))->keys, "F1");

  // Keys that act on the focused widget, a mnemonic, not a chord.
  EXPECT_FALSE(LearnFromPress("Return", save_as));
  EXPECT_FALSE(LearnFromPress("shift+Tab", save_as));
  EXPECT_FALSE(LearnFromPress("a", save_as));
  EXPECT_FALSE(LearnFromPress("alt+o", save_as));
  EXPECT_FALSE(LearnFromPress("ctrl+nokey", save_as));
  // No dialog, two dialogs, an unnamed one, a window or an alert.
  EXPECT_FALSE(LearnFromPress("ctrl+s", TreeDiff{}));
  EXPECT_FALSE(LearnFromPress(
      "ctrl+o", diff_adding({MakeNode(Role::kDialog, "Open"), MakeNode(Role::kDialog, "Recent")})));
  EXPECT_FALSE(LearnFromPress("ctrl+o", diff_adding({MakeNode(Role::kDialog, "  ")})));
  EXPECT_FALSE(LearnFromPress("ctrl+n", diff_adding({MakeNode(Role::kWindow, "Untitled 2")})));
  EXPECT_FALSE(LearnFromPress("ctrl+w", diff_adding({MakeNode(Role::kAlert, "Question")})));
}

TEST(ShortcutsTest, AUserEntryIsCheckedAndNormalised) {
  auto ok = UserShortcut(" gedit ", "<Primary><Alt>x", "Close All", "");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(*ok, (Shortcut{"gedit", "Ctrl+Alt+X", "Close All", "general", "user", ""}));
  EXPECT_EQ(UserShortcut("gedit", "ctrl+alt+x", "Close All", "File")->category, "file");
  auto bad = UserShortcut("gedit", "ctrl+alt+", "Close All", "");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.error().message.find("not a key chord"), std::string::npos);
  EXPECT_FALSE(UserShortcut("", "F5", "Run", "").ok());
  EXPECT_FALSE(UserShortcut("gedit", "F5", " ", "").ok());
}

TEST(ShortcutsTest, MergingKeepsTheFirstOfEachPair) {
  Shortcut user{"a", "Ctrl+S", "Save", "file", "user", ""};
  Shortcut menu{"a", "Ctrl+S", "save", "file", "menu", "File > Save"};
  Shortcut other{"a", "Ctrl+Q", "Quit", "file", "menu", ""};
  auto merged = MergeShortcuts({{user}, {menu, other}});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0], other);
  EXPECT_EQ(merged[1], user);
}

TEST(ShortcutsTest, LooksActionsUpByName) {
  std::vector<Shortcut> all = ShortcutsFromTree(GtkApp());
  auto save_as = LookupShortcut(all, "save as");
  ASSERT_TRUE(save_as.ok()) << save_as.error().message;
  EXPECT_EQ(save_as->keys, "Ctrl+Shift+S");
  EXPECT_EQ(LookupShortcut(all, "Save As...")->keys, "Ctrl+Shift+S");
  EXPECT_EQ(LookupShortcut(all, "Save")->keys, "Ctrl+S") << "exact beats the longer name";
  EXPECT_EQ(LookupShortcut(all, "undo")->action, "Undo");

  auto none = LookupShortcut(all, "Frobnicate");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kNotFound);
  EXPECT_NE(none.error().message.find("Save As…"), std::string::npos) << none.error().message;

  // Two actions a fuzzy name fits equally, with different chords.
  std::vector<Shortcut> two = {{"a", "Ctrl+1", "Zoom In", "view", "menu", ""},
                               {"a", "Ctrl+2", "Zoom Out", "view", "menu", ""}};
  auto ambiguous = LookupShortcut(two, "zoom");
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_EQ(ambiguous.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(ambiguous.error().message.find("Zoom In"), std::string::npos);
  EXPECT_NE(ambiguous.error().message.find("Zoom Out"), std::string::npos);

  // A person's entry beats the menu's for the same action.
  std::vector<Shortcut> mixed = {{"a", "Ctrl+S", "Save", "file", "menu", ""},
                                 {"a", "F2", "Save", "file", "user", ""}};
  EXPECT_EQ(LookupShortcut(mixed, "Save")->keys, "F2");
  EXPECT_EQ(LookupShortcut(mixed, "").error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace uiscope
