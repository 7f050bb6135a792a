// Plans (seed 001, issue 7): a JSON array of actions an agent hands over at
// once, validated as a whole before anything runs (R2), then run step by
// step through the safety policy with verification.
//
// The step schema is seed 001's, widened by two steps that act on element
// IDs:
//   [{"type": "open_app" | "type_text" | "wait" | "click_by_bounds"
//              | "click" | "press_keys",
//     "args": {"target": string,        // open_app: the program to launch;
//                                       // type_text / click / press_keys: an
//                                       // element's name (found, R4 when
//                                       // several match)
//              "uiElementId": string,   // type_text / click / press_keys: an
//                                       // element ID from observe
//              "text": string,          // type_text
//              "keys": string | [string],  // press_keys: chords ("ctrl+s")
//              "delayMs": integer,      // wait: 0..60000
//              "bounds": {"x", "y", "width", "height"},  // click_by_bounds:
//                                       // screen pixels; the click goes to
//                                       // its centre
//              "requireConfirmation": boolean,  // ask a person first
//              "metadata": object}}]    // kept, not interpreted
// Per type: open_app needs target; type_text needs text; wait needs
// delayMs; click_by_bounds needs bounds; click needs uiElementId or target;
// press_keys needs keys. uiElementId and target exclude each other.
// Anything else — another type, an unknown key, a wrong type, an empty
// plan, more than kMaxPlanSteps steps — is an InvalidArgument naming the
// step (1-based), its type and the JSON pointer of the bad element, and
// nothing runs.
//
// Pure functions on plain data.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "core/result.h"

namespace uiscope {

inline constexpr size_t kMaxPlanSteps = 100;
inline constexpr int kMaxPlanDelayMs = 60000;
inline constexpr size_t kMaxPlanTextBytes = 100000;

enum class PlanStepType { kOpenApp, kTypeText, kWait, kClickByBounds, kClick, kPressKeys };
std::string_view PlanStepTypeName(PlanStepType type);

struct PlanStep {
  PlanStepType type = PlanStepType::kWait;
  std::string target;             // open_app: command; else an element's name ("" = none)
  std::string element_id;         // uiElementId ("" = none)
  std::string text;               // type_text
  std::vector<std::string> keys;  // press_keys
  int delay_ms = 0;               // wait
  std::optional<Rect> bounds;     // click_by_bounds, screen pixels
  bool require_confirmation = false;
  nlohmann::json metadata = nlohmann::json::object();
  nlohmann::json raw;  // the step as given
};

// Validates a whole plan: `plan` is the array itself, or a string holding
// its JSON (as a model writes it). InvalidArgument as described above; for a
// string that is not JSON, the parser's line and column.
Result<std::vector<PlanStep>> ParsePlan(const nlohmann::json& plan);

// R1 (seed 001): a re-observation after a step is skipped when the screen
// barely changed — a pixel difference below 0.01 (the fraction of pixels
// that differ) — and the focus did not move. Step results report such a
// skip as such.
inline constexpr double kR1DiffThreshold = 0.01;
bool ReobservationSkippable(double pixel_diff, bool focus_changed);

}  // namespace uiscope
