// Turns a Snapshot into what an agent or a program reads (DESIGN §3, §11).
//
// Three formats share one paging scheme so that no answer floods a model's
// context: nodes are taken in preorder, a page stops at `max_nodes` or
// `max_chars`, and `next_cursor` resumes where it stopped. Walking the cursors
// from "" until next_cursor is "" visits every node exactly once. A cursor
// names a position in one snapshot; it is meaningless against another.
//
// - compact: one line per node, `[button "Play" id=btn_1a2b bounds=10,5,80,30 focused]`.
//   Inside a web page (a "document web": Chromium, Electron, Firefox) a line
//   has no bounds, and a leaf with nothing to act on (a text run, a plain
//   table cell) no ID either: `[table_cell "Item 1"]`. Pages are long and
//   mostly text; their boxes and IDs stay in the json format.
// - json: the node set with frame, stats and page, for programs.
// - semantic: the frame of seed 000 — windows, buttons, text_fields, links,
//   text_content.
// - targets: seed 002's flat list — per window (the active one first), the
//   elements an agent can act on, most relevant first, each with its click
//   point, confidence and whether memory learned it (engine/learner.h).
//   The text is compact lines for a model; `json` the structured form.
//
// Password values are never printed in any format, even when a backend filled
// Node::value by mistake. The diff format lives with the engine, which keeps
// the previous observation.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/escape.h"
#include "core/node.h"
#include "core/result.h"

namespace uiscope {

enum class Format { kCompact, kJson, kSemantic, kTargets };

// "compact" | "json" | "semantic" | "targets"; otherwise InvalidArgument listing those.
Result<Format> ParseFormat(std::string_view name);
std::string_view FormatName(Format format);

struct FormatOptions {
  Format format = Format::kCompact;
  // Nodes emitted in this page; 0 = unlimited. For semantic: entries (one per
  // window, button, text field, link or text_content line); for targets:
  // targets.
  int max_nodes = 0;
  // Size of this page in UTF-8 bytes; 0 = unlimited. At least one node is
  // always emitted, so a page may exceed a budget smaller than one node.
  //   compact:  bytes of the whole text: node lines, newlines and the
  //             "… N more nodes (cursor=…)" trailer.
  //   json:     approximate: the sum of each node's own serialised object
  //             (without children); nesting and the envelope are not counted.
  //   semantic: approximate: the sum of each entry's serialised size.
  //   targets:  bytes of the text's target and window lines (not the
  //             trailer).
  int max_chars = 0;
  std::string cursor;  // "" = first page; else a next_cursor of the same snapshot
  // compact only: unnamed layout boxes (panel / unknown role, no name, value,
  // actions or notable state) are not printed; their children take their
  // place. Cursors and node counts then refer to the printed nodes.
  bool elide_layout = true;
  // targets only: how often an action on an element had its effect
  // (engine/learner.h, Learner::Hits). More hits rank first and make the
  // element read learned. Empty: no memory.
  std::function<int(const Node&)> learned_hits;
};

struct FormatOutput {
  std::string text;         // compact lines, or the JSON / semantic object serialised
  nlohmann::json json;      // the object for json and semantic formats (null for compact)
  int nodes_total = 0;      // nodes in the tree
  int nodes_emitted = 0;    // nodes in this page (semantic: entries)
  bool truncated = false;   // more nodes follow; resume with next_cursor
  std::string next_cursor;  // "" when this is the last page
};

// Formats one page of `snapshot`. InvalidArgument for a malformed or
// out-of-range cursor or a negative budget. Never throws.
Result<FormatOutput> FormatSnapshot(const Snapshot& snapshot, const FormatOptions& options);

// One node as in the json format: id, role, name, value and description (when
// not empty; value never for passwords), bounds {x,y,w,h} (when known), states,
// actions, source, confidence (when not ax), app, pid, window and, with
// `with_children`, children.
// The fields every structured observation carries besides its nodes:
// {"frame", "stats", "page"} — the json format's object without "nodes", for
// callers that wrap the compact text in JSON (CLI --json, MCP).
nlohmann::json SnapshotEnvelope(const Snapshot& snapshot, const FormatOutput& page);

nlohmann::json NodeToJson(const Node& node, bool with_children = true);

// {x, y, w, h}, as bounds appear in every JSON output.
nlohmann::json RectToJson(const Rect& r);

// The inverse of NodeToJson (with children) for an array of nodes, to keep
// an observation on disk (`observe --format diff` across CLI processes).
// Backend references are not kept. InvalidArgument for a malformed node.
Result<std::vector<Node>> NodesFromJson(const nlohmann::json& nodes);

// EscapeForDisplay (core/escape.h): untrusted text made safe to print in a
// line a person or an agent reads. For a JSON field, use SanitiseUtf8.
std::string SanitiseForDisplay(std::string_view s, size_t max_chars);

// One node as a compact line without indentation or newline:
// `[button "Play" id=btn_1a2b bounds=10,5,80,30 focused]`.
std::string FormatNodeLine(const Node& node);

}  // namespace uiscope
