// Finding elements in a snapshot by label and role (`uiscope find`, the MCP
// `find` tool; seed 000's find_element).
//
// Labels match fuzzily (core/fuzzy.h): case- and accent-insensitive, by
// words in any order, a word matching a whole word, a prefix or a part of
// one, long words with a typo or two (a swap of two neighbours is one).
// `exact` asks for the whole name, character for character. An element
// without a name is known by its description (an icon button's tooltip,
// "Clear Display [Escape]"); a named element's description matches too, a
// little below the same words in a name. Any node can match — accessible, merged, or
// found in the pixels (OCR text, vision elements) when the snapshot was
// perceived with those sources — and each match says which, with its
// confidence, so a caller can prefer what it trusts.
//
// When nothing matches a label, the closest names on screen come back as
// suggestions ("Similar: 'Login', 'Log out'"), so an agent with a typo or a
// stale label asks again instead of giving up.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/node.h"
#include "core/result.h"

namespace uiscope {

struct FindQuery {
  std::string name;          // label to look for ("" = any name)
  std::optional<Role> role;  // only this role
  bool exact = false;        // the whole name, exactly as written
  int limit = 20;            // at most this many matches (0 = all)
  int max_suggestions = 5;   // "Similar:" names when nothing matches
  // When to give up: matching costs microseconds a node (fuzzy.h caps what
  // it compares), but a tree has up to 20,000 of them and a caller has a
  // deadline. Past it FindNodes returns Timeout; once `cancelled` (may be
  // empty) says so, Unavailable. Both are checked every few nodes.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::function<bool()> cancelled;
  // What memory knows (engine/learner.h, Learner::Hits): how often an
  // action on the element had its effect. Among matches of the same label
  // score, more hits rank first (seed 002: learned hits rank higher). Empty:
  // no memory.
  std::function<int(const Node&)> learned_hits;
};

struct FindMatch {
  const Node* node = nullptr;
  double score = 1;  // how well the label matched, 0..1 (1 for exact and role-only queries)
  // Where a click on the element lands, screen pixels: the centre of its
  // bounds clipped to the frame. nullopt when the node has no bounds there.
  std::optional<Point> click_point;
  // When the query matched a line of the element's value or text (a
  // terminal's output, a document's page) rather than its label: that line.
  std::string line;
};

struct Suggestion {
  std::string name;
  Role role = Role::kUnknown;
  std::string id;  // the best-placed element with that name
  double score = 0;
};

struct FindResult {
  // Best first: label score, then learned hits (FindQuery::learned_hits),
  // then elements an agent can act on (buttons,
  // fields, items) before the others, then higher confidence (accessible
  // before pixel-only), then reading (preorder) order.
  std::vector<FindMatch> matches;
  int total = 0;     // matches before the limit
  int searched = 0;  // nodes looked at
  // When nothing matched: the closest names (whatever their role), best
  // first, and a sentence saying so ("No elements matching 'Logn' found.
  // Similar: 'Login' (button)"). Empty otherwise.
  std::vector<Suggestion> similar;
  std::string suggestion;
};

// InvalidArgument when the query has neither a name nor a role; Timeout past
// the query's deadline, Unavailable when it was cancelled. The pointers
// point into `roots` and live as long as it. `frame` clips click points
// (width 0: no clipping).
Result<FindResult> FindNodes(const std::vector<Node>& roots, const FindQuery& query,
                             const Frame& frame = {});

// One match as a compact line: the node's line, then click point, source and
// score: `[button "Login" id=btn_dbe2 bounds=266,251,331,34] click=431,268`.
std::string FormatFindMatch(const FindMatch& match);

// "button" -> Role::kButton; InvalidArgument listing the role names otherwise.
Result<Role> ParseRole(std::string_view name);

}  // namespace uiscope
