// `execute_plan` (issue 7, seed 001): a whole plan validated first (R2),
// then run step by step, each action through the safety policy and
// verified like the action tools; R1 re-observations skipped when nothing
// moved.
#include "mcp/tools/plan_tools.h"

#include <chrono>
#include <memory>
#include <sstream>
#include <thread>

#include "core/format.h"
#include "engine/act.h"
#include "engine/apps.h"
#include "engine/named_target.h"
#include "engine/plan.h"
#include "mcp/tools/schemas.h"
#include "mcp/wire.h"

namespace uiscope::mcp {
namespace {

using nlohmann::json;
using schema::String;

struct PlanTools {
  PlanTools(Workspace& w, std::shared_ptr<Confirmer> c) : workspace(w), confirmer(std::move(c)) {}
  Workspace& workspace;
  std::shared_ptr<Confirmer> confirmer;
};

struct Settings {
  std::string session;
  std::chrono::milliseconds settle{500};
  std::chrono::milliseconds timeout{2000};
};

// What one action step did, filled by its attempt (a held attempt may run
// again later inside `confirm`; it then writes into a finished plan's
// outcome, which nobody reads any more).
struct StepOutcome {
  bool performed = false;
  std::optional<ActionResult> action;
  std::optional<LaunchResult> launch;
};

std::string Describe(const PlanStep& s, size_t index, size_t total) {
  std::string step =
      "plan step " + std::to_string(index + 1) + " of " + std::to_string(total) + ": ";
  const std::string on = !s.element_id.empty() ? s.element_id
                         : !s.target.empty()   ? "\"" + SanitiseForDisplay(s.target, 60) + "\""
                                               : "";
  switch (s.type) {
    case PlanStepType::kOpenApp:
      return step + "launch " + SanitiseForDisplay(s.target, 80);
    case PlanStepType::kTypeText: {
      auto chars = DecodeUtf8(s.text);
      return step + "type " + std::to_string(chars.ok() ? chars->size() : s.text.size()) +
             " characters" + (on.empty() ? " into the focused element" : " into " + on);
    }
    case PlanStepType::kClickByBounds:
      return step + "click at the centre of " + std::to_string(s.bounds->x) + "," +
             std::to_string(s.bounds->y) + "," + std::to_string(s.bounds->w) + "," +
             std::to_string(s.bounds->h);
    case PlanStepType::kClick:
      return step + "click " + on;
    case PlanStepType::kPressKeys: {
      std::string keys;
      for (const auto& k : s.keys) keys += (keys.empty() ? "" : " ") + k;
      return step + "press " + keys + (on.empty() ? "" : " on " + on);
    }
    case PlanStepType::kWait:
      return step + "wait " + std::to_string(s.delay_ms) + " ms";
  }
  return step;
}

std::vector<std::string> SplitCommand(const std::string& command) {
  std::istringstream in(command);
  std::vector<std::string> argv;
  for (std::string word; in >> word;) argv.push_back(word);
  return argv;
}

// The request of an action step (not open_app, not wait).
ActionRequest RequestFor(const PlanStep& s, const Settings& settings) {
  ActionRequest r;
  switch (s.type) {
    case PlanStepType::kTypeText:
      r.kind = ActionKind::kTypeText;
      r.text = s.text;
      break;
    case PlanStepType::kPressKeys:
      r.kind = ActionKind::kPressKeys;
      r.keys = s.keys;
      break;
    default:
      r.kind = ActionKind::kClick;
      break;
  }
  if (!s.element_id.empty()) r.target.id = s.element_id;
  if (s.type == PlanStepType::kClickByBounds) {
    r.target.point = Point{s.bounds->x + s.bounds->w / 2, s.bounds->y + s.bounds->h / 2};
  }
  r.via = Via::kAuto;
  r.verify.settle = settings.settle;
  r.timeout = settings.timeout;
  r.verify.tree_timeout = settings.timeout;
  // The step as given, typed text included: the gate masks it for sensitive
  // fields (safety/redact.h).
  r.arguments = s.raw.value("args", json::object());
  r.plan_step = true;
  r.require_confirmation = s.require_confirmation;
  return r;
}

// One run of an action step under the lease.
Confirmer::Attempt RunStep(PlanTools& tools, const PlanStep& step, const Settings& settings,
                           const std::shared_ptr<StepOutcome>& outcome, const std::string& token,
                           ToolContext& ctx) {
  using Attempt = Confirmer::Attempt;
  auto lease = tools.workspace.Acquire(settings.session, Workspace::Need::kHands);
  if (!lease.ok()) return Attempt::Done(ToolResult::FromError(lease.error()));
  ToolResult out;
  GateDecision decision;
  if (step.type == PlanStepType::kOpenApp) {
    LaunchRequest r;
    r.argv = SplitCommand(step.target);
    r.confirmation_token = token;
    r.arguments = step.raw.value("args", json::object());
    r.cancelled = [&ctx] { return ctx.cancelled(); };
    r.plan_step = true;
    r.require_confirmation = step.require_confirmation;
    auto launched = LaunchApp(*lease, r);
    if (!launched.ok()) return Attempt::Done(ToolResult::FromError(launched.error()));
    out.structured = LaunchResultToJson(*launched);
    out.content.push_back(Content::Text(launched->performed
                                            ? "launched " + r.argv[0] + ": pid " +
                                                  std::to_string(launched->pid) + "\n"
                                            : "not launched: " + launched->decision.reason + "\n"));
    out.is_error = !launched->performed;
    outcome->performed = launched->performed;
    decision = launched->decision;
    outcome->launch = std::move(launched).value();
  } else {
    ActionRequest r = RequestFor(step, settings);
    r.confirmation_token = token;
    r.cancelled = [&ctx] { return ctx.cancelled(); };
    Result<ActionResult> acted = MakeError(ErrorCode::kInternal, "not run");
    if (r.target.empty() && !step.target.empty()) {
      NamedTarget named;
      named.name = step.target;
      acted = PerformActionOnNamed(*lease, r, named);
    } else {
      acted = PerformAction(*lease, r);
    }
    if (!acted.ok()) return Attempt::Done(ToolResult::FromError(acted.error()));
    out.structured = ActionResultToJson(*acted);
    out.content.push_back(Content::Text(FormatActionResult(*acted)));
    out.is_error = !acted->performed;
    outcome->performed = acted->performed;
    decision = acted->decision;
    outcome->action = std::move(acted).value();
  }
  if (decision.verdict == GateVerdict::kNeedsConfirmation) {
    return Attempt::Held(decision, std::move(out));
  }
  return Attempt::Done(std::move(out));
}

// R1 after an action step: the re-observation is skipped when the screen
// barely changed and the focus stayed; otherwise the desktop is observed
// again and summarised.
json Reobserve(PlanTools& tools, const Settings& settings, const ActionResult& done) {
  bool focus_changed = false;
  double diff = 1.0;  // unknown: observe
  if (done.verification) {
    const Verification& v = *done.verification;
    if (v.pixels.captured) diff = v.pixels.score;
    for (const NodeChange& c : v.tree.changed) {
      for (const auto* states : {&c.states_added, &c.states_removed}) {
        for (const std::string& s : *states) focus_changed |= s == "focused";
      }
    }
  }
  json r = {{"pixel_diff", diff}, {"focus_changed", focus_changed}};
  if (ReobservationSkippable(diff, focus_changed)) {
    r["skipped"] = true;
    r["reason"] = "R1: pixel diff below 0.01 and no focus change";
    return r;
  }
  r["skipped"] = false;
  auto lease = tools.workspace.Acquire(settings.session, Workspace::Need::kObserve);
  if (!lease.ok() || lease->observer == nullptr) {
    r["error"] = lease.ok() ? "no accessibility tree" : lease.error().message;
    return r;
  }
  ObserveRequest all;
  all.timeout = settings.timeout;
  auto obs = lease->observer->Observe(all);
  if (!obs.ok()) {
    r["error"] = obs.error().message;
    return r;
  }
  size_t count = 0;
  std::string focused;
  std::function<void(const Node&)> walk = [&](const Node& n) {
    ++count;
    if (focused.empty() && n.Has(State::kFocused) && n.role != Role::kApplication) {
      focused = n.id;
    }
    for (const Node& c : n.children) walk(c);
  };
  for (const Node& root : obs->snapshot.roots) walk(root);
  r["elements"] = count;
  if (!focused.empty()) r["focused"] = focused;
  return r;
}

ToolResult ExecutePlan(const std::shared_ptr<PlanTools>& tools, const json& args,
                       ToolContext& ctx) {
  auto plan = ParsePlan(args["plan"]);
  if (!plan.ok()) return ToolResult::FromError(plan.error());
  Settings settings;
  settings.session = args.value("session", "");
  settings.settle = std::chrono::milliseconds(args.value("settle_ms", 500));
  settings.timeout = std::chrono::milliseconds(args.value("timeout_ms", 2000));

  const size_t total = plan->size();
  json steps = json::array();
  std::string text;
  std::string status = "done";
  size_t completed = 0;
  for (size_t i = 0; i < total; ++i) {
    const PlanStep& step = (*plan)[i];
    const std::string what = Describe(step, i, total);
    ctx.Progress(static_cast<double>(i), static_cast<double>(total), what);
    json report = {{"step", i + 1}, {"type", std::string(PlanStepTypeName(step.type))}};
    if (ctx.cancelled()) {
      status = "cancelled";
      break;
    }
    if (step.type == PlanStepType::kWait) {
      const auto until =
          std::chrono::steady_clock::now() + std::chrono::milliseconds(step.delay_ms);
      while (std::chrono::steady_clock::now() < until && !ctx.cancelled()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      report["status"] = "done";
      steps.push_back(std::move(report));
      text += what + ": done\n";
      ++completed;
      continue;
    }
    auto outcome = std::make_shared<StepOutcome>();
    ToolResult result = tools->confirmer->Run(
        ctx, what, [tools, step, settings, outcome](const std::string& token, ToolContext& now) {
          return RunStep(*tools, step, settings, outcome, token, now);
        });
    if (result.structured.is_object()) report["result"] = result.structured;
    if (!outcome->performed || result.is_error) {
      // Held, refused or failed: the plan stops here.
      const std::string held =
          result.structured.is_object() ? result.structured.value("status", "") : "";
      status = held == "confirmation_required" ? "confirmation_required" : "stopped";
      report["status"] = status == "confirmation_required" ? "held" : "not_done";
      std::string why;
      for (const Content& c : result.content) why += c.text;
      text += what + ": NOT done\n" + why + (why.ends_with('\n') ? "" : "\n");
      if (status == "confirmation_required") {
        text += "confirm performs this step only; send steps " + std::to_string(i + 2) + ".." +
                std::to_string(total) + " as a new plan afterwards\n";
      }
      steps.push_back(std::move(report));
      break;
    }
    report["status"] = "done";
    text += what + ": done";
    if (outcome->action) {
      const ActionResult& a = *outcome->action;
      text += " (" + a.method + (a.verification ? ", effect " + a.verification->effect : "") + ")";
      json reobserved = Reobserve(*tools, settings, a);
      text +=
          reobserved.value("skipped", false)
              ? "; re-observation skipped (R1)"
              : "; re-observed: " + std::to_string(reobserved.value("elements", 0)) + " elements";
      report["reobservation"] = std::move(reobserved);
    }
    text += "\n";
    steps.push_back(std::move(report));
    ++completed;
  }
  ctx.Progress(static_cast<double>(completed), static_cast<double>(total), status);
  ToolResult out;
  out.structured = {{"status", status},
                    {"steps_total", total},
                    {"steps_done", completed},
                    {"steps", std::move(steps)}};
  out.content.push_back(Content::Text(std::to_string(completed) + " of " + std::to_string(total) +
                                      " steps done (" + status + ")\n" + text));
  out.is_error = status != "done";
  return out;
}

json PlanOutputSchema() {
  return {{"type", "object"},
          {"required", {"status", "steps_total", "steps_done", "steps"}},
          {"properties",
           {{"status",
             {{"type", "string"},
              {"enum", {"done", "stopped", "confirmation_required", "cancelled"}},
              {"description",
               "done: every step; stopped: a step failed or was refused; "
               "confirmation_required: a step is held (its token is in its result); cancelled"}}},
            {"steps_total", {{"type", "integer"}}},
            {"steps_done", {{"type", "integer"}}},
            {"steps",
             {{"type", "array"},
              {"description", "one report per step run, in order, up to the one that stopped"},
              {"items",
               {{"type", "object"},
                {"required", {"step", "type", "status"}},
                {"properties",
                 {{"step", {{"type", "integer"}}},
                  {"type", {{"type", "string"}}},
                  {"status", {{"type", "string"}, {"enum", {"done", "held", "not_done"}}}},
                  {"result",
                   {{"type", "object"},
                    {"description", "the action's result, as the matching tool returns it"}}},
                  {"reobservation",
                   {{"type", "object"},
                    {"description",
                     "R1: skipped when the pixel diff is below 0.01 and the focus did not "
                     "move; else the desktop observed again (elements, focused ID)"}}}}}}}}}}}};
}

}  // namespace

Status RegisterPlanTools(ToolRegistry& registry, Workspace& workspace,
                         std::shared_ptr<Confirmer> confirmer) {
  if (!confirmer) confirmer = std::make_shared<Confirmer>(nullptr);
  auto tools = std::make_shared<PlanTools>(workspace, std::move(confirmer));
  Tool t;
  t.name = "execute_plan";
  t.title = "Run a plan of actions";
  t.description =
      "Runs a JSON array of steps in order, each {\"type\": \"open_app\" | "
      "\"type_text\" | \"wait\" | \"click_by_bounds\" | \"click\" | \"press_keys\", \"args\": "
      "{\"target\" (open_app: the command; else an element's label), \"uiElementId\", \"text\", "
      "\"keys\", \"delayMs\", \"bounds\": {x, y, width, height}, \"requireConfirmation\", "
      "\"metadata\"}}. An invalid plan runs nothing; the error names the step. Each action "
      "passes the safety policy and is verified like its tool; the plan stops at the first "
      "step refused, failed or held. After each action the desktop is observed again unless "
      "the pixels barely changed (R1).";
  t.input_schema = {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"plan"}},
      {"properties",
       {{"plan",
         {{"type", {"array", "string"}},
          {"description", "the steps, or a string holding their JSON"}}},
        {"settle_ms",
         {{"type", "integer"},
          {"minimum", 0},
          {"maximum", 10000},
          {"default", 500},
          {"description", "per action: how long to wait for an effect"}}},
        {"timeout_ms", schema::AccessibilityTimeout()},
        {"session", schema::SessionArgument()}}}};
  t.output_schema = PlanOutputSchema();
  t.annotations = {
      .read_only = false, .destructive = true, .idempotent = false, .open_world = false};
  t.handler = [tools](const json& args, ToolContext& ctx) { return ExecutePlan(tools, args, ctx); };
  return registry.Add(std::move(t));
}

}  // namespace uiscope::mcp
