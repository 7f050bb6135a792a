// libFuzzer target: hostile app text through every printer that shows it to
// a person or an agent, checking the one escaping printer's promises
// (core/escape.h) on what comes out:
//   - no C0 or C1 control, bidi control, invisible character or malformed
//     UTF-8 is left raw (FindUnescaped);
//   - no printed field adds a line: the compact and targets formats print
//     one line per node (plus the "… N more" trailer), a find match is one
//     line, find's "Similar:" sentence one line, a confirmation two, a
//     grant one, an audit entry its line plus one per rule, error and
//     in-flight note; a shortcut is one line, the shortcut table one line
//     per shortcut under its heading, the discovery report its eight lines;
//   - EscapeForDisplay is idempotent; QuoteForDisplay's field ends at its
//     last quote.
// The input is cut into strings (names, values, descriptions, the toolkit,
// the query, a confirmation's target, app, reason and arguments) and a few
// choices (roles, states, the tree's shape).
//
// Built by scripts/fuzz with clang (-fsanitize=fuzzer,address,undefined),
// run from the seeds in fuzz/corpus/display_text.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/escape.h"
#include "core/format.h"
#include "engine/discover.h"
#include "engine/find.h"
#include "engine/shortcuts.h"
#include "printers.h"

namespace {

using namespace uiscope;

void Check(bool ok, const char* what, std::string_view text) {
  if (ok) return;
  std::fprintf(stderr, "display_text: %s in:\n", what);
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fputc('\n', stderr);
  std::abort();
}

size_t Lines(std::string_view text) { return std::count(text.begin(), text.end(), '\n'); }

void CheckOneField(std::string_view text, const char* what) {
  Check(FindUnescaped(text, /*allow_newline=*/false) == std::string_view::npos, what, text);
}

void CheckLines(std::string_view text, const char* what) {
  Check(FindUnescaped(text, /*allow_newline=*/true) == std::string_view::npos, what, text);
}

constexpr Role kRoles[] = {Role::kApplication, Role::kWindow,   Role::kButton, Role::kLabel,
                           Role::kTextField,   Role::kDocument, Role::kPanel,  Role::kLink};

Node MakeNode(FuzzedDataProvider& in, int& next_id, int depth) {
  Node n;
  n.id = "n" + std::to_string(next_id++);
  n.role = kRoles[in.ConsumeIntegralInRange<size_t>(0, std::size(kRoles) - 1)];
  n.name = in.ConsumeRandomLengthString(64);
  if (in.ConsumeBool()) n.value = in.ConsumeRandomLengthString(64);
  if (in.ConsumeBool()) n.description = in.ConsumeRandomLengthString(32);
  if (in.ConsumeBool()) n.toolkit = in.ConsumeRandomLengthString(16);
  n.pid = in.ConsumeIntegralInRange<int>(0, 99999);
  n.states.Set(State::kEnabled);
  if (in.ConsumeBool()) n.states.Set(State::kFocused);
  if (in.ConsumeBool()) n.states.Set(State::kActive);
  if (in.ConsumeBool())
    n.bounds = Rect{in.ConsumeIntegral<int16_t>(), in.ConsumeIntegral<int16_t>(),
                    in.ConsumeIntegral<uint8_t>(), in.ConsumeIntegral<uint8_t>()};
  if (in.ConsumeBool()) n.source = Source::kOcr;
  const int children = depth < 3 ? in.ConsumeIntegralInRange<int>(0, 3) : 0;
  for (int i = 0; i < children && in.remaining_bytes() > 0; ++i) {
    n.children.push_back(MakeNode(in, next_id, depth + 1));
  }
  return n;
}

void FuzzEscape(std::string_view s) {
  const std::string once = EscapeForDisplay(s);
  CheckOneField(once, "EscapeForDisplay left a raw character");
  Check(EscapeForDisplay(once) == once, "EscapeForDisplay is not idempotent", once);
  const std::string cut = EscapeForDisplay(s, 7);
  CheckOneField(cut, "a cut EscapeForDisplay left a raw character");
  const std::string quoted = QuoteForDisplay(s);
  CheckOneField(quoted, "QuoteForDisplay left a raw character");
  // The field ends at its last quote: every quote inside is escaped.
  Check(quoted.size() >= 2 && quoted.front() == '"' && quoted.back() == '"', "unquoted", quoted);
  for (size_t i = 1; i + 1 < quoted.size(); ++i) {
    if (quoted[i] != '"') continue;
    size_t backslashes = 0;
    for (size_t k = i; k > 1 && quoted[k - 1] == '\\'; --k) ++backslashes;
    Check(backslashes % 2 == 1, "a quote ends the field early", quoted);
  }
  CheckLines(EscapeLinesForDisplay(s, "  "), "EscapeLinesForDisplay left a raw character");
  const std::string utf8 = SanitiseUtf8(s);
  Check(FindUnescaped(EscapeForDisplay(utf8), false) == std::string_view::npos, "SanitiseUtf8",
        utf8);
}

void FuzzFormats(const Snapshot& snapshot) {
  for (Format format : {Format::kCompact, Format::kTargets}) {
    FormatOptions options;
    options.format = format;
    options.elide_layout = false;
    auto page = FormatSnapshot(snapshot, options);
    if (!page.ok()) continue;
    CheckLines(page->text, "a format left a raw character");
    if (format == Format::kCompact) {
      Check(Lines(page->text) == static_cast<size_t>(page->nodes_emitted) + page->truncated,
            "a compact field added a line", page->text);
    }
  }
}

void FuzzFind(const Snapshot& snapshot, const std::string& query_name) {
  FindQuery query;
  query.name = query_name;
  query.limit = 5;
  auto found = FindNodes(snapshot.roots, query);
  if (!found.ok()) return;
  CheckOneField(found->suggestion, "find's suggestion left a raw character");
  for (const FindMatch& m : found->matches) {
    CheckOneField(FormatFindMatch(m), "a find match left a raw character");
  }
}

void FuzzConfirmationLines(FuzzedDataProvider& in) {
  safety::Confirmation c;
  c.token = "tok0000001";
  c.tool = in.ConsumeRandomLengthString(16);
  c.target = in.ConsumeRandomLengthString(64);
  c.app = in.ConsumeRandomLengthString(32);
  c.session = in.ConsumeRandomLengthString(8);
  c.rule = in.ConsumeRandomLengthString(8);
  c.reason = in.ConsumeRandomLengthString(64);
  c.decided_by = in.ConsumeRandomLengthString(16);
  c.arguments = {{"text", in.ConsumeRandomLengthString(32)}};
  c.status = in.ConsumeBool() ? safety::ConfirmationStatus::kPending
                              : safety::ConfirmationStatus::kApproved;
  const std::string described = cli::DescribeConfirmation(c, 0);
  CheckLines(described, "a confirmation left a raw character");
  Check(Lines(described) == 1, "a confirmation field added a line", described);

  safety::Grant g;
  g.app = c.app;
  g.display = c.session;
  g.rule = c.rule;
  g.tool = c.tool;
  g.decided_by = c.decided_by;
  g.token = c.token;
  const std::string grant = cli::DescribeGrant(g, 0);
  CheckOneField(grant, "a grant left a raw character or a line");

  safety::AuditEntry e;
  e.tool = c.tool;
  e.decision = in.ConsumeBool() ? "done" : in.ConsumeRandomLengthString(12);
  e.target_desc = c.target;
  e.app = c.app;
  e.session = c.session;
  e.arguments = c.arguments;
  e.via = in.ConsumeRandomLengthString(8);
  e.rule = c.rule;
  e.reason = c.reason;
  e.error = in.ConsumeRandomLengthString(32);
  e.screen_before = in.ConsumeRandomLengthString(12);
  const std::string entry = cli::AuditLine(e, "2026-01-01 00:00:00.000", in.ConsumeBool());
  CheckLines(entry, "an audit entry left a raw character");
  const size_t expected = (e.rule.empty() ? 0 : 1) + (e.error.empty() ? 0 : 1) +
                          (e.decision == safety::decision::kInFlight ? 1 : 0);
  Check(Lines(entry) == expected, "an audit field added a line", entry);
}

void FuzzShortcuts(FuzzedDataProvider& in) {
  Shortcut s;
  s.app = in.ConsumeRandomLengthString(16);
  s.keys = in.ConsumeRandomLengthString(16);
  s.action = in.ConsumeRandomLengthString(48);
  s.category = in.ConsumeRandomLengthString(12);
  s.source = in.ConsumeRandomLengthString(8);
  s.path = in.ConsumeRandomLengthString(48);
  CheckOneField(ShortcutText(s), "a shortcut left a raw character or a line");

  Registry registry;
  registry.read.app = s.app;
  registry.shortcuts = {s, s};
  const std::string table = FormatRegistry(registry);
  CheckLines(table, "the shortcut table left a raw character");
  Check(Lines(table) == 3, "a shortcut field added a line to the table", table);

  Discovery d;
  d.app = s.app;
  d.toolkit = s.source;
  d.toolkit_name = s.category;
  d.windows = {s.action, s.path};
  d.menus = {s.category};
  d.roles[s.keys] = 1;
  d.custom_actions = {s.action};
  const std::string report = FormatDiscovery(d);
  CheckLines(report, "the discovery report left a raw character");
  Check(Lines(report) == 8, "a discovery field added a line", report);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string text = in.ConsumeRandomLengthString(256);
  FuzzEscape(text);

  Snapshot snapshot;
  int next_id = 0;
  const int apps = in.ConsumeIntegralInRange<int>(1, 3);
  for (int i = 0; i < apps && in.remaining_bytes() > 0; ++i) {
    snapshot.roots.push_back(MakeNode(in, next_id, 0));
  }
  FuzzFormats(snapshot);
  FuzzFind(snapshot, text.empty() ? std::string("x") : text);
  FuzzConfirmationLines(in);
  FuzzShortcuts(in);
  return 0;
}
