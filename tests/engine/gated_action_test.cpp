// The one gated-action path (engine/gated_action.h): check -> perform ->
// record exactly once, and no code outside it talks to a gate. With it, the
// other rule of issue 20's seam checked on the source: engine/ stays in its
// layer.
#include "engine/gated_action.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/recording_gate.h"

namespace uiscope {
namespace {

PlannedAction Planned(const std::string& tool) {
  PlannedAction p;
  p.tool = tool;
  p.display = ":fake";
  return p;
}

TEST(GatedActionTest, AnAllowedActionIsPerformedAndRecordedOnce) {
  test::RecordingGate gate;
  int performed = 0;
  const GateDecision d = Gated(gate, Planned("click"), [&](const GateDecision&) {
    ++performed;
    ActionOutcome o;
    o.performed = true;
    o.via = "xtest";
    return o;
  });
  EXPECT_EQ(d.verdict, GateVerdict::kAllow);
  EXPECT_EQ(performed, 1);
  const auto entries = gate.entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries[0].recorded);
  EXPECT_TRUE(entries[0].outcome.performed);
  EXPECT_EQ(entries[0].outcome.via, "xtest");
  EXPECT_EQ(gate.unmatched_records(), 0);
}

TEST(GatedActionTest, ARefusedActionIsNotPerformedButRecorded) {
  for (GateVerdict verdict :
       {GateVerdict::kDeny, GateVerdict::kDrop, GateVerdict::kNeedsConfirmation}) {
    test::RecordingGate gate;
    gate.answer.verdict = verdict;
    int performed = 0;
    Gated(gate, Planned("type_text"), [&](const GateDecision&) {
      ++performed;
      return ActionOutcome{};
    });
    EXPECT_EQ(performed, 0);
    const auto entries = gate.entries();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_TRUE(entries[0].recorded);
    EXPECT_FALSE(entries[0].outcome.performed);
    EXPECT_EQ(gate.unmatched_records(), 0);
  }
}

// An early return (an error after the check) still leaves its row, once,
// with what was known then; an explicit Record() is not repeated.
TEST(GatedActionTest, EveryWayOutRecordsExactlyOnce) {
  test::RecordingGate gate;
  {
    GatedAction action(gate, Planned("app_close"));
    action.outcome().error = "the window stayed";
  }
  {
    GatedAction action(gate, Planned("app_focus"));
    action.outcome().performed = true;
    action.Record();
    action.Record();
  }
  const auto entries = gate.entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_TRUE(entries[0].recorded);
  EXPECT_EQ(entries[0].outcome.error, "the window stayed");
  EXPECT_TRUE(entries[1].recorded);
  EXPECT_TRUE(entries[1].outcome.performed);
  EXPECT_EQ(gate.unmatched_records(), 0);
}

// The lines of src/'s .cpp and .h files, as "path:line: text" for those
// `match` keeps; `files` counts the files read.
std::vector<std::string> SourceLines(
    const std::function<bool(const std::string& relative, const std::string& line)>& match,
    int* files) {
  const std::filesystem::path src = UISCOPE_SOURCE_TREE;
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src)) {
    const std::filesystem::path& path = entry.path();
    if (path.extension() != ".cpp" && path.extension() != ".h") continue;
    const std::string relative = std::filesystem::relative(path, src).string();
    ++*files;
    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (match(relative, line)) found.push_back(relative + ":" + std::to_string(n) + ": " + line);
    }
  }
  return found;
}

std::string Lines(const std::vector<std::string>& lines) {
  std::ostringstream all;
  for (const std::string& l : lines) all << l << "\n";
  return all.str();
}

// Issue 20: the gate rule was hand-written at eight call sites; now every
// action kind (act, apps, clipboard, confirm's replays) goes through
// GatedAction, and a new one that calls the gate itself fails here. Only
// the gate's own implementations (src/safety) and GatedAction may.
TEST(GatedActionTest, NoActionBypassesTheGatedPath) {
  const std::regex direct(R"(\b\w*gate\w*(\(\))?\s*(\.|->)\s*(Check|Record)\s*\()",
                          std::regex::icase);
  int files = 0;
  const std::vector<std::string> offenders = SourceLines(
      [&](const std::string& relative, const std::string& line) {
        return !relative.starts_with("safety/") && relative != "engine/gated_action.h" &&
               std::regex_search(line, direct);
      },
      &files);
  EXPECT_GT(files, 100) << "the source tree was not found whole at " << UISCOPE_SOURCE_TREE;
  EXPECT_TRUE(offenders.empty()) << "actions that talk to the gate themselves (use GatedAction):\n"
                                 << Lines(offenders);
}

// Issue 20: engine/ is orchestration over the platform interfaces. It
// includes no X11 header (the backends do), nothing of the front ends
// (mcp/, web/), and holds no wire form: the JSON of a result is written
// once, in mcp/wire.h, for the MCP tools and the CLI's --json alike.
TEST(EngineLayerTest, IncludesNoX11HeaderNoFrontEndAndHoldsNoWireForm) {
  const std::regex banned_include(R"(^\s*#\s*include\s*[<"](X11/|mcp/|web/))");
  const std::regex wire_form(R"(^(nlohmann::)?json\s+\w+ToJson\s*\()");
  int files = 0;
  const std::vector<std::string> offenders = SourceLines(
      [&](const std::string& relative, const std::string& line) {
        return relative.starts_with("engine/") &&
               (std::regex_search(line, banned_include) || std::regex_search(line, wire_form));
      },
      &files);
  EXPECT_GT(files, 100) << "the source tree was not found whole at " << UISCOPE_SOURCE_TREE;
  EXPECT_TRUE(offenders.empty()) << "engine/ reaching past its layer:\n" << Lines(offenders);
}

}  // namespace
}  // namespace uiscope
