// `observe --format diff` (DESIGN §3): only what changed since the caller's
// previous observation of the same scope (added, removed and changed
// elements by ID) — the cheapest way for an agent to follow the screen.
// The first observation of a scope has nothing to compare with: it is the
// baseline, given whole in the compact format.
//
// The MCP server compares with its last observation of the scope (IDs
// reconciled by its Observer). A CLI run keeps the last observation per
// desktop and scope in a private file (Baseline*); its IDs are anchored to
// the apps' objects across runs (engine/id_anchor_store.h), so a renamed
// element shows as changed, with the ID every `uiscope observe` prints.
// Password values are never stored (Node::value is empty for them).
#pragma once

#include <optional>
#include <string>

#include "core/diff.h"
#include "core/format.h"
#include "core/node.h"
#include "core/result.h"

namespace uiscope {

struct DiffObservation {
  bool baseline = false;  // no previous observation: `text` is the compact tree
  TreeDiff diff;
  std::string text;  // FormatDiff (or the compact tree of a baseline)
  int lines = 0;     // diff entries printed (nodes, for a baseline)
  bool truncated = false;
};

// `previous` null: the baseline. `max_lines` bounds the diff text (0 = all);
// `baseline_page` formats a baseline (compact; its budgets apply).
Result<DiffObservation> DiffObservations(const Snapshot& current, const Snapshot* previous,
                                         const FormatOptions& baseline_page, int max_lines);

// Where the CLI keeps the baseline of `scope` on `display`: the session's
// runtime dir (private, removed with the session) when `runtime_dir` is
// given, else the state dir (SessionStateDir()/observations).
std::string BaselinePath(const std::string& display, const std::string& runtime_dir,
                         const std::string& scope);
// nullopt when there is none yet (or it is unreadable: a fresh baseline).
std::optional<Snapshot> LoadBaseline(const std::string& path);
Status SaveBaseline(const std::string& path, const Snapshot& snapshot);

}  // namespace uiscope
