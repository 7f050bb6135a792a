#include "engine/named_target.h"

#include <algorithm>

#include "core/app_name.h"
#include "core/format.h"
#include "core/fuzzy.h"
#include "engine/find.h"
#include "engine/label_field.h"

namespace uiscope {
namespace {

// A full match: the same text once case, accents, punctuation and spaces are
// ignored (core/fuzzy.h scores "log in" / "Login" 0.95, the same text 1).
constexpr double kFullMatch = 0.95;

// Whether an action of `kind` can use `n` as it is meant: text goes into
// something editable, a value into something with one, a click or keys to
// something people act on.
bool Usable(const Node& n, ActionKind kind) {
  switch (kind) {
    case ActionKind::kTypeText:
      return TakesText(n);
    case ActionKind::kSetValue:
      return TakesValue(n);
    case ActionKind::kClick:
    case ActionKind::kPressKeys:
      return IsInteractiveRole(n.role) || !n.actions.empty();
    case ActionKind::kScroll:
    case ActionKind::kDrag:
      return true;
  }
  return true;
}

Node Shallow(const Node& n) {
  Node c = n;
  c.children.clear();
  return c;
}

}  // namespace

Result<NamedTargetResolution> ChooseNamedTarget(const std::vector<Node>& roots,
                                                const NamedTarget& target, ActionKind kind,
                                                const Frame& frame) {
  if (FoldText(target.name).empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the target's name is empty: give the element's label (as observe or find "
                     "shows it), or its ID");
  }
  FindQuery query;
  query.name = target.name;
  query.role = target.role;
  query.exact = target.exact;
  query.limit = 0;  // every match: ambiguity is judged on all of them
  auto found = FindNodes(roots, query, frame);
  if (!found.ok()) return found.error();

  std::vector<const FindMatch*> matches;
  for (const FindMatch& m : found->matches) {
    if (m.node->role == Role::kApplication) continue;
    if (!target.app.empty() && !AppNameMatches(target.app, m.node->app)) continue;
    matches.push_back(&m);
  }
  if (matches.empty()) {
    std::string what = "no element";
    if (target.role) what += " of role " + std::string(RoleName(*target.role));
    what += " named \"" + SanitiseForDisplay(target.name, 80) + "\"";
    if (!target.app.empty()) what += " in " + target.app;
    std::string hint = found->suggestion.empty() ? "" : " " + found->suggestion;
    if (found->total > 0 && !target.app.empty()) hint = " (it is in other applications)";
    return MakeError(ErrorCode::kNotFound, what + " on screen among " +
                                               std::to_string(found->searched) + " elements." +
                                               hint + " Observe or find to see the names");
  }
  NamedTargetResolution out;
  out.matches = static_cast<int>(matches.size());

  // An element the action can use, with the score of the label that named
  // it (its own, or its label's).
  struct Candidate {
    const Node* node;
    double score;
  };
  std::vector<Candidate> usable;
  auto add = [&](const Node* node, double score) {
    for (Candidate& c : usable) {
      if (c.node == node) {
        c.score = std::max(c.score, score);
        return;
      }
    }
    usable.push_back({node, score});
  };
  double best_direct = -1;  // the best score of a usable element named itself
  for (const FindMatch* m : matches) {
    if (Usable(*m->node, kind)) {
      add(m->node, m->score);
      best_direct = std::max(best_direct, m->score);
    }
  }
  // Text never goes into a label itself ("City" clicked the label, and the
  // text landed in the field that had the focus): the label stands for its
  // field, where it names better than any field named so itself (a field
  // and its label both called "Email" name the field once).
  std::vector<const FindMatch*> labels;  // labels matched for text, which no field was found for
  for (const FindMatch* m : matches) {
    if (!PutsText(kind) || Usable(*m->node, kind) || !IsLabelRole(m->node->role) ||
        m->score <= best_direct) {
      continue;
    }
    if (const Node* field = FieldOfLabel(roots, *m->node, [kind](const Node& n) { return Usable(n, kind); })) {
      add(field, m->score);
    } else {
      labels.push_back(m);
    }
  }
  if (usable.empty() && PutsText(kind)) {
    const Node& first = labels.empty() ? *matches.front()->node : *labels.front()->node;
    return MakeError(ErrorCode::kNotFound,
                     "\"" + SanitiseForDisplay(target.name, 80) + "\" names " +
                         std::string(RoleName(first.role)) + " " + first.id +
                         (labels.empty() ? ", which takes no text,"
                                         : ", and no field sits to its right or below it,") +
                         " and nothing named so takes text: act on the field by its ID (observe "
                         "or find shows it)");
  }
  if (usable.empty()) {
    for (const FindMatch* m : matches) usable.push_back({m->node, m->score});
  }
  const bool any_full = std::any_of(usable.begin(), usable.end(),
                                    [](const Candidate& c) { return c.score >= kFullMatch; });
  if (any_full) {
    std::erase_if(usable, [](const Candidate& c) { return c.score < kFullMatch; });
  }
  out.id = usable.front().node->id;
  out.candidate_count = static_cast<int>(usable.size());
  for (const Candidate& c : usable) {
    if (out.candidates.size() == kMaxListedCandidates) break;
    out.candidates.push_back(Shallow(*c.node));
  }
  return out;
}

Result<NamedTargetResolution> ResolveNamedTarget(Workspace::Lease& lease, const NamedTarget& target,
                                                 ActionKind kind,
                                                 std::chrono::milliseconds timeout) {
  if (lease.observer == nullptr) {
    return MakeError(ErrorCode::kUnsupported, "this desktop has no accessibility tree to find \"" +
                                                  target.name +
                                                  "\" in; act on a screen point instead");
  }
  ObserveRequest all;
  all.timeout = timeout;
  auto obs = lease.observer->Observe(all);
  if (!obs.ok()) return obs.error();
  return ChooseNamedTarget(obs->snapshot.roots, target, kind, obs->snapshot.frame);
}

Result<ActionResult> PerformActionOnNamed(Workspace::Lease& lease, ActionRequest request,
                                          const NamedTarget& target) {
  if (request.kind == ActionKind::kDrag) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "drag takes element IDs or points for its ends, not names");
  }
  auto chosen = ResolveNamedTarget(lease, target, request.kind, request.timeout);
  if (!chosen.ok()) return chosen.error();
  request.target = ActionTarget{chosen->id, std::nullopt};
  request.candidates = chosen->candidate_count;
  if (chosen->candidate_count > 1) request.candidate_nodes = std::move(chosen->candidates);
  return PerformAction(lease, request);
}

}  // namespace uiscope
