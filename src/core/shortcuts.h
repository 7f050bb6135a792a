// The shortcut registry of an application (seed 004 §3.4, issue 19): which
// key chord does what, read from the accessibility tree without opening
// anything, from the app's schema (engine/app_schemas.h) and from what was
// stored (memory/shortcut_store.h).
//
// Sources, in the order a lookup trusts them: "user" (taught by a person),
// "schema" (shipped or the user's app schemas), "menu" (read from the app's
// menus and accelerators through AT-SPI), "learned".
//
// What the tree gives:
//   - Action.GetActions key bindings. GTK 3 menu items (menus exist in the
//     tree while closed) answer "n;<Alt>f:n;<Primary>n": mnemonic; full
//     mnemonic path; accelerator. Only the accelerator is a shortcut: the
//     mnemonic works only while the menu is open. A binding without ';' is
//     taken as an accelerator unless it is a mnemonic (Alt + one character:
//     GTK buttons answer "<Alt>s" for their label's underlined letter, and
//     gedit 44's popover items give only those).
//   - "(Ctrl+S)" and "[Escape]" in names and descriptions (tooltips:
//     Inkscape's "Save document (Ctrl+S)").
//
// Chords are normalised to one spelling: modifiers Ctrl, Alt, Shift, Super
// in that order, then the key: a letter upper case ("Ctrl+Shift+S"), other
// keys by their X keysym name ("F5", "Delete", "Escape", "Page_Up").
//
// Pure and thread-safe; engine/shortcuts.h reads them from a desktop.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/diff.h"
#include "core/node.h"
#include "core/result.h"

namespace uiscope {

struct Shortcut {
  std::string app;
  std::string keys;      // normalised chord: "Ctrl+Shift+S"
  std::string action;    // "Save As…"
  std::string category;  // "file", "edit", "view", ... (the top menu), "general"
  std::string source;    // "menu" | "schema" | "learned" | "user"
  std::string path;      // the menu path when known: "File > Save As…"
  bool operator==(const Shortcut&) const = default;
};
// "Ctrl+S = Save (file, menu, File > Save)", for messages and test output.
std::string ShortcutText(const Shortcut& shortcut);
// For gtest's failure messages.
inline void PrintTo(const Shortcut& s, std::ostream* os) { *os << ShortcutText(s); }

// The parts of an AT-SPI key binding ("n;<Alt>f:n;<Primary>n").
struct KeyBinding {
  std::string mnemonic;     // "n"
  std::string path;         // "<Alt>f:n"
  std::string accelerator;  // "<Primary>n"
};
KeyBinding SplitKeyBinding(std::string_view binding);

// One chord in GTK ("<Shift><Primary>s") or human / Qt ("Ctrl+Shift+S",
// "shift+ctrl+s") spelling, normalised as above; nullopt when it is not a
// chord (empty, an unknown key, two keys).
std::optional<std::string> NormaliseChord(std::string_view chord);

// The shortcut a key binding gives: its accelerator, normalised; nullopt for
// none or a mnemonic only.
std::optional<std::string> ChordFromKeyBinding(std::string_view binding);

// Chords written in parentheses or brackets in a text ("Save (Ctrl+S)",
// "Close [Escape]"): each with a modifier, or a function / editing key on
// its own; "(a)" and "[1]" are not chords.
std::vector<std::string> ChordsInText(std::string_view text);

// "Ctrl+Shift+S" as `uiscope keys` / press_keys spells it ("ctrl+shift+s").
std::string PressableChord(std::string_view normalised);

// Folded action name for lookups: case, accents, '…' / "..." and '_' ignored.
std::string ActionKey(std::string_view action);

// The shortcuts in one application's tree (a kApplication node, walked with
// hidden nodes so that closed menus count), source "menu", de-duplicated.
std::vector<Shortcut> ShortcutsFromTree(const Node& app);

// Merges lists: the first entry for a (keys, action key) pair wins, so pass
// the most trusted source first. Sorted by category, then action.
std::vector<Shortcut> MergeShortcuts(const std::vector<std::vector<Shortcut>>& lists);

// The entry `action` names: an exact ActionKey match, else the best fuzzy
// match (core/fuzzy.h); among those, the most trusted source's. NotFound listing the actions known
// (closest first) when none matches; InvalidArgument listing the candidates when several match with
// different chords.
Result<Shortcut> LookupShortcut(const std::vector<Shortcut>& shortcuts, std::string_view action);

nlohmann::json ShortcutToJson(const Shortcut& shortcut);

// What one verified key press teaches (source "learned", category
// "ai-added"): `chord` pressed into an app whose verified tree diff added
// exactly one dialog with a name — that name is the action ("Save As").
// Nothing is learned from a chord that acts on the focused widget rather
// than the app (no modifier but Shift and not a function key: Return on a
// focused "Open…" button opens a dialog too) or that is a mnemonic (Alt and
// one character), nor from a diff that added no dialog, several, or one
// without a name. The entry's app is the dialog's.
std::optional<Shortcut> LearnFromPress(std::string_view chord, const TreeDiff& diff);

// A person's entry (`shortcuts add`): source "user", keys normalised,
// category "general" when empty. InvalidArgument for no app, no action or a
// chord NormaliseChord does not read.
Result<Shortcut> UserShortcut(std::string_view app, std::string_view keys, std::string_view action,
                              std::string_view category);

// Where registries are kept across processes (memory/shortcut_store.h
// implements it on the state database). Thread safety: as the implementation
// says; the SQLite one may be called from any thread.
class ShortcutRegistryStore {
 public:
  virtual ~ShortcutRegistryStore() = default;
  // Replaces every entry of `app` (case-insensitive) from `source`.
  virtual Status ReplaceSource(const std::string& app, const std::string& source,
                               const std::vector<Shortcut>& shortcuts, int64_t now_ms) = 0;
  // The entries of `app` ("" = all), of `category` ("" = all).
  virtual Result<std::vector<Shortcut>> List(const std::string& app,
                                             const std::string& category = "") = 0;
  // Keeps one entry (its app, source, keys, action, category, path),
  // replacing the entry of the same app, source and keys: a chord does one
  // thing per source.
  virtual Status Put(const Shortcut& shortcut, int64_t now_ms) = 0;
  // Deletes the entries of `app` from `sources` with chord `keys` (and, when
  // not empty, action `action`, case-insensitively); how many went.
  virtual Result<int> Remove(const std::string& app, const std::vector<std::string>& sources,
                             const std::string& keys, const std::string& action) = 0;
};

}  // namespace uiscope
