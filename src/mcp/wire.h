// The wire forms of the engine's results: the JSON an MCP tool returns as
// structuredContent and the CLI prints with --json. One function per result,
// shared by both front ends so they cannot drift apart; kept out of engine/,
// which orchestrates and knows nothing of how its results travel.
#pragma once

#include <nlohmann/json.hpp>

#include "engine/act.h"
#include "engine/apps.h"
#include "engine/clipboard.h"
#include "engine/discover.h"
#include "engine/find.h"
#include "engine/menu_path.h"
#include "engine/named_target.h"
#include "engine/observe_diff.h"
#include "engine/read_text.h"
#include "engine/screenshot.h"
#include "engine/shortcuts.h"
#include "engine/verify.h"
#include "engine/wait_for.h"

namespace uiscope {

// --- Actions ---------------------------------------------------------------------

// {tool, performed, via, method, target, points, effect, verification,
// decision, notes, resolution, display, timing}.
nlohmann::json ActionResultToJson(const ActionResult& result);

// {"verdict", "rule", "reason", "token"} (verdict: allow, drop, deny,
// needs_confirmation).
nlohmann::json GateDecisionToJson(const GateDecision& decision);

// {"effect", "reason", "tree": DiffToJson, "pixels": {"captured", "score",
// "changed_pixels", "compared_pixels", "region", "compared", "bounds",
// "areas"}, "windows_opened", "windows_closed": [{"id", "title", "bounds",
// "changed"}], "waited_ms", "polls", "ended_by", "warnings"}.
nlohmann::json VerificationToJson(const Verification& v);

// {app, path, performed, steps: [ActionResultToJson...]}.
nlohmann::json MenuResultToJson(const MenuResult& result);

// {"name", "role"?, "exact"?, "app"?} as the tools echo it.
nlohmann::json NamedTargetToJson(const NamedTarget& target);

// --- Applications and windows ----------------------------------------------------

// A window: {id "0x…", title, app_class, app_instance, pid, bounds, visible,
// focused}, and for these entries the app it belongs to ("app").
nlohmann::json WindowEntryToJson(const WindowEntry& entry);
// {name, pid, toolkit, accessible, launched, command, windows}.
nlohmann::json AppEntryToJson(const AppEntry& app);
// {performed, decision, pid, log_file, accessible, app, toolkit, waited_ms,
// warnings, devtools_port?, window (null until one showed)}.
nlohmann::json LaunchResultToJson(const LaunchResult& result);
// {performed, decision, app, window (null when not performed)}.
nlohmann::json FocusResultToJson(const FocusResult& result);
// {performed, decision, app, stage, waited_ms, exit_code (null if unknown)}.
nlohmann::json CloseResultToJson(const CloseResult& result);

// --- Clipboard (no content: the tools and the CLI add it their own way) ----------

// {window, pid, app, app_class} of the selection's owner.
nlohmann::json ClipboardOwnerToJson(const ClipboardGetResult& r);
// {performed, selection, mime, bytes}, then {holder_pid, verified, hold_s}
// when performed, else {decision}.
nlohmann::json ClipboardSetResultToJson(const ClipboardSetRequest& request,
                                        const ClipboardSetResult& result);

// --- Perception ------------------------------------------------------------------

// {"found", "matches": [node objects without children, each with "score",
// "confidence" and "click_point" {x, y}], "total", "searched", "similar":
// [{name, role, id, score}], "suggestion"}.
nlohmann::json FindResultToJson(const FindResult& result);

// {"format": "diff", "baseline", "diff" (DiffToJson), "tree" (the text),
// "frame", "stats", "page" {nodes_total, nodes_emitted, truncated,
// next_cursor: ""}}.
nlohmann::json DiffObservationToJson(const Snapshot& current, const DiffObservation& d);

// text, confidence, lines [{text, bounds, confidence, words}], words,
// processing_time_ms, cached, regions_read, regions_reused, region, display,
// masked_fields, capture_ms, observe_ms, total_ms, warnings.
nlohmann::json ReadTextToJson(const ReadTextResult& result);

// Everything but the image bytes (their size is `bytes`).
nlohmann::json ScreenshotToJson(const ScreenshotResult& result);

// {satisfied, condition, seen_in, waited_ms, polls, matches, text_matches,
// last_seen, change, pixels, warnings, not_answering, display}.
nlohmann::json WaitForResultToJson(const WaitForResult& result);

// --- Specialists -----------------------------------------------------------------

// {app, pid, toolkit, toolkit_name, toolkit_version, windows, menus,
// shortcut_count, shortcuts, roles, custom_actions, schema_available,
// schema_file?, exploration_confidence, elapsed_ms, state_unchanged?, notes}.
nlohmann::json DiscoveryToJson(const Discovery& d);

// {app, pid, count, shortcuts: [...], tree_ms, schema_file, menus_opened,
// state_unchanged (deep), notes}.
nlohmann::json RegistryToJson(const Registry& registry);

}  // namespace uiscope
