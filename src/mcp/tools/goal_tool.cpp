// `execute_goal` (goal_tool.h): seed 001's loop — context, the client's
// model, a validated plan, the safety policy, execution — over MCP sampling.
#include "mcp/tools/goal_tool.h"

#include "engine/plan.h"
#include "mcp/tools/schemas.h"

namespace uiscope::mcp {
namespace {

using nlohmann::json;

constexpr size_t kQuotedOutput = 2000;  // of the model's answer, in errors

// execute_plan's context inside a round: everything passes through (the
// confirmations' elicitation, cancellation, logs) except progress, which
// execute_goal reports per round.
class RoundContext final : public ToolContext {
 public:
  explicit RoundContext(ToolContext& outer) : outer_(outer) {}
  bool cancelled() const override { return outer_.cancelled(); }
  void Progress(double, double, const std::string&) override {}
  void Log(LogLevel level, const std::string& message) override { outer_.Log(level, message); }
  bool CanElicit() const override { return outer_.CanElicit(); }
  Result<ElicitResult> Elicit(const ElicitRequest& request) override {
    return outer_.Elicit(request);
  }

 private:
  ToolContext& outer_;
};

std::string Quote(const std::string& output) {
  if (output.size() <= kQuotedOutput) return output;
  return output.substr(0, kQuotedOutput) + "... (" + std::to_string(output.size()) + " bytes)";
}

// The model's answer as a plan: the JSON array itself, or inside one
// markdown code fence (```json ... ```), which models add unasked. An empty
// array is valid: the goal is reached.
Result<json> ReadPlan(const std::string& output) {
  std::string text = output;
  auto trim = [](std::string& s) {
    const size_t a = s.find_first_not_of(" \t\r\n");
    const size_t b = s.find_last_not_of(" \t\r\n");
    s = a == std::string::npos ? "" : s.substr(a, b - a + 1);
  };
  trim(text);
  if (text.starts_with("```") && text.size() > 6 && text.ends_with("```")) {
    const size_t eol = text.find('\n');
    text = eol == std::string::npos ? "" : text.substr(eol + 1, text.size() - 3 - eol - 1);
    trim(text);
  }
  json plan = json::parse(text, nullptr, false);
  if (plan.is_discarded()) {
    return MakeError(ErrorCode::kInvalidArgument, "the answer is not valid JSON");
  }
  if (plan.is_array() && plan.empty()) return plan;
  auto steps = ParsePlan(plan);
  if (!steps.ok()) return steps.error();
  return plan;
}

json UserText(const std::string& text) {
  return {{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}};
}

ToolResult ExecuteGoal(const ToolRegistry& registry, PromptProvider& prompts, const json& args,
                       ToolContext& ctx) {
  const std::string goal = args["goal"].get<std::string>();
  const int max_steps = args.value("max_steps", 5);
  json session_args = json::object();
  if (args.contains("session")) session_args["session"] = args["session"];
  const Tool* execute_plan = registry.Find("execute_plan");
  if (!execute_plan) return ToolResult::Error("execute_goal needs execute_plan, which is absent");
  if (!ctx.CanSample()) {
    return ToolResult::Error(
        "execute_goal needs a client that declared the sampling capability and can answer "
        "while the call runs");
  }

  json rounds = json::array();
  std::string text;
  std::string status = "max_steps";
  for (int round = 1; round <= max_steps; ++round) {
    if (ctx.cancelled()) {
      status = "cancelled";
      break;
    }
    ctx.Progress(round - 1, max_steps, "round " + std::to_string(round) + ": observing");
    json prompt_args = session_args;
    prompt_args["goal"] = goal;
    auto prompt = prompts.Get("plan_actions", prompt_args);
    if (!prompt.ok()) return ToolResult::FromError(prompt.error());
    SampleRequest request;
    request.messages = json::array();
    const json messages = prompt->value("messages", json::array());  // outlives the loop
    for (const json& m : messages) request.messages.push_back(m);
    if (request.messages.empty() || !request.messages.back()["content"]["text"].is_string()) {
      return ToolResult::Error("internal error: plan_actions gave no text message");
    }
    request.messages.back()["content"]["text"] =
        request.messages.back()["content"]["text"].get<std::string>() +
        "\n\nIf the screen shows the goal is already fulfilled, output [] (an empty array).";
    ctx.Progress(round - 0.75, max_steps, "round " + std::to_string(round) + ": asking the model");
    auto answer = ctx.Sample(request);
    if (!answer.ok()) return ToolResult::FromError(answer.error());
    auto plan = ReadPlan(*answer);
    std::string first_output;
    if (!plan.ok()) {
      // R2: one retry with a stricter prompt, then stop.
      first_output = *answer;
      request.messages.push_back(
          {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", *answer}}}});
      request.messages.push_back(UserText(
          "That answer is not a valid plan: " + plan.error().message +
          ". Answer again with ONLY the JSON array of actions, matching the Action schema above "
          "exactly: no prose, no markdown, no code fence. Output [] if the goal is already "
          "fulfilled."));
      ctx.Progress(round - 0.5, max_steps,
                   "round " + std::to_string(round) + ": asking again (invalid plan)");
      answer = ctx.Sample(request);
      if (!answer.ok()) return ToolResult::FromError(answer.error());
      auto again = ReadPlan(*answer);
      if (!again.ok()) {
        ToolResult r = ToolResult::Error(
            "execute_goal stopped in round " + std::to_string(round) +
            ": the model's plan was invalid twice (R2); nothing of it was run.\nfirst answer (" +
            plan.error().message + "):\n" + Quote(first_output) + "\nsecond answer (" +
            again.error().message + "):\n" + Quote(*answer));
        r.structured = {{"status", "invalid_plan"},
                        {"rounds", std::move(rounds)},
                        {"model_output", *answer}};
        return r;
      }
      plan = std::move(again);
    }
    json record = {{"round", round}, {"plan", *plan}};
    if (!first_output.empty()) record["retried"] = true;
    if (plan->empty()) {
      record["result"] = nullptr;
      rounds.push_back(std::move(record));
      text += "round " + std::to_string(round) + ": the model says the goal is reached\n";
      status = "done";
      break;
    }
    ctx.Progress(round - 0.25, max_steps,
                 "round " + std::to_string(round) + ": running " +
                     std::to_string(plan->size()) + " steps");
    json plan_args = session_args;
    plan_args["plan"] = *plan;
    RoundContext inner(ctx);
    ToolResult ran = execute_plan->handler(plan_args, inner);
    std::string ran_text;
    for (const Content& c : ran.content) ran_text += c.text;
    text += "round " + std::to_string(round) + ": " + ran_text +
            (ran_text.ends_with('\n') ? "" : "\n");
    record["result"] = ran.structured;
    rounds.push_back(std::move(record));
    if (ran.is_error) {
      const std::string s =
          ran.structured.is_object() ? ran.structured.value("status", "") : std::string();
      status = s == "confirmation_required" ? "confirmation_required" : "stopped";
      if (status == "confirmation_required") {
        // The held step is the last of this round's steps; what the plan
        // had after it is dropped: the next call plans from the screen.
        text +=
            "A step is held for a person's decision. Ask the user; once they approved it, "
            "confirm with its token performs that step; then call execute_goal again with the "
            "same goal: it observes the screen anew and plans the rest.\n";
      }
      break;
    }
  }
  ctx.Progress(max_steps, max_steps, status);
  ToolResult out;
  out.structured = {{"status", status}, {"rounds", std::move(rounds)}};
  out.content.push_back(Content::Text("execute_goal: " + status + "\n" + text));
  out.is_error = status != "done" && status != "max_steps";
  return out;
}

}  // namespace

Status RegisterGoalTool(ToolRegistry& registry, std::shared_ptr<PromptProvider> prompts) {
  Tool t;
  t.name = "execute_goal";
  t.title = "Reach a goal with the client's model";
  t.description =
      "Works toward a goal in rounds: observes (text only, passwords redacted), asks your model "
      "(sampling) for an execute_plan plan and runs it, until the model answers [] or "
      "max_steps. A held step ends the call (confirm, then call again).";
  t.input_schema = {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"goal"}},
      {"properties",
       {{"goal", {{"type", "string"}, {"minLength", 1}, {"description", "what to get done"}}},
        {"max_steps",
         {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxGoalSteps}, {"default", 5}}},
        {"session", schema::SessionArgument()}}}};
  t.output_schema = {
      {"type", "object"},
      {"required", {"status", "rounds"}},
      {"properties",
       {{"status",
         {{"type", "string"},
          {"enum",
           {"done", "max_steps", "stopped", "confirmation_required", "invalid_plan",
            "cancelled"}}}},
        {"rounds", {{"type", "array"}, {"items", {{"type", "object"}}}}},
        {"model_output", {{"type", "string"}}}}}};
  t.annotations = {
      .read_only = false, .destructive = true, .idempotent = false, .open_world = true};
  t.needs_sampling = true;
  const ToolRegistry* tools = &registry;
  t.handler = [tools, prompts](const json& args, ToolContext& ctx) {
    return ExecuteGoal(*tools, *prompts, args, ctx);
  };
  return registry.Add(std::move(t));
}

}  // namespace uiscope::mcp
