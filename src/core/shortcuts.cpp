#include "core/shortcuts.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/ascii.h"
#include "core/escape.h"
#include "core/fuzzy.h"
#include "core/keys.h"

namespace uiscope {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) { return AsciiLower(s); }

// Modifier names of both spellings, to their place in the normalised order.
std::optional<int> ModifierRank(std::string_view name) {
  const std::string n = Lower(name);
  if (n == "primary" || n == "control" || n == "ctrl" || n == "ctl") return 0;
  if (n == "alt" || n == "mod1" || n == "option") return 1;
  if (n == "shift") return 2;
  if (n == "super" || n == "meta" || n == "hyper" || n == "win" || n == "cmd") return 3;
  return std::nullopt;
}
constexpr std::string_view kModifierNames[] = {"Ctrl", "Alt", "Shift", "Super"};

// The key's normalised name; nullopt when no keysym has it.
std::optional<std::string> KeyName(std::string_view key) {
  if (key.empty()) return std::nullopt;
  static const std::map<std::string, std::string> kAliases = {{"esc", "Escape"},
                                                              {"escape", "Escape"},
                                                              {"del", "Delete"},
                                                              {"delete", "Delete"},
                                                              {"enter", "Return"},
                                                              {"return", "Return"},
                                                              {"ins", "Insert"},
                                                              {"insert", "Insert"},
                                                              {"pgup", "Page_Up"},
                                                              {"pageup", "Page_Up"},
                                                              {"page_up", "Page_Up"},
                                                              {"prior", "Page_Up"},
                                                              {"pgdown", "Page_Down"},
                                                              {"pgdn", "Page_Down"},
                                                              {"pagedown", "Page_Down"},
                                                              {"page_down", "Page_Down"},
                                                              {"next", "Page_Down"},
                                                              {"backspace", "BackSpace"},
                                                              {"tab", "Tab"},
                                                              {"space", "space"},
                                                              {"home", "Home"},
                                                              {"end", "End"},
                                                              {"up", "Up"},
                                                              {"down", "Down"},
                                                              {"left", "Left"},
                                                              {"right", "Right"},
                                                              {"plus", "plus"},
                                                              {"minus", "minus"},
                                                              {"equal", "equal"},
                                                              {"print", "Print"},
                                                              {"menu", "Menu"},
                                                              {"pause", "Pause"},
                                                              {"kp_add", "KP_Add"},
                                                              {"kp_subtract", "KP_Subtract"},
                                                              {"question", "question"},
                                                              {"slash", "slash"},
                                                              {"comma", "comma"},
                                                              {"period", "period"}};
  const std::string lower = Lower(key);
  if (auto it = kAliases.find(lower); it != kAliases.end()) return it->second;
  if (lower.size() >= 2 && lower.size() <= 3 && lower[0] == 'f' &&
      std::all_of(lower.begin() + 1, lower.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const int n = std::stoi(lower.substr(1));
    if (n >= 1 && n <= 35) return "F" + std::to_string(n);
    return std::nullopt;
  }
  if (key.size() == 1) {
    const char c = key[0];
    if (c >= 'a' && c <= 'z') return std::string(1, static_cast<char>(c - 'a' + 'A'));
    if (static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f) {
      return std::string(1, c);
    }
    return std::nullopt;
  }
  // A single non-ASCII character ("ä"), or any other keysym name.
  if (auto cps = DecodeUtf8(key); cps.ok() && cps->size() == 1) return std::string(key);
  if (KeysymFromName(key)) return std::string(key);
  return std::nullopt;
}

bool IsStandaloneKey(std::string_view key) {
  static const std::set<std::string_view> kKeys = {"Escape",    "Delete", "Insert", "BackSpace",
                                                   "Return",    "Home",   "End",    "Page_Up",
                                                   "Page_Down", "Print",  "Pause",  "Menu"};
  return kKeys.count(key) > 0 ||
         (key.size() >= 2 && key[0] == 'F' && key[1] >= '0' && key[1] <= '9');
}

bool HasModifier(std::string_view chord) {
  for (std::string_view m : kModifierNames) {
    if (chord.size() > m.size() + 1 && chord.substr(0, m.size()) == m && chord[m.size()] == '+') {
      return true;
    }
  }
  return false;
}

std::string JoinChord(const std::vector<bool>& mods, const std::string& key) {
  std::string out;
  for (int i = 0; i < 4; ++i) {
    if (mods[i]) out += std::string(kModifierNames[i]) + "+";
  }
  return out + key;
}

std::string StripMnemonic(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '_' && i + 1 < name.size() && name[i + 1] != '_') continue;
    out += name[i];
  }
  return std::string(Trim(out));
}

bool IsMenuContainer(const Node& n) {
  return n.role == Role::kMenu || (n.role == Role::kMenuItem && !n.children.empty());
}

bool IsMenuEntry(Role role) {
  return role == Role::kMenuItem || role == Role::kCheckMenuItem || role == Role::kRadioMenuItem;
}

void Collect(const Node& n, const Node* parent, const std::string& category,
             const std::string& path, const std::string& app, std::vector<Shortcut>& out,
             int depth) {
  if (depth > 64) return;
  const std::string name = StripMnemonic(n.name);
  std::string here_category = category;
  std::string here_path = path;
  const bool top_menu = parent != nullptr && parent->role == Role::kMenuBar && IsMenuContainer(n);
  if (top_menu && !name.empty()) here_category = FoldText(name);
  if ((IsMenuContainer(n) || IsMenuEntry(n.role)) && !name.empty()) {
    here_path = path.empty() ? name : path + " > " + name;
  }
  if (!name.empty()) {
    std::optional<std::string> chord = ChordFromKeyBinding(n.key_binding);
    std::vector<std::string> chords;
    if (chord) chords.push_back(*chord);
    for (const std::string& c : ChordsInText(n.description)) chords.push_back(c);
    for (const std::string& c : ChordsInText(n.name)) chords.push_back(c);
    // The action's name without the chord written into it.
    std::string action = name;
    if (auto cut = action.find_last_of("([");
        cut != std::string::npos && cut > 0 && !ChordsInText(action.substr(cut)).empty()) {
      action = std::string(Trim(std::string_view(action).substr(0, cut)));
    }
    for (const std::string& c : chords) {
      Shortcut s;
      s.app = app;
      s.keys = c;
      s.action = action;
      s.category = here_category.empty() ? "general" : here_category;
      s.source = "menu";
      if (IsMenuEntry(n.role) || IsMenuContainer(n)) s.path = here_path;
      out.push_back(std::move(s));
    }
  }
  for (const Node& c : n.children) {
    Collect(c, &n, here_category, here_path, app, out, depth + 1);
  }
}

int SourceRank(std::string_view source) {
  if (source == "user") return 0;
  if (source == "schema") return 1;
  if (source == "menu") return 2;
  return 3;
}

}  // namespace

KeyBinding SplitKeyBinding(std::string_view binding) {
  KeyBinding out;
  const size_t first = binding.find(';');
  if (first == std::string_view::npos) {
    out.accelerator = std::string(Trim(binding));
    return out;
  }
  out.mnemonic = std::string(Trim(binding.substr(0, first)));
  const std::string_view rest = binding.substr(first + 1);
  const size_t second = rest.find(';');
  if (second == std::string_view::npos) {
    out.path = std::string(Trim(rest));
    return out;
  }
  out.path = std::string(Trim(rest.substr(0, second)));
  out.accelerator = std::string(Trim(rest.substr(second + 1)));
  return out;
}

std::optional<std::string> NormaliseChord(std::string_view chord) {
  chord = Trim(chord);
  if (chord.empty() || chord.size() > 64) return std::nullopt;
  std::vector<bool> mods(4, false);
  std::string_view rest = chord;
  // GTK spelling: <Modifier>...key.
  while (!rest.empty() && rest.front() == '<') {
    const size_t close = rest.find('>');
    if (close == std::string_view::npos) return std::nullopt;
    auto rank = ModifierRank(rest.substr(1, close - 1));
    if (!rank) return std::nullopt;
    mods[*rank] = true;
    rest.remove_prefix(close + 1);
  }
  // Human spelling: Mod+Mod+key ("Ctrl++" is Ctrl and '+').
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '+' && i > start) {
      parts.push_back(rest.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start < rest.size()) parts.push_back(rest.substr(start));
  if (parts.empty()) return std::nullopt;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    auto rank = ModifierRank(Trim(parts[i]));
    if (!rank) return std::nullopt;
    mods[*rank] = true;
  }
  auto key = KeyName(Trim(parts.back()));
  if (!key || ModifierRank(*key)) return std::nullopt;
  return JoinChord(mods, *key);
}

std::optional<std::string> ChordFromKeyBinding(std::string_view binding) {
  const KeyBinding parts = SplitKeyBinding(binding);
  if (parts.accelerator.empty()) return std::nullopt;
  auto chord = NormaliseChord(parts.accelerator);
  if (!chord) return std::nullopt;
  // Alone (no ';'), "<Alt>s" is a button's mnemonic, not a shortcut.
  if (parts.mnemonic.empty() && parts.path.empty() && chord->rfind("Alt+", 0) == 0 &&
      chord->find('+', 4) == std::string::npos && chord->size() == 5) {
    return std::nullopt;
  }
  // LibreOffice's own (VCL) menu model writes its path without ':' between
  // the keys ("<Alt>dlr", GTK writes "<Alt>d:l:r") and, when the accelerator
  // is not a character key, the item's mnemonic in its place: Recalculate
  // (F9) answers "r;<Alt>dlr;R", Show Formula (Ctrl+`) "a;<Alt>va;<Control>a".
  // Such an accelerator on the mnemonic's own key cannot be told from a real
  // one, so it is not taken.
  const size_t last_close = parts.path.rfind('>');
  const bool vcl_path = last_close != std::string::npos && parts.path.size() > last_close + 2 &&
                        parts.path.find(':') == std::string::npos;
  if (vcl_path && parts.mnemonic.size() == 1) {
    const size_t plus = chord->rfind('+');
    const std::string key = plus == std::string::npos || plus + 1 == chord->size()
                                ? *chord
                                : chord->substr(plus + 1);
    if (EqualsIgnoringCase(key, parts.mnemonic)) return std::nullopt;
  }
  return chord;
}

std::vector<std::string> ChordsInText(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char open = text[i];
    if (open != '(' && open != '[') continue;
    const char close = open == '(' ? ')' : ']';
    const size_t end = text.find(close, i + 1);
    if (end == std::string_view::npos) break;
    const std::string_view inner = text.substr(i + 1, end - i - 1);
    auto chord = NormaliseChord(inner);
    if (chord && (HasModifier(*chord) || IsStandaloneKey(*chord)) &&
        std::find(out.begin(), out.end(), *chord) == out.end()) {
      out.push_back(*chord);
    }
    i = end;
  }
  return out;
}

std::string PressableChord(std::string_view normalised) {
  std::string out;
  size_t start = 0;
  std::vector<std::string_view> parts;
  for (size_t i = 0; i < normalised.size(); ++i) {
    if (normalised[i] == '+' && i > start) {
      parts.push_back(normalised.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start < normalised.size()) parts.push_back(normalised.substr(start));
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string p(parts[i]);
    if (i + 1 < parts.size()) {
      p = Lower(p);
    } else if (p.size() == 1 && p[0] >= 'A' && p[0] <= 'Z') {
      p = Lower(p);  // "S" would be the keysym typed with Shift
    } else if (p == "Page_Up") {
      p = "pgup";
    } else if (p == "Page_Down") {
      p = "pgdn";
    } else if (p == "+") {
      p = "plus";
    }
    if (!out.empty()) out += "+";
    out += p;
  }
  return out;
}

std::string ActionKey(std::string_view action) { return FoldText(StripMnemonic(action)); }

std::vector<Shortcut> ShortcutsFromTree(const Node& app) {
  std::vector<Shortcut> found;
  Collect(app, nullptr, "", "", app.name, found, 0);
  // A menu item says where it lives: it wins over the same chord and action
  // read from a tool bar's tooltip (Inkscape's "Save (Ctrl+S)").
  std::stable_partition(found.begin(), found.end(),
                        [](const Shortcut& s) { return !s.path.empty(); });
  return MergeShortcuts({found});
}

std::vector<Shortcut> MergeShortcuts(const std::vector<std::vector<Shortcut>>& lists) {
  std::vector<Shortcut> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& list : lists) {
    for (const Shortcut& s : list) {
      if (seen.insert({s.keys, ActionKey(s.action)}).second) out.push_back(s);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Shortcut& a, const Shortcut& b) {
    return std::tie(a.category, a.action) < std::tie(b.category, b.action);
  });
  return out;
}

Result<Shortcut> LookupShortcut(const std::vector<Shortcut>& shortcuts, std::string_view action) {
  const std::string want = ActionKey(action);
  if (want.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "name the action, e.g. \"Save As\"");
  }
  auto describe = [](const Shortcut& s) { return "\"" + s.action + "\" (" + s.keys + ")"; };
  // Exact first, then fuzzy; several hits with one chord are one answer.
  std::vector<const Shortcut*> hits;
  for (const Shortcut& s : shortcuts) {
    if (ActionKey(s.action) == want) hits.push_back(&s);
  }
  if (hits.empty()) {
    // A guess presses keys: every name scoring near the best is a candidate,
    // so "zoom" is ambiguous between "Zoom In" and "Zoom Out".
    constexpr double kNear = 0.1;
    double best = 0;
    for (const Shortcut& s : shortcuts)
      best = std::max(best, MatchScore(want, ActionKey(s.action)));
    for (const Shortcut& s : shortcuts) {
      if (best > 0 && MatchScore(want, ActionKey(s.action)) >= best - kNear) hits.push_back(&s);
    }
  }
  // The most trusted source decides ("user" over "schema" over "menu").
  int best_rank = 4;
  for (const Shortcut* s : hits) best_rank = std::min(best_rank, SourceRank(s->source));
  std::erase_if(hits, [&](const Shortcut* s) { return SourceRank(s->source) != best_rank; });
  std::set<std::string> chords;
  for (const Shortcut* s : hits) chords.insert(s->keys);
  if (hits.empty()) {
    std::vector<std::pair<double, const Shortcut*>> near;
    for (const Shortcut& s : shortcuts)
      near.push_back({SuggestionScore(want, ActionKey(s.action)), &s});
    std::stable_sort(near.begin(), near.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string known;
    for (size_t i = 0; i < near.size() && i < 8; ++i) {
      known += (i ? ", " : "") + describe(*near[i].second);
    }
    return MakeError(
        ErrorCode::kNotFound,
        "no shortcut for \"" + std::string(action) + "\"" +
            (known.empty() ? " (the registry of this app is empty)" : "; known: " + known));
  }
  if (chords.size() > 1) {
    std::string list;
    for (size_t i = 0; i < hits.size() && i < 10; ++i) list += (i ? ", " : "") + describe(*hits[i]);
    return MakeError(ErrorCode::kInvalidArgument,
                     "\"" + std::string(action) + "\" is ambiguous; name one of: " + list);
  }
  return *hits.front();
}

std::optional<Shortcut> LearnFromPress(std::string_view chord, const TreeDiff& diff) {
  const std::optional<std::string> keys = NormaliseChord(chord);
  if (!keys) return std::nullopt;
  const bool app_wide = HasModifier(*keys) && keys->rfind("Shift+", 0) != 0;
  const bool function_key =
      keys->size() >= 2 && (*keys)[0] == 'F' && (*keys)[1] >= '0' && (*keys)[1] <= '9';
  const bool mnemonic =
      keys->rfind("Alt+", 0) == 0 && keys->find('+', 4) == std::string::npos && keys->size() == 5;
  if ((!app_wide && !function_key) || mnemonic) return std::nullopt;
  const Node* dialog = nullptr;
  for (const AddedNode& a : diff.added) {
    if (a.node.role != Role::kDialog) continue;
    if (dialog != nullptr) return std::nullopt;  // several: which one is the chord's?
    dialog = &a.node;
  }
  if (dialog == nullptr) return std::nullopt;
  const std::string name(Trim(dialog->name));
  if (name.empty()) return std::nullopt;
  return Shortcut{dialog->app, *keys, name, "ai-added", "learned", ""};
}

Result<Shortcut> UserShortcut(std::string_view app, std::string_view keys, std::string_view action,
                              std::string_view category) {
  if (Trim(app).empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "name the application (--app NAME)");
  }
  if (Trim(action).empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "name the action the chord runs (--action \"Save As\")");
  }
  auto chord = NormaliseChord(keys);
  if (!chord) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "\"" + std::string(keys) +
            "\" is not a key chord; write e.g. \"Ctrl+Alt+X\", \"F5\" or \"<Primary>s\"");
  }
  const std::string cat(Trim(category));
  return Shortcut{std::string(Trim(app)),
                  *chord,
                  std::string(Trim(action)),
                  cat.empty() ? "general" : Lower(cat),
                  "user",
                  ""};
}

// Keys and actions come from the app's menus: escaped (core/escape.h).
std::string ShortcutText(const Shortcut& s) {
  return EscapeForDisplay(s.keys, 40) + " = " + EscapeForDisplay(s.action, 80) + " (" +
         EscapeForDisplay(s.category, 40) + ", " + EscapeForDisplay(s.source, 20) +
         (s.path.empty() ? "" : ", " + EscapeForDisplay(s.path, 80)) + ")";
}

nlohmann::json ShortcutToJson(const Shortcut& s) {
  nlohmann::json j = {{"keys", s.keys},
                      {"action", s.action},
                      {"category", s.category},
                      {"source", s.source},
                      {"app", s.app}};
  if (!s.path.empty()) j["path"] = s.path;
  return j;
}

}  // namespace uiscope
