// OCR on a real headless desktop: xterm with known text (normal and reverse
// video, the cache, one new line), the GTK3 fixture (labels that AT-SPI
// reports, word boxes inside their widgets, the password field never read),
// and OCR nodes in the tree (observe --sources ax,ocr).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "engine/ocr_nodes.h"
#include "engine/perceive.h"
#include "engine/read_text.h"
#include "ocr_test_support.h"
#include "platform/x11/x11_display.h"
#include "platform/x11/x11_windows.h"
#include "support/desktop_fixture.h"
#include "support/tree_queries.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;
using test::CharacterAccuracy;
using test::ReadFile;
using test::TestDesktop;
using test::WaitUntil;

const std::string kTerminalText = UISCOPE_TEST_IMAGES "/terminal.txt";

// One reader for the whole binary: Tesseract is initialised once, as in the
// server.
TextReader& Reader() {
  static TextReader reader;
  return reader;
}

std::string WindowIdText(unsigned long id) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%lx", id);
  return buf;
}

ReadTextRequest ForWindow(const std::string& window) {
  ReadTextRequest r;
  r.window = window;
  return r;
}

ReadTextRequest ForRegion(const Rect& region) {
  ReadTextRequest r;
  r.region = region;
  return r;
}

WorkspaceOptions On(const TestDesktop& desktop) {
  WorkspaceOptions options;
  options.display = desktop.info().display_name;
  options.start_headless = false;
  return options;
}

class OcrDesktop {
 public:
  OcrDesktop() : workspace_(On(desktop_)) {}

  TestDesktop& desktop() { return desktop_; }
  Workspace& workspace() { return workspace_; }

  // Starts xterm showing terminal.txt with its cursor hidden. With `flag`,
  // it prints `later` once that file exists.
  std::unique_ptr<Process> Xterm(const std::string& geometry, std::vector<std::string> extra = {},
                                 const std::string& flag = "", const std::string& later = "") {
    std::string script = "cat '" + kTerminalText + "'; printf '\\033[?25l'; ";
    if (!flag.empty()) {
      script += "while [ ! -f '" + flag + "' ]; do sleep 0.05; done; echo '" + later + "'; ";
    }
    script += "sleep 100000";
    SpawnOptions options;
    options.argv = {"xterm", "-geometry", geometry, "-fa", "DejaVu Sans Mono", "-fs", "10"};
    for (auto& e : extra) options.argv.push_back(std::move(e));
    for (const char* a : {"-e", "sh", "-c"}) options.argv.emplace_back(a);
    options.argv.push_back(script);
    return desktop_.Launch(std::move(options));
  }

  // The X window of process `pid`, once it is mapped ("" on timeout).
  std::string WindowOf(int pid) {
    auto display = x11::X11Display::Open(desktop_.info().display_name);
    if (!display.ok()) return "";
    std::string id;
    WaitUntil(
        [&] {
          auto listed = x11::ListClientWindows(**display);
          if (!listed.ok()) return false;
          for (const WindowInfo& t : *listed) {
            if (t.pid == pid && t.bounds.w > 0) id = WindowIdText(t.id);
          }
          return !id.empty();
        },
        milliseconds(10000));
    return id;
  }

  Result<ReadTextResult> Read(const ReadTextRequest& request) {
    auto lease = workspace_.Acquire();
    if (!lease.ok()) return lease.error();
    return Reader().Read(std::move(lease).value(), request);
  }

  // Reads `window` until its text is at least `accuracy` like `truth` (the
  // terminal may still be drawing); the last read.
  Result<ReadTextResult> ReadUntil(const std::string& window, const std::string& truth,
                                   double accuracy) {
    Result<ReadTextResult> last = MakeError(ErrorCode::kTimeout, "not read");
    WaitUntil(
        [&] {
          last = Read(ForWindow(window));
          return last.ok() && CharacterAccuracy(truth, last->ocr.text) >= accuracy;
        },
        milliseconds(15000));
    return last;
  }

 private:
  TestDesktop desktop_;
  Workspace workspace_;
};

TEST(XtermOcrDesktopTest, ReadsKnownTextThenFromTheCacheThenOnlyTheNewLine) {
  OcrDesktop d;
  ASSERT_TRUE(d.desktop().ok()) << d.desktop().error();
  const std::string flag = test::TestStateDir() + "/ocr-line-two";
  std::remove(flag.c_str());
  auto xterm = d.Xterm("70x12+0+0", {}, flag, "a second line arrived at 42");
  ASSERT_NE(xterm, nullptr);
  const std::string window = d.WindowOf(xterm->pid());
  ASSERT_FALSE(window.empty()) << "xterm did not map a window";
  const std::string truth = ReadFile(kTerminalText);

  auto first = d.ReadUntil(window, truth, 0.98);
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  const double accuracy = CharacterAccuracy(truth, first->ocr.text);
  EXPECT_GE(accuracy, 0.98) << first->ocr.text;
  RecordProperty("character_accuracy", std::to_string(accuracy));
  EXPECT_EQ(first->ocr.lines.size(), 8u) << first->ocr.text;

  // The same pixels again: answered by a hash.
  auto again = d.Read(ForWindow(window));
  ASSERT_TRUE(again.ok()) << again.error().ToString();
  EXPECT_TRUE(again->ocr.cached);
  EXPECT_EQ(again->ocr.regions_read, 0);
  EXPECT_EQ(again->ocr.text, first->ocr.text);
  // Nothing recognised (regions_read above) is the real check; the target
  // (< 5 ms) is measured by bench/ocr, this is the house's 10x gross bound,
  // which holds on a loaded machine.
  EXPECT_LT(again->ocr.processing_time_ms, 50.0);
  RecordProperty("cached_ocr_ms", std::to_string(again->ocr.processing_time_ms));
  RecordProperty("cached_total_ms", std::to_string(again->total_ms));

  // One more line: only it is recognised.
  std::ofstream(flag).put('\n');
  Result<ReadTextResult> after = MakeError(ErrorCode::kTimeout, "not read");
  ASSERT_TRUE(WaitUntil(
      [&] {
        after = d.Read(ForWindow(window));
        return after.ok() && after->ocr.text.find("arrived") != std::string::npos;
      },
      milliseconds(10000)))
      << (after.ok() ? after->ocr.text : after.error().ToString());
  EXPECT_EQ(after->ocr.regions_read, 1);
  EXPECT_EQ(after->ocr.regions_reused, 8);
  EXPECT_FALSE(after->ocr.cached);
  EXPECT_NE(after->ocr.text.find("a second line arrived at 42"), std::string::npos)
      << after->ocr.text;
  RecordProperty("one_line_ms", std::to_string(after->ocr.processing_time_ms));
  std::remove(flag.c_str());
}

TEST(XtermOcrDesktopTest, LightOnDarkReadsAsWellAsDarkOnLight) {
  OcrDesktop d;
  ASSERT_TRUE(d.desktop().ok()) << d.desktop().error();
  auto normal = d.Xterm("70x12+0+0");
  auto reverse = d.Xterm("70x12+700+0", {"-rv"});
  ASSERT_NE(normal, nullptr);
  ASSERT_NE(reverse, nullptr);
  const std::string truth = ReadFile(kTerminalText);
  double accuracy[2] = {0, 0};
  Process* processes[2] = {normal.get(), reverse.get()};
  for (int i = 0; i < 2; ++i) {
    const std::string window = d.WindowOf(processes[i]->pid());
    ASSERT_FALSE(window.empty());
    auto read = d.ReadUntil(window, truth, 0.98);
    ASSERT_TRUE(read.ok()) << read.error().ToString();
    accuracy[i] = CharacterAccuracy(truth, read->ocr.text);
    EXPECT_GE(accuracy[i], 0.98) << (i ? "reverse video" : "normal") << ":\n" << read->ocr.text;
  }
  EXPECT_GE(accuracy[1], accuracy[0] - 0.01);
  RecordProperty("normal_accuracy", std::to_string(accuracy[0]));
  RecordProperty("reverse_accuracy", std::to_string(accuracy[1]));
}

// Named elements whose name is drawn inside their own bounds.
bool ShowsItsName(const Node& n) {
  switch (n.role) {
    case Role::kLabel:
    case Role::kButton:
    case Role::kCheckBox:
    case Role::kTab:
    case Role::kMenu:
      return !n.name.empty() && n.bounds.has_value();
    default:
      return false;
  }
}

std::vector<std::string> Split(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

TEST(FixtureOcrDesktopTest, FindsTheLabelsAtSpiReportsInsideTheirWidgets) {
  OcrDesktop d;
  ASSERT_TRUE(d.desktop().ok()) << d.desktop().error();
  auto app = d.desktop().LaunchFixture();
  ASSERT_NE(app, nullptr);

  std::vector<Node> expected;
  std::string window_id;
  {
    auto lease = d.workspace().Acquire();
    ASSERT_TRUE(lease.ok()) << lease.error().ToString();
    ObserveRequest scope;
    scope.app = "uiscope-fixture";
    auto obs = lease->observer->Observe(scope);
    ASSERT_TRUE(obs.ok()) << obs.error().ToString();
    ForEachNode(obs->snapshot.roots, [&](const Node& n, int) {
      if (n.role == Role::kWindow && window_id.empty()) window_id = n.id;
      if (ShowsItsName(n)) expected.push_back(n);
    });
  }
  ASSERT_FALSE(window_id.empty());
  ASSERT_GE(expected.size(), 15u);

  auto read = d.Read(ForWindow(window_id));
  ASSERT_TRUE(read.ok()) << read.error().ToString();
  const std::vector<ocr::OcrWord> words = read->ocr.Words();
  int found = 0;
  std::string missing;
  for (const Node& n : expected) {
    const Rect area{n.bounds->x - 2, n.bounds->y - 2, n.bounds->w + 4, n.bounds->h + 4};
    bool all = true;
    for (const std::string& part : Split(n.name)) {
      const bool here = std::any_of(words.begin(), words.end(), [&](const ocr::OcrWord& w) {
        return w.text == part && area.Contains(w.bounds);
      });
      all = all && here;
    }
    if (all) {
      ++found;
    } else {
      missing += " \"" + n.name + "\"";
    }
  }
  const double share = static_cast<double>(found) / static_cast<double>(expected.size());
  EXPECT_GE(share, 0.95) << found << " of " << expected.size() << "; missing:" << missing
                         << "\nread:\n"
                         << read->ocr.text;
  RecordProperty("labels_found", std::to_string(found) + "/" + std::to_string(expected.size()));
}

TEST(FixtureOcrDesktopTest, PasswordFieldIsMaskedAndNeverRead) {
  OcrDesktop d;
  ASSERT_TRUE(d.desktop().ok()) << d.desktop().error();
  auto app = d.desktop().LaunchFixture();
  ASSERT_NE(app, nullptr);
  ASSERT_TRUE(test::FixtureCommand(*app, "set-password hunter2secret").ok());
  auto field = test::FixtureBox(*app, "widget password");
  ASSERT_TRUE(field.ok()) << field.error().ToString();
  auto window = test::FixtureBox(*app, "geometry");
  ASSERT_TRUE(window.ok());

  auto read = d.Read(ForRegion(Rect{window->x, window->y, window->w, window->h}));
  ASSERT_TRUE(read.ok()) << read.error().ToString();
  EXPECT_GE(read->masked_fields, 1);
  EXPECT_EQ(read->ocr.text.find("hunter2"), std::string::npos) << read->ocr.text;
  const Rect password{field->x, field->y, field->w, field->h};
  for (const ocr::OcrWord& w : read->ocr.Words()) {
    EXPECT_TRUE(Intersect(w.bounds, password).Empty()) << "\"" << w.text << "\" read in the field";
  }
  // The rest of the form is still read.
  EXPECT_NE(read->ocr.text.find("Password"), std::string::npos);
  EXPECT_NE(read->ocr.text.find("Login"), std::string::npos);
}

TEST(ObserveOcrDesktopTest, XtermAndCanvasTextJoinTheTree) {
  OcrDesktop d;
  ASSERT_TRUE(d.desktop().ok()) << d.desktop().error();
  auto app = d.desktop().LaunchFixture({"--position", "700,40"});
  ASSERT_NE(app, nullptr);
  auto xterm = d.Xterm("70x12+0+0");
  ASSERT_NE(xterm, nullptr);
  ASSERT_FALSE(d.WindowOf(xterm->pid()).empty());
  const std::string truth = ReadFile(kTerminalText);

  Snapshot snapshot;
  OcrSourceResult added;
  std::map<std::string, std::string> ax_ids;  // role + unique name -> ID before OCR
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto lease = d.workspace().Acquire();
        if (!lease.ok()) return false;
        auto obs = lease->observer->Observe(ObserveRequest{});
        if (!obs.ok()) return false;
        snapshot = std::move(obs->snapshot);
        ax_ids.clear();
        std::map<std::string, int> seen;
        ForEachNode(snapshot.roots, [&](const Node& n, int) {
          if (n.name.empty()) return;
          const std::string key = std::string(RoleName(n.role)) + "/" + n.name;
          ax_ids[key] = n.id;
          ++seen[key];
        });
        for (const auto& [key, count] : seen) {
          if (count > 1) ax_ids.erase(key);
        }
        auto ocr = AddOcrSource(snapshot, *lease, Reader(), ObserveRequest{});
        if (!ocr.ok()) return false;
        added = std::move(ocr).value();
        std::string xterm_text;
        ForEachNode(snapshot.roots, [&](const Node& n, int) {
          if (n.source == Source::kOcr && n.role == Role::kText && n.pid == xterm->pid()) {
            xterm_text += n.name + "\n";
          }
        });
        return CharacterAccuracy(truth, xterm_text) >= 0.98;
      },
      milliseconds(15000)));

  EXPECT_GT(added.stats.ocr_nodes, 8);
  EXPECT_EQ(snapshot.stats.ocr_nodes, added.stats.ocr_nodes);
  // xterm: an application and a window from the X server, its lines below.
  const Node* xterm_app = nullptr;
  for (const Node& root : snapshot.roots) {
    if (root.role == Role::kApplication && root.pid == xterm->pid()) xterm_app = &root;
  }
  ASSERT_NE(xterm_app, nullptr);
  EXPECT_EQ(xterm_app->name, "xterm");
  ASSERT_EQ(xterm_app->children.size(), 1u);
  const Node& window = xterm_app->children[0];
  EXPECT_EQ(window.role, Role::kWindow);
  EXPECT_EQ(window.source, Source::kX11);
  ASSERT_EQ(window.children.size(), 8u);
  for (const Node& line : window.children) {
    EXPECT_EQ(line.role, Role::kText);
    EXPECT_EQ(line.window, window.id);
    EXPECT_EQ(line.id.rfind("tx_", 0), 0u);
    EXPECT_GT(line.confidence, 0.5f);
    EXPECT_TRUE(window.bounds->Contains(*line.bounds));
  }
  // The fixture's canvas has no accessible children: its painted labels are
  // read into it.
  const Node* canvas = nullptr;
  ForEachNode(snapshot.roots, [&](const Node& n, int) {
    if (n.role == Role::kCanvas) canvas = &n;
  });
  ASSERT_NE(canvas, nullptr);
  std::string canvas_text;
  for (const Node& c : canvas->children) {
    EXPECT_EQ(c.source, Source::kOcr);
    canvas_text += c.name + " ";
  }
  for (const char* label : {"OK", "Cancel", "Apply", "Search"}) {
    EXPECT_NE(canvas_text.find(label), std::string::npos) << label << " in: " << canvas_text;
  }
  // Accessible nodes kept their IDs.
  ForEachNode(snapshot.roots, [&](const Node& n, int) {
    if (n.source != Source::kAx || n.name.empty()) return;
    auto it = ax_ids.find(std::string(RoleName(n.role)) + "/" + n.name);
    if (it != ax_ids.end()) {
      EXPECT_EQ(n.id, it->second) << n.name;
    }
  });
}

// The OCR lines read into process `pid`'s window: text and bounds.
std::vector<std::pair<std::string, Rect>> BelowLines(OcrDesktop& d, int pid) {
  std::vector<std::pair<std::string, Rect>> lines;
  auto lease = d.workspace().Acquire();
  if (!lease.ok()) return lines;
  auto obs = lease->observer->Observe(ObserveRequest{});
  if (!obs.ok()) return lines;
  Snapshot snapshot = std::move(obs->snapshot);
  if (!AddOcrSource(snapshot, *lease, Reader(), ObserveRequest{}).ok()) return lines;
  ForEachNode(snapshot.roots, [&](const Node& n, int) {
    if (n.source == Source::kOcr && n.role == Role::kText && n.pid == pid && n.bounds) {
      lines.emplace_back(n.name, *n.bounds);
    }
  });
  return lines;
}

// A window partly covered by another: the text the covering window shows
// there is the covering window's, never read into the one below.
TEST(ObserveOcrDesktopTest, TextOfACoveringWindowIsNotReadIntoTheWindowBelow) {
  OcrDesktop d;
  ASSERT_TRUE(d.desktop().ok()) << d.desktop().error();
  auto below = d.Xterm("70x12+0+0");
  ASSERT_NE(below, nullptr);
  ASSERT_FALSE(d.WindowOf(below->pid()).empty());
  const std::string flag = test::TestStateDir() + "/ocr-cover-now";
  std::ofstream(flag).put('\n');  // the covering xterm prints its line at once
  auto above = d.Xterm("44x6+120+40", {}, flag, "bravo covering window");
  ASSERT_NE(above, nullptr);
  ASSERT_FALSE(d.WindowOf(above->pid()).empty());

  std::string below_text, above_text;
  int bravo_nodes = 0;
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto lease = d.workspace().Acquire();
        if (!lease.ok()) return false;
        auto obs = lease->observer->Observe(ObserveRequest{});
        if (!obs.ok()) return false;
        Snapshot snapshot = std::move(obs->snapshot);
        if (!AddOcrSource(snapshot, *lease, Reader(), ObserveRequest{}).ok()) return false;
        below_text.clear();
        above_text.clear();
        bravo_nodes = 0;
        ForEachNode(snapshot.roots, [&](const Node& n, int) {
          if (n.source != Source::kOcr || n.role != Role::kText) return;
          bravo_nodes += n.name.find("bravo") != std::string::npos;
          if (n.pid == below->pid()) below_text += n.name + "\n";
          if (n.pid == above->pid()) above_text += n.name + "\n";
        });
        return above_text.find("bravo covering") != std::string::npos && !below_text.empty();
      },
      milliseconds(15000)))
      << "above:\n"
      << above_text << "below:\n"
      << below_text;
  EXPECT_EQ(below_text.find("bravo"), std::string::npos) << below_text;
  EXPECT_EQ(bravo_nodes, 1) << "above:\n" << above_text << "below:\n" << below_text;
  // Nor is the covering window's title bar ("sh", the title of both) read
  // into the window below: what lies under the covering frame is masked.
  auto windows = x11::X11Display::Open(d.desktop().info().display_name);
  ASSERT_TRUE(windows.ok());
  auto listed = x11::ListClientWindows(**windows);
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  for (const WindowInfo& t : *listed) {
    if (t.pid != above->pid()) continue;
    EXPECT_LT(t.frame.y, t.bounds.y) << "openbox draws a title bar";
    for (const auto& [text, box] : BelowLines(d, below->pid())) {
      // (A line's box may reach one pixel into the mask: its ink edge.)
      const Rect overlap = Intersect(box, t.frame);
      EXPECT_TRUE(overlap.w <= 1 || overlap.h <= 1)
          << "\"" << text << "\" at " << box.x << "," << box.y << "," << box.w << "," << box.h
          << " under the covering frame " << t.frame.x << "," << t.frame.y << "," << t.frame.w
          << "," << t.frame.h;
    }
  }
  std::remove(flag.c_str());
}

// A main area the tree leaves blind (a GTK 3 window whose grid is drawn
// without cell objects, tests/fixtures/blind/grid_without_cells.py) is read
// by OCR without being asked: its words join the tree under the empty
// container, with a warning that says so; --sources ax leaves them out.
TEST(ObserveOcrDesktopTest, ABlindMainAreaIsReadByDefaultUnderItsContainer) {
  OcrDesktop d;
  ASSERT_TRUE(d.desktop().ok()) << d.desktop().error();
  SpawnOptions options;
  options.argv = {"/usr/bin/python3", std::string(UISCOPE_BLIND_FIXTURES) + "/grid_without_cells.py",
                  "60", "40"};
  options.capture_stdout = true;
  auto app = d.desktop().Launch(options);
  ASSERT_NE(app, nullptr);
  auto line = app->ReadLine(milliseconds(20000));
  ASSERT_TRUE(line.ok()) << line.error().ToString();
  ObserveRequest scope;
  scope.pid = app->pid();

  auto texts_under_blind = [](const Snapshot& s) {
    std::string text;
    ForEachNode(s.roots, [&](const Node& n, int) {
      if (n.source != Source::kAx || IsWindowRole(n.role)) return;
      for (const Node& c : n.children) {
        if (c.source == Source::kOcr) text += c.name + "\n";
      }
    });
    return text;
  };
  Snapshot snapshot;
  std::vector<std::string> warnings;
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto lease = d.workspace().Acquire();
        if (!lease.ok()) return false;
        auto perceived = Perceive(*lease, scope, Sources{}, &Reader());
        if (!perceived.ok()) return false;
        snapshot = std::move(perceived->observation.snapshot);
        warnings = perceived->observation.warnings;
        return texts_under_blind(snapshot).find("PAPAYA") != std::string::npos;
      },
      milliseconds(15000)))
      << "OCR text under containers: " << texts_under_blind(snapshot);
  const std::string text = texts_under_blind(snapshot);
  for (const char* word : {"MANGO", "QUINCE", "Price"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word << " in:\n" << text;
  }
  EXPECT_GT(snapshot.stats.ocr_nodes, 3);
  bool said = false;
  for (const std::string& w : warnings) said = said || w.find("read by OCR") != std::string::npos;
  EXPECT_TRUE(said) << "the output says the pixels were read";
  // The heading the tree has is not read again.
  int headings = 0;
  ForEachNode(snapshot.roots, [&](const Node& n, int) {
    if (n.name == "Stock sheet") ++headings;
  });
  EXPECT_EQ(headings, 1);

  // --sources ax: the tree alone.
  auto ax_only = ParseSources({"ax"});
  ASSERT_TRUE(ax_only.ok());
  auto lease = d.workspace().Acquire();
  ASSERT_TRUE(lease.ok());
  auto plain = Perceive(*lease, scope, *ax_only, &Reader());
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->observation.snapshot.stats.ocr_nodes, 0);
  EXPECT_TRUE(texts_under_blind(plain->observation.snapshot).empty());
}

}  // namespace
}  // namespace uiscope
