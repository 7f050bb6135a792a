// Plans: R2 (the whole plan is validated, errors name the bad element,
// nothing runs) and R1 (re-observation skipped on no change).
#include "engine/plan.h"

#include <gtest/gtest.h>

namespace uiscope {
namespace {

using nlohmann::json;

std::string ErrorOf(const json& plan) {
  auto r = ParsePlan(plan);
  EXPECT_FALSE(r.ok()) << plan.dump();
  if (r.ok()) return "";
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("nothing was run"), std::string::npos) << r.error().message;
  return r.error().message;
}

TEST(Plan, SeedSchemaAndTheIdSteps) {
  auto plan = ParsePlan(json::parse(R"([
    {"type": "open_app", "args": {"target": "gedit notes.txt"}},
    {"type": "wait", "args": {"delayMs": 500}},
    {"type": "type_text", "args": {"text": "hello", "uiElementId": "txt_1a2b",
                                   "metadata": {"why": "greeting"}}},
    {"type": "click_by_bounds", "args": {"bounds": {"x": 10, "y": 20, "width": 30, "height": 40},
                                         "requireConfirmation": true}},
    {"type": "click", "args": {"uiElementId": "btn_9f00"}},
    {"type": "click", "args": {"target": "Save"}},
    {"type": "press_keys", "args": {"keys": ["ctrl+s", "Return"]}},
    {"type": "press_keys", "args": {"keys": "Escape", "uiElementId": "win_1"}}
  ])"));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->size(), 8u);
  const auto& s = *plan;
  EXPECT_EQ(s[0].type, PlanStepType::kOpenApp);
  EXPECT_EQ(s[0].target, "gedit notes.txt");
  EXPECT_EQ(s[1].delay_ms, 500);
  EXPECT_EQ(s[2].text, "hello");
  EXPECT_EQ(s[2].element_id, "txt_1a2b");
  EXPECT_EQ(s[2].metadata["why"], "greeting");
  ASSERT_TRUE(s[3].bounds);
  EXPECT_EQ(*s[3].bounds, (Rect{10, 20, 30, 40}));
  EXPECT_TRUE(s[3].require_confirmation);
  EXPECT_EQ(s[4].element_id, "btn_9f00");
  EXPECT_EQ(s[5].target, "Save");
  EXPECT_EQ(s[6].keys, (std::vector<std::string>{"ctrl+s", "Return"}));
  EXPECT_EQ(s[7].keys, std::vector<std::string>{"Escape"});
  EXPECT_EQ(PlanStepTypeName(s[3].type), "click_by_bounds");
  EXPECT_EQ(s[4].raw["args"]["uiElementId"], "btn_9f00");
}

TEST(Plan, AStringHoldingJsonIsAccepted) {
  auto plan = ParsePlan(json(R"([{"type":"wait","args":{"delayMs":1}}])"));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->size(), 1u);
}

TEST(Plan, InvalidJsonIsRefusedWithItsPosition) {
  const std::string e = ErrorOf(json("[{\"type\": \"wait\",\n \"args\": {\"delayMs\": 1}"));
  EXPECT_NE(e.find("not valid JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("line 2"), std::string::npos) << e;
}

TEST(Plan, ErrorsNameTheStepTheTypeAndThePointer) {
  const json ok = {{"type", "wait"}, {"args", {{"delayMs", 1}}}};
  struct Case {
    json bad;
    const char* says;
  };
  for (const Case& c : {
           Case{{{"type", "open"}, {"args", json::object()}},
                "plan step 2 at /1/type: unknown step type \"open\""},
           Case{{{"args", json::object()}}, "plan step 2 at /1/type"},
           Case{{{"type", "wait"}, {"args", json::object()}, {"when", 1}},
                "/1/when: unknown key \"when\""},
           Case{{{"type", "wait"}, {"args", json::object()}},
                "plan step 2 (wait) at /1/args: delayMs is required"},
           Case{{{"type", "wait"}, {"args", {{"delayMs", "soon"}}}},
                "/1/args/delayMs: delayMs must be an integer"},
           Case{{{"type", "wait"}, {"args", {{"delayMs", 600000}}}},
                "delayMs must be from 0 to 60000"},
           Case{{{"type", "type_text"}, {"args", {{"text", 5}}}},
                "(type_text) at /1/args/text: text must be a string"},
           Case{{{"type", "type_text"}, {"args", json::object()}},
                "text is required for type_text"},
           Case{{{"type", "click_by_bounds"},
                 {"args", {{"bounds", {{"x", 1}, {"y", 1}, {"width", 0}, {"height", 5}}}}}},
                "/1/args/bounds/width"},
           Case{{{"type", "click_by_bounds"},
                 {"args", {{"bounds", {{"x", 1}, {"y", 1}, {"width", 3}}}}}},
                "bounds.height is missing"},
           Case{{{"type", "click"}, {"args", json::object()}},
                "uiElementId or target (an element's name) is required for click"},
           Case{{{"type", "click"}, {"args", {{"uiElementId", "btn_1"}, {"target", "OK"}}}},
                "not both"},
           Case{{{"type", "click"}, {"args", {{"uiElementId", "btn_1"}, {"text", "x"}}}},
                "/1/args/text: text does not apply to click"},
           Case{{{"type", "press_keys"}, {"args", {{"keys", {"ctrl+s", ""}}}}}, "/1/args/keys/1"},
           Case{{{"type", "open_app"}, {"args", {{"target", "gedit"}, {"colour", "red"}}}},
                "unknown argument \"colour\""},
           Case{{{"type", "open_app"},
                 {"args", {{"target", "gedit"}, {"requireConfirmation", "yes"}}}},
                "requireConfirmation must be true or false"},
           Case{json("wait"), "plan step 2 at /1: a step must be an object"},
       }) {
    const std::string e = ErrorOf(json::array({ok, c.bad, ok}));
    EXPECT_NE(e.find(c.says), std::string::npos) << c.bad.dump() << "\n  -> " << e;
  }
}

TEST(Plan, WholePlanLimits) {
  EXPECT_NE(ErrorOf(json::array()).find("no steps"), std::string::npos);
  EXPECT_NE(ErrorOf(json::object()).find("JSON array of steps"), std::string::npos);
  json many = json::array();
  for (size_t i = 0; i <= kMaxPlanSteps; ++i)
    many.push_back({{"type", "wait"}, {"args", {{"delayMs", 0}}}});
  EXPECT_NE(ErrorOf(many).find("more than 100"), std::string::npos);
  json slow = json::array();
  for (int i = 0; i < 11; ++i) slow.push_back({{"type", "wait"}, {"args", {{"delayMs", 60000}}}});
  EXPECT_NE(ErrorOf(slow).find("more than 600 s"), std::string::npos);
}

TEST(Plan, R1SkipsReobservationOnlyWithoutChange) {
  EXPECT_TRUE(ReobservationSkippable(0.0, false));
  EXPECT_TRUE(ReobservationSkippable(0.0099, false));
  EXPECT_FALSE(ReobservationSkippable(0.01, false));
  EXPECT_FALSE(ReobservationSkippable(0.0, true));
  EXPECT_FALSE(ReobservationSkippable(0.5, false));
}

}  // namespace
}  // namespace uiscope
