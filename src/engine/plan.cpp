#include "engine/plan.h"

#include <algorithm>

namespace uiscope {
namespace {

using nlohmann::json;

struct TypeInfo {
  PlanStepType type;
  std::string_view name;
};
constexpr TypeInfo kTypes[] = {
    {PlanStepType::kOpenApp, "open_app"}, {PlanStepType::kTypeText, "type_text"},
    {PlanStepType::kWait, "wait"},        {PlanStepType::kClickByBounds, "click_by_bounds"},
    {PlanStepType::kClick, "click"},      {PlanStepType::kPressKeys, "press_keys"},
};

std::string TypeList() {
  std::string out;
  for (const auto& t : kTypes) out += (out.empty() ? "" : ", ") + std::string(t.name);
  return out;
}

// Builds "plan step N (type) at /i/args/x: message".
class StepErrors {
 public:
  StepErrors(size_t index, std::string type) : index_(index), type_(std::move(type)) {}
  Error At(const std::string& pointer_tail, const std::string& message) const {
    std::string where = "plan step " + std::to_string(index_ + 1);
    if (!type_.empty()) where += " (" + type_ + ")";
    where += " at /" + std::to_string(index_) + pointer_tail;
    return MakeError(ErrorCode::kInvalidArgument, where + ": " + message + "; nothing was run");
  }

 private:
  size_t index_;
  std::string type_;
};

std::string Kind(const json& j) { return j.type_name(); }

Result<int> RequireInt(const json& v, const StepErrors& e, const std::string& key, int min,
                       int max) {
  if (!v.is_number_integer()) {
    return e.At("/args/" + key, key + " must be an integer, got " + Kind(v) + " " + v.dump());
  }
  const bool in_range = v.is_number_unsigned()
                            ? v.get<uint64_t>() <= static_cast<uint64_t>(max) && min <= 0
                            : v.get<int64_t>() >= min && v.get<int64_t>() <= max;
  if (!in_range) {
    return e.At("/args/" + key, key + " must be from " + std::to_string(min) + " to " +
                                    std::to_string(max) + ", got " + v.dump());
  }
  return static_cast<int>(v.get<int64_t>());
}

Result<PlanStep> ParseStep(const json& step, size_t index) {
  StepErrors e(index, "");
  if (!step.is_object()) {
    return e.At("", "a step must be an object {\"type\": ..., \"args\": {...}}, got " + Kind(step));
  }
  for (const auto& [key, value] : step.items()) {
    if (key != "type" && key != "args") {
      return e.At("/" + key, "unknown key \"" + key + "\" (a step has \"type\" and \"args\")");
    }
  }
  if (!step.contains("type") || !step["type"].is_string()) {
    return e.At("/type", "\"type\" must be one of " + TypeList());
  }
  const std::string type = step["type"].get<std::string>();
  const auto* info = std::find_if(std::begin(kTypes), std::end(kTypes),
                                  [&](const TypeInfo& t) { return t.name == type; });
  if (info == std::end(kTypes)) {
    return e.At("/type", "unknown step type \"" + type + "\" (types: " + TypeList() + ")");
  }
  e = StepErrors(index, type);
  PlanStep out;
  out.type = info->type;
  out.raw = step;
  const json args = step.value("args", json::object());
  if (!args.is_object()) return e.At("/args", "\"args\" must be an object, got " + Kind(args));

  static const std::vector<std::string> kKeys = {
      "target", "uiElementId",         "text",    "keys", "delayMs",
      "bounds", "requireConfirmation", "metadata"};
  for (const auto& [key, value] : args.items()) {
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      std::string known;
      for (const auto& k : kKeys) known += (known.empty() ? "" : ", ") + k;
      return e.At("/args/" + key, "unknown argument \"" + key + "\" (arguments: " + known + ")");
    }
  }
  auto string_arg = [&](const char* key, std::string* into) -> std::optional<Error> {
    if (!args.contains(key)) return std::nullopt;
    const json& v = args[key];
    if (!v.is_string()) {
      return e.At(std::string("/args/") + key,
                  std::string(key) + " must be a string, got " + Kind(v));
    }
    *into = v.get<std::string>();
    return std::nullopt;
  };
  if (auto err = string_arg("target", &out.target)) return *err;
  if (auto err = string_arg("uiElementId", &out.element_id)) return *err;
  if (auto err = string_arg("text", &out.text)) return *err;
  if (out.text.size() > kMaxPlanTextBytes) {
    return e.At("/args/text",
                "text is longer than " + std::to_string(kMaxPlanTextBytes) + " bytes; split it");
  }
  if (args.contains("keys")) {
    const json& v = args["keys"];
    if (v.is_string()) {
      out.keys.push_back(v.get<std::string>());
    } else if (v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string() || v[i].get<std::string>().empty()) {
          return e.At("/args/keys/" + std::to_string(i),
                      "each key chord must be a non-empty "
                      "string (\"ctrl+s\", \"Return\")");
        }
        out.keys.push_back(v[i].get<std::string>());
      }
    } else {
      return e.At("/args/keys", "keys must be a chord string or an array of them");
    }
  }
  if (args.contains("delayMs")) {
    auto ms = RequireInt(args["delayMs"], e, "delayMs", 0, kMaxPlanDelayMs);
    if (!ms.ok()) return ms.error();
    out.delay_ms = *ms;
  }
  if (args.contains("bounds")) {
    const json& b = args["bounds"];
    if (!b.is_object()) return e.At("/args/bounds", "bounds must be {x, y, width, height}");
    Rect r;
    for (const char* key : {"x", "y", "width", "height"}) {
      if (!b.contains(key))
        return e.At("/args/bounds", std::string("bounds.") + key + " is missing");
    }
    for (const auto& [key, value] : b.items()) {
      if (key != "x" && key != "y" && key != "width" && key != "height") {
        return e.At("/args/bounds/" + key,
                    "unknown key \"" + key + "\" in bounds (x, y, width, height)");
      }
    }
    auto get = [&](const char* key, int min, int* into) -> std::optional<Error> {
      const json& v = b[key];
      if (!v.is_number_integer()) {
        return e.At(std::string("/args/bounds/") + key,
                    std::string("bounds.") + key + " must be an integer (screen pixels)");
      }
      const int64_t n = v.get<int64_t>();
      if (n < min || n > (1 << 20)) {
        return e.At(std::string("/args/bounds/") + key,
                    std::string("bounds.") + key + " is out of range: " + v.dump());
      }
      *into = static_cast<int>(n);
      return std::nullopt;
    };
    if (auto err = get("x", -(1 << 20), &r.x)) return *err;
    if (auto err = get("y", -(1 << 20), &r.y)) return *err;
    if (auto err = get("width", 1, &r.w)) return *err;
    if (auto err = get("height", 1, &r.h)) return *err;
    out.bounds = r;
  }
  if (args.contains("requireConfirmation")) {
    if (!args["requireConfirmation"].is_boolean()) {
      return e.At("/args/requireConfirmation", "requireConfirmation must be true or false");
    }
    out.require_confirmation = args["requireConfirmation"].get<bool>();
  }
  if (args.contains("metadata")) {
    if (!args["metadata"].is_object()) {
      return e.At("/args/metadata", "metadata must be an object");
    }
    out.metadata = args["metadata"];
  }
  if (!out.element_id.empty() && !out.target.empty() && out.type != PlanStepType::kOpenApp) {
    return e.At("/args", "give uiElementId or target (an element's name), not both");
  }

  // What each type needs, and what it does not take.
  auto needs = [&](bool present, const char* what) -> std::optional<Error> {
    if (present) return std::nullopt;
    return e.At("/args", std::string(what) + " is required for " + type);
  };
  auto refuses = [&](bool present, const char* key) -> std::optional<Error> {
    if (!present) return std::nullopt;
    return e.At(std::string("/args/") + key, std::string(key) + " does not apply to " + type);
  };
  std::optional<Error> err;
  switch (out.type) {
    case PlanStepType::kOpenApp:
      if ((err = needs(!out.target.empty(), "target (the program to launch)"))) return *err;
      if ((err = refuses(args.contains("uiElementId"), "uiElementId"))) return *err;
      break;
    case PlanStepType::kTypeText:
      if ((err = needs(args.contains("text"), "text"))) return *err;
      break;
    case PlanStepType::kWait:
      if ((err = needs(args.contains("delayMs"), "delayMs"))) return *err;
      if ((err = refuses(!out.target.empty(), "target"))) return *err;
      if ((err = refuses(!out.element_id.empty(), "uiElementId"))) return *err;
      break;
    case PlanStepType::kClickByBounds:
      if ((err = needs(out.bounds.has_value(), "bounds"))) return *err;
      if ((err = refuses(!out.element_id.empty(), "uiElementId"))) return *err;
      break;
    case PlanStepType::kClick:
      if ((err = needs(!out.element_id.empty() || !out.target.empty(),
                       "uiElementId or target (an element's name)")))
        return *err;
      break;
    case PlanStepType::kPressKeys:
      if ((err = needs(!out.keys.empty(), "keys"))) return *err;
      break;
  }
  if (out.type != PlanStepType::kTypeText && (err = refuses(args.contains("text"), "text")))
    return *err;
  if (out.type != PlanStepType::kPressKeys && (err = refuses(args.contains("keys"), "keys")))
    return *err;
  if (out.type != PlanStepType::kWait && (err = refuses(args.contains("delayMs"), "delayMs")))
    return *err;
  if (out.type != PlanStepType::kClickByBounds &&
      (err = refuses(args.contains("bounds"), "bounds")))
    return *err;
  return out;
}

}  // namespace

std::string_view PlanStepTypeName(PlanStepType type) {
  for (const auto& t : kTypes) {
    if (t.type == type) return t.name;
  }
  return "wait";
}

Result<std::vector<PlanStep>> ParsePlan(const json& plan) {
  json steps = plan;
  if (plan.is_string()) {
    try {
      steps = json::parse(plan.get<std::string>());
    } catch (const json::exception& e) {  // parse_error, or out_of_range for "1e400"
      std::string what = e.what();
      if (auto close = what.find("] "); close != std::string::npos) what = what.substr(close + 2);
      return MakeError(ErrorCode::kInvalidArgument,
                       "the plan is not valid JSON (" + what + "); nothing was run");
    }
  }
  if (!steps.is_array()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "a plan is a JSON array of steps [{\"type\": ..., \"args\": {...}}], got " +
                         std::string(steps.type_name()) + "; nothing was run");
  }
  if (steps.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "the plan has no steps; nothing was run");
  }
  if (steps.size() > kMaxPlanSteps) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the plan has " + std::to_string(steps.size()) + " steps, more than " +
                         std::to_string(kMaxPlanSteps) + "; split it; nothing was run");
  }
  std::vector<PlanStep> out;
  int64_t total_wait = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    auto step = ParseStep(steps[i], i);
    if (!step.ok()) return step.error();
    total_wait += step->delay_ms;
    out.push_back(std::move(step).value());
  }
  if (total_wait > 10 * kMaxPlanDelayMs) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the plan waits " + std::to_string(total_wait / 1000) +
                         " s in all, more than 600 s; split it; nothing was run");
  }
  return out;
}

bool ReobservationSkippable(double pixel_diff, bool focus_changed) {
  return pixel_diff < kR1DiffThreshold && !focus_changed;
}

}  // namespace uiscope
