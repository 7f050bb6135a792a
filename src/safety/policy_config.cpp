#include "safety/policy_config.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace uiscope::safety {
namespace {

using nlohmann::json;

std::string GetEnv(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::string HomeDir() {
  std::string home = GetEnv("HOME");
  if (home.empty()) {
    if (const passwd* entry = getpwuid(getuid())) home = entry->pw_dir;
  }
  return home.empty() ? "/tmp" : home;
}

// --- JSON with line numbers ---------------------------------------------------
//
// nlohmann::json (3.11) keeps no source positions, so the text is fed to its
// SAX parser through an iterator that counts lines as characters are
// consumed. When a key or value event fires, the last non-blank character
// consumed belongs to that token (the one character the lexer reads past a
// number is either blank or adjacent punctuation on the same line), so its
// line is the token's line.

struct LineTracker {
  int line = 1;        // line of the next character
  int token_line = 1;  // line of the last non-blank character consumed
};

class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator(const char* p, LineTracker* tracker) : p_(p), tracker_(tracker) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    const char c = *p_;
    if (c == '\n') {
      ++tracker_->line;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      tracker_->token_line = tracker_->line;
    }
    ++p_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingIterator& other) const { return p_ == other.p_; }
  bool operator!=(const CountingIterator& other) const { return p_ != other.p_; }

 private:
  const char* p_;
  LineTracker* tracker_;
};

// Builds the document and records the line of every key and array element
// by JSON pointer ("/rate_limit/max_actions", "/deny_apps/2").
class LineSax {
 public:
  explicit LineSax(LineTracker* tracker) : tracker_(tracker) {}

  bool null() { return Add(json(nullptr)); }
  bool boolean(bool v) { return Add(json(v)); }
  bool number_integer(json::number_integer_t v) { return Add(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return Add(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return Add(json(v)); }
  bool string(json::string_t& v) { return Add(json(v)); }
  bool binary(json::binary_t&) { return Fail("binary values are not JSON"); }

  bool start_object(std::size_t) {
    if (!Add(json::object())) return false;
    stack_.push_back(Frame{true, {}, {}, 0});
    return true;
  }
  bool key(json::string_t& k) {
    Frame& f = stack_.back();
    if (!f.keys.insert(k).second) {
      return Fail("duplicate key \"" + k + "\" at line " + std::to_string(tracker_->token_line) +
                  " (first at line " + std::to_string(lines_[Pointer() + "/" + Escape(k)]) +
                  "); keep one");
    }
    f.key = k;
    lines_[Pointer() + "/" + Escape(k)] = tracker_->token_line;
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    path_pop();
    return true;
  }
  bool start_array(std::size_t) {
    if (!Add(json::array())) return false;
    stack_.push_back(Frame{false, {}, {}, 0});
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    path_pop();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
    if (auto close = what.find("] "); close != std::string::npos) what = what.substr(close + 2);
    error_ = what;
    return false;
  }

  json& document() { return root_; }
  const std::map<std::string, int>& lines() const { return lines_; }
  const std::string& error() const { return error_; }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;
    size_t index;
  };

  static std::string Escape(const std::string& key) {
    std::string out;
    for (char c : key) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
    return out;
  }

  // The pointer of the container on top of the stack.
  std::string Pointer() const { return containers_.empty() ? "" : containers_.back(); }

  bool Add(json value) {
    const bool container = value.is_object() || value.is_array();
    std::string pointer;
    json* slot = nullptr;
    if (stack_.empty()) {
      root_ = std::move(value);
      slot = &root_;
    } else {
      Frame& f = stack_.back();
      json& parent = *nodes_.back();
      if (f.object) {
        pointer = Pointer() + "/" + Escape(f.key);
        slot = &parent[f.key];
        *slot = std::move(value);
      } else {
        pointer = Pointer() + "/" + std::to_string(f.index++);
        lines_[pointer] = tracker_->token_line;
        parent.push_back(std::move(value));
        slot = &parent.back();
      }
    }
    if (container) {
      nodes_.push_back(slot);
      containers_.push_back(pointer);
    }
    return true;
  }
  void path_pop() {
    nodes_.pop_back();
    containers_.pop_back();
  }
  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  LineTracker* tracker_;
  json root_;
  std::vector<Frame> stack_;
  std::vector<json*> nodes_;             // the open containers
  std::vector<std::string> containers_;  // their pointers
  std::map<std::string, int> lines_;
  std::string error_;
};

// --- validation ------------------------------------------------------------------

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string Join(const std::vector<std::string_view>& names) {
  std::string out;
  for (auto n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

class Validator {
 public:
  Validator(std::string source, const std::map<std::string, int>& lines)
      : source_(std::move(source)), lines_(lines) {}

  // "SOURCE:LINE: message" for the key at `pointer`.
  Error At(const std::string& pointer, const std::string& message) const {
    auto it = lines_.find(pointer);
    std::string where = source_;
    if (it != lines_.end()) where += ":" + std::to_string(it->second);
    return MakeError(ErrorCode::kInvalidArgument, where + ": " + message);
  }

  // Every key of `object` (at `pointer`, named `what`) must be in `known`.
  std::optional<Error> KnownKeys(const json& object, const std::string& pointer,
                                 const std::string& what,
                                 const std::vector<std::string_view>& known) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      std::string message = "unknown key \"" + key + "\"" + what;
      std::string_view nearest;
      size_t best = 3;  // at most two edits away counts as a typo
      for (auto k : known) {
        if (k.starts_with("$")) continue;
        const size_t d = EditDistance(key, k);
        if (d < best) {
          best = d;
          nearest = k;
        }
      }
      if (!nearest.empty()) message += "; did you mean \"" + std::string(nearest) + "\"?";
      std::vector<std::string_view> listed;
      for (auto k : known) {
        if (!k.starts_with("$")) listed.push_back(k);
      }
      message += " (known keys: " + Join(listed) + ")";
      return At(pointer + "/" + key, message);
    }
    return std::nullopt;
  }

  std::optional<Error> StringList(const json& value, const std::string& pointer,
                                  const std::string& name, std::vector<std::string>* out) const {
    if (!value.is_array()) {
      return At(pointer, "\"" + name + "\" must be an array of strings, got " + value.dump());
    }
    out->clear();
    for (size_t i = 0; i < value.size(); ++i) {
      const json& v = value[i];
      const std::string element = pointer + "/" + std::to_string(i);
      if (!v.is_string()) {
        return At(element,
                  "\"" + name + "\"[" + std::to_string(i) + "] must be a string, got " + v.dump());
      }
      if (v.get<std::string>().empty()) {
        return At(element, "\"" + name + "\"[" + std::to_string(i) + "] is empty");
      }
      out->push_back(v.get<std::string>());
    }
    return std::nullopt;
  }

  std::optional<Error> Integer(const json& value, const std::string& pointer,
                               const std::string& name, int64_t min, int64_t max,
                               int64_t* out) const {
    if (!value.is_number_integer()) {
      return At(pointer, "\"" + name + "\" must be an integer from " + std::to_string(min) +
                             " to " + std::to_string(max) + ", got " + value.dump());
    }
    // Non-negative literals parse as unsigned; those above int64 are out of
    // range too.
    const bool in_range = value.is_number_unsigned()
                              ? value.get<uint64_t>() <= static_cast<uint64_t>(max) &&
                                    static_cast<int64_t>(value.get<uint64_t>()) >= min
                              : value.get<int64_t>() >= min && value.get<int64_t>() <= max;
    if (!in_range) {
      return At(pointer, "\"" + name + "\" must be from " + std::to_string(min) + " to " +
                             std::to_string(max) + ", got " + value.dump());
    }
    *out = value.get<int64_t>();
    return std::nullopt;
  }

  std::optional<Error> Boolean(const json& value, const std::string& pointer,
                               const std::string& name, bool* out) const {
    if (!value.is_boolean()) {
      return At(pointer, "\"" + name + "\" must be true or false, got " + value.dump());
    }
    *out = value.get<bool>();
    return std::nullopt;
  }

  std::optional<Error> Object(const json& value, const std::string& pointer,
                              const std::string& name) const {
    if (value.is_object()) return std::nullopt;
    return At(pointer, "\"" + name + "\" must be an object, got " + value.dump());
  }

 private:
  std::string source_;
  const std::map<std::string, int>& lines_;
};

constexpr int64_t kDay = 24 * 3600;

}  // namespace

const std::vector<std::string_view>& GatedToolNames() {
  static const std::vector<std::string_view> names = {
      "click",      "type_text", "press_keys", "scroll", "drag",          "set_value",   "invoke",
      "app_launch", "app_focus", "app_close",  "plan",   "session_start", "session_stop"};
  return names;
}

Result<PolicyConfig> ParsePolicyConfig(std::string_view text, const std::string& source) {
  LineTracker tracker;
  LineSax sax(&tracker);
  const bool parsed = json::sax_parse(CountingIterator(text.data(), &tracker),
                                      CountingIterator(text.data() + text.size(), &tracker), &sax,
                                      json::input_format_t::json, /*strict=*/true,
                                      /*ignore_comments=*/true);
  if (!parsed) {
    return MakeError(ErrorCode::kInvalidArgument, source + ": " + sax.error());
  }
  const json& doc = sax.document();
  Validator v(source, sax.lines());
  PolicyConfig config;
  config.source = source;
  if (!doc.is_object()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     source + ": the configuration must be a JSON object ({...}), got " +
                         std::string(doc.type_name()));
  }
  static const std::vector<std::string_view> kTopKeys = {
      "launch_allow",  "deny_apps", "confirm_tools",        "rate_limit",
      "confirmations", "database",  "audit_retention_days", "memory",
      "$schema",       "$comment"};
  if (auto e = v.KnownKeys(doc, "", "", kTopKeys)) return *e;

  if (doc.contains("launch_allow")) {
    std::vector<std::string> list;
    if (auto e = v.StringList(doc["launch_allow"], "/launch_allow", "launch_allow", &list))
      return *e;
    config.launch_allow = std::move(list);
  }
  if (doc.contains("deny_apps")) {
    if (auto e = v.StringList(doc["deny_apps"], "/deny_apps", "deny_apps", &config.deny_apps))
      return *e;
  }
  if (doc.contains("confirm_tools")) {
    if (auto e = v.StringList(doc["confirm_tools"], "/confirm_tools", "confirm_tools",
                              &config.confirm_tools))
      return *e;
    const auto& gated = GatedToolNames();
    for (size_t i = 0; i < config.confirm_tools.size(); ++i) {
      // The MCP tool execute_plan checks its plan as the action "plan".
      if (config.confirm_tools[i] == "execute_plan") config.confirm_tools[i] = "plan";
      if (std::find(gated.begin(), gated.end(), config.confirm_tools[i]) == gated.end()) {
        return v.At("/confirm_tools/" + std::to_string(i),
                    "\"confirm_tools\" names \"" + config.confirm_tools[i] +
                        "\", which is not a tool that acts (tools that act: " + Join(gated) + ")");
      }
    }
  }
  if (doc.contains("rate_limit")) {
    const json& r = doc["rate_limit"];
    if (auto e = v.Object(r, "/rate_limit", "rate_limit")) return *e;
    if (auto e =
            v.KnownKeys(r, "/rate_limit", " in \"rate_limit\"", {"max_actions", "window_seconds"}))
      return *e;
    int64_t n = 0;
    if (r.contains("max_actions")) {
      if (auto e = v.Integer(r["max_actions"], "/rate_limit/max_actions", "rate_limit.max_actions",
                             0, 1000000, &n))
        return *e;
      config.rate_limit.max_actions = static_cast<int>(n);
    }
    if (r.contains("window_seconds")) {
      if (auto e = v.Integer(r["window_seconds"], "/rate_limit/window_seconds",
                             "rate_limit.window_seconds", 1, kDay, &n))
        return *e;
      config.rate_limit.window = std::chrono::seconds(n);
    }
  }
  if (doc.contains("confirmations")) {
    const json& c = doc["confirmations"];
    if (auto e = v.Object(c, "/confirmations", "confirmations")) return *e;
    if (auto e =
            v.KnownKeys(c, "/confirmations", " in \"confirmations\"",
                        {"expire_seconds", "elicitation_timeout_seconds", "agent_may_confirm"}))
      return *e;
    int64_t n = 0;
    if (c.contains("expire_seconds")) {
      if (auto e = v.Integer(c["expire_seconds"], "/confirmations/expire_seconds",
                             "confirmations.expire_seconds", 10, 7 * kDay, &n))
        return *e;
      config.confirmation_expiry = std::chrono::seconds(n);
    }
    if (c.contains("elicitation_timeout_seconds")) {
      if (auto e = v.Integer(c["elicitation_timeout_seconds"],
                             "/confirmations/elicitation_timeout_seconds",
                             "confirmations.elicitation_timeout_seconds", 1, kDay, &n))
        return *e;
      config.elicitation_timeout = std::chrono::seconds(n);
    }
    if (c.contains("agent_may_confirm")) {
      if (auto e = v.Boolean(c["agent_may_confirm"], "/confirmations/agent_may_confirm",
                             "confirmations.agent_may_confirm", &config.agent_may_confirm))
        return *e;
    }
  }
  if (doc.contains("database")) {
    const json& d = doc["database"];
    if (!d.is_string() || d.get<std::string>().empty()) {
      return v.At("/database",
                  "\"database\" must be a file path (a non-empty string), got " + d.dump());
    }
    config.database = d.get<std::string>();
    if (config.database.starts_with("~/")) config.database = HomeDir() + config.database.substr(1);
  }
  if (doc.contains("audit_retention_days")) {
    int64_t n = 0;
    if (auto e = v.Integer(doc["audit_retention_days"], "/audit_retention_days",
                           "audit_retention_days", 0, 100000, &n))
      return *e;
    config.audit_retention_days = static_cast<int>(n);
  }
  if (doc.contains("memory")) {
    const json& m = doc["memory"];
    if (auto e = v.Object(m, "/memory", "memory")) return *e;
    if (auto e = v.KnownKeys(m, "/memory", " in \"memory\"", {"learning", "apps"})) return *e;
    if (m.contains("learning")) {
      if (auto e = v.Boolean(m["learning"], "/memory/learning", "memory.learning",
                             &config.memory.learning))
        return *e;
    }
    if (m.contains("apps")) {
      std::vector<std::string> apps;
      if (auto e = v.StringList(m["apps"], "/memory/apps", "memory.apps", &apps)) return *e;
      config.memory.apps = std::move(apps);
    }
  }
  return config;
}

std::string DefaultConfigPath() {
  std::string config_home = GetEnv("XDG_CONFIG_HOME");
  if (config_home.empty()) config_home = HomeDir() + "/.config";
  return config_home + "/uiscope/config.json";
}

std::string DefaultDatabasePath() {
  std::string dir = GetEnv("UISCOPE_STATE_DIR");
  if (!dir.empty()) return dir + "/uiscope.db";
  std::string state_home = GetEnv("XDG_STATE_HOME");
  if (!state_home.empty()) return state_home + "/uiscope/uiscope.db";
  return HomeDir() + "/.local/state/uiscope/uiscope.db";
}

std::string DatabasePath(const PolicyConfig& config) {
  return config.database.empty() ? DefaultDatabasePath() : config.database;
}

Result<PolicyConfig> LoadPolicyConfig(const std::string& path) {
  std::string file = path;
  bool must_exist = true;
  if (file.empty()) file = GetEnv("UISCOPE_CONFIG");
  if (file.empty()) {
    file = DefaultConfigPath();
    must_exist = false;
  }
  std::error_code error;
  if (!std::filesystem::exists(file, error)) {
    if (!must_exist) return PolicyConfig{};
    return MakeError(ErrorCode::kInvalidArgument,
                     "configuration file " + file +
                         " does not exist; create it (see `uiscope --help` for the keys) or leave "
                         "out --config to use the defaults");
  }
  if (std::filesystem::is_directory(file, error)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "configuration path " + file + " is a directory; give the JSON file");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot read configuration file " + file + ": " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParsePolicyConfig(text.str(), file);
}

}  // namespace uiscope::safety
