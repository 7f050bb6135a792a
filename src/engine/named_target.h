// Find-then-act: an action whose target is named by its label ("the Save
// button") instead of an element ID, resolved with the engine's find
// (engine/find.h) in a fresh observation. What the MCP action tools take as
// {"name", "role"}, the CLI as --name / --role, and plan steps as "target".
//
// Which elements a label names (the candidates):
//   1. every element find matches (fuzzy: case, accents, word order, typos
//      in long words; or `exact`), of `role` when given, in `app` when given;
//   2. narrowed to those the action can use when there are any: editable
//      text for type_text, a value or text for set_value, something
//      interactive (a role people act on, or accessibility actions) for
//      click and press_keys — so "Email" names the field, not its label.
//      For type_text and set_value a label matched stands for the field it
//      labels: nodes carry no label relation, so the field beside it (the
//      nearest usable element of its window to its right in its row), else
//      below it (columns overlapping). Text never goes to a label: when
//      nothing named takes text, NotFound;
//   3. then to the full matches (the same text once case, accents,
//      punctuation and spaces are ignored) when there is one: "Save" names
//      the "Save" button, not "Save as…". Without a full match every
//      partial match is a candidate: "Save" among "Save draft" and "Save and
//      close" is ambiguous.
// One candidate: the action uses it. Several: the action uses the best (the
// first, as find ranks them) but the safety policy holds it for a person's
// confirmation, listing the candidates (R4, seed 001); the agent may
// instead act on one of the candidates by its ID.
//
// Not thread-safe: call under the workspace lease.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/node.h"
#include "core/result.h"
#include "engine/act.h"
#include "engine/workspace.h"

namespace uiscope {

struct NamedTarget {
  std::string name;          // the label
  std::optional<Role> role;  // only elements of this role
  bool exact = false;        // the whole label, character for character
  std::string app;           // only in this application ("" = any; case-insensitive)
};

struct NamedTargetResolution {
  std::string id;  // the element the action uses: the best candidate
  // The elements the label names, best first (no children), at most
  // kMaxListedCandidates of them; `candidate_count` counts them all.
  std::vector<Node> candidates;
  int candidate_count = 0;
  int matches = 0;  // what find matched before narrowing
};

// The most candidates kept (and shown to a person); more are counted.
inline constexpr size_t kMaxListedCandidates = 20;

// Chooses in an observed tree, as described above. InvalidArgument for an
// empty label; NotFound, with find's suggestion of similar names, when
// nothing matches.
Result<NamedTargetResolution> ChooseNamedTarget(const std::vector<Node>& roots,
                                                const NamedTarget& target, ActionKind kind,
                                                const Frame& frame = {});

// Observes every application through the lease's observer (deny-listed ones
// stay hidden) and chooses.
Result<NamedTargetResolution> ResolveNamedTarget(Workspace::Lease& lease, const NamedTarget& target,
                                                 ActionKind kind,
                                                 std::chrono::milliseconds timeout);

// Resolves `target` and performs `request` on the element chosen, with the
// candidates set for the gate (ActionRequest::candidates). For every action
// kind but drag. Errors as ResolveNamedTarget, then as PerformAction.
Result<ActionResult> PerformActionOnNamed(Workspace::Lease& lease, ActionRequest request,
                                          const NamedTarget& target);

}  // namespace uiscope
