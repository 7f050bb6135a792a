// libFuzzer target: the whole MCP request loop, bytes in. Input is split into
// lines exactly as the stdio transport does, each line parsed, dispatched and
// answered; every reply is serialised. Backends are fakes (an accessibility
// tree from tests/fixtures/trees, in-memory sessions), so a run touches no
// desktop and is deterministic; tool calls run inline (one thread).
//
// Built and run by scripts/fuzz (clang, -fsanitize=fuzzer,address,undefined)
// from the seeds in fuzz/corpus/mcp.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "mcp/server.h"
#include "mcp/stdio_transport.h"
#include "mcp/tools/tools.h"
#include "serialiser.h"
#include "support/fake_accessibility.h"
#include "support/fake_sessions.h"

namespace {

using namespace uiscope;
using namespace uiscope::mcp;

constexpr size_t kMaxLine = 64 * 1024;

// Built once: registering the tools (their schemas built and checked, the
// installed OCR languages looked up) cost ~25 ms a run and held the fuzzer at
// ~40 inputs/s. Each input still starts from the same state: Reset (after
// every input, so the first one starts from the constructor's) gives the fake
// desktop a fresh tree and observer (no IDs remembered, no cached
// snapshots: Workspace::ResetFake) and forgets the fake sessions, and every
// input gets a new Server session. Nothing else the tools hold changes when
// the backends are fakes without a policy (the confirmer holds nothing under
// AllowAllGate, the OCR reader has no screen to read). Resetting at the end
// rather than the start matters for speed: an input then frees everything it
// allocated, so libFuzzer's malloc/free count balances and it does not run
// the input a second time under LeakSanitizer (-detect_leaks) to look for a
// leak that is only state kept for the next input.
struct World {
  explicit World(std::vector<Node> tree_in) : tree(std::move(tree_in)) {
    workspace = std::make_unique<Workspace>(std::make_unique<test::FakeAccessibility>(tree),
                                            Frame{1920, 1080, 1.0});
    if (!RegisterAllTools(registry, *workspace, sessions).ok()) abort();
    ServerOptions options;
    options.tools_inline = true;
    options.validate_output = true;  // a tool breaking its own schema is a finding too
    options.tools_page_size = 2;
    server = std::make_unique<Server>(registry, options);
  }
  void Reset() {
    workspace->ResetFake(std::make_unique<test::FakeAccessibility>(tree));
    sessions = test::FakeSessions();
  }
  const std::vector<Node> tree;
  std::unique_ptr<Workspace> workspace;
  test::FakeSessions sessions;
  ToolRegistry registry;
  std::unique_ptr<Server> server;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static World* world =
      new World(test::LoadFixtureTree(std::string(UISCOPE_TREE_FIXTURES) + "/login.json"));
  auto session = world->server->NewSession();
  Serialiser out;
  LineSplitter splitter(kMaxLine);
  auto sink = [&](const LineSplitter::Line& line) { HandleLine(*session, line, kMaxLine, out); };
  splitter.Feed(std::string_view(reinterpret_cast<const char*>(data), size), sink);
  splitter.Finish(sink);
  session->Drain();
  session->Close();
  session.reset();
  world->Reset();
  return 0;
}
