// Walking a menu path ("File > Save As…", seed 004 §5.4, issue 19): each
// level is found in the accessibility tree, opened, its items waited for,
// and the last one activated, every step a verified click by ID through the
// gate and the audit log (engine/act.h PerformAction, MenuRequest::via).
//
// The items of a level are the menu entries and buttons shown under the
// item just opened (GTK 3 and Qt menus) or shown since it was clicked
// (popovers: gedit 44's "Menu" button). A step that names nothing there
// fails closed: the menus opened so far are closed again with Escape and
// the error lists the items that do exist at that level.
//
// Names match as core/shortcuts.h ActionKey folds them: case, accents,
// mnemonic underscores and a trailing "…" / "..." do not matter. Where
// several elements of a level bear a step's name (gedit 44 has two "Menu"
// buttons), each is opened in turn until one shows the next step; the
// others are closed again with Escape (every click and Escape audited).
//
// Not thread-safe: call under the workspace lease (Need::kHands).
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engine/act.h"
#include "engine/workspace.h"

namespace uiscope {

// "File > Save As…" -> {"File", "Save As…"}. InvalidArgument for an empty
// path or step, or more than 8 steps.
Result<std::vector<std::string>> ParseMenuPath(std::string_view path);

struct MenuRequest {
  std::string app;                          // required
  std::vector<std::string> steps;           // ParseMenuPath
  std::chrono::milliseconds timeout{2000};  // each level's items, each accessibility call
  VerifyOptions verify;                     // the last step's verification
  // How each step clicks (engine/act.h): auto clicks menu items with the
  // pointer (an item's AT-SPI action that opens a modal dialog can leave
  // the app deaf until it closes, see act.cpp); accessibility forces the
  // elements' actions.
  Via via = Via::kAuto;
  std::string confirmation_token;
  nlohmann::json arguments = nlohmann::json::object();  // for the audit log
};

struct MenuResult {
  std::string app;
  std::vector<std::string> path;    // the names as the app shows them
  std::vector<ActionResult> steps;  // one per level reached, the last one verified
  // All steps done. False with the last step's decision when the gate held
  // or refused one (then the menus opened so far are closed again).
  bool performed = false;
};

// Errors: InvalidArgument (no app, bad path), NotFound for an unknown app or
// a missing step (listing the items at that level), and what the actions
// report.
Result<MenuResult> WalkMenuPath(Workspace::Lease& lease, const MenuRequest& request);

}  // namespace uiscope
