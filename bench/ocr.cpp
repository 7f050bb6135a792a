// bench/ocr: uiscope's read_text against the Tesseract command line
// (`tesseract IMAGE -`, the same eng language data, OMP_THREAD_LIMIT=1 for
// both) on the same captured 1920x1080 screens of known text, in one run:
//
//   page  one full-screen xterm, DejaVu Sans Mono 9, dense random text
//   grid  four tiled xterms: 9 pt, 9 pt reverse video, 11 pt, and the
//         default (small) font
//
// For each: the time of a cold read (empty cache; Tesseract already
// initialised, as in a running server) and of the CLI, word recall of both
// against the text the benchmark printed, then a cached re-read of the
// unchanged screen and the read after one terminal printed one more line.
//
//   build/bin/bench_ocr [--runs N] [--scenario page|grid|all] [--keep DIR]
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_args.h"
#include "engine/read_text.h"
#include "image/image.h"
#include "ocr/ocr_cache.h"
#include "platform/x11/x11_display.h"
#include "platform/x11/ximage_capture.h"
#include "session/headless_desktop.h"
#include "session/process.h"

namespace uiscope {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

double MsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// --- known text ---------------------------------------------------------------

// Prose words and the tokens terminals show (paths, flags, versions,
// addresses), mixed the way a shell session mixes them.
const char* const kWords[] = {
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "this",
    "are",
    "or",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "they",
    "you",
    "were",
    "their",
    "has",
    "would",
    "when",
    "if",
    "so",
    "no",
    "will",
    "more",
    "can",
    "about",
    "out",
    "up",
    "time",
    "only",
    "new",
    "some",
    "could",
    "these",
    "two",
    "may",
    "first",
    "then",
    "do",
    "any",
    "like",
    "now",
    "over",
    "such",
    "our",
    "made",
    "after",
    "also",
    "did",
    "many",
    "before",
    "must",
    "through",
    "back",
    "years",
    "where",
    "much",
    "your",
    "way",
    "well",
    "down",
    "should",
    "because",
    "each",
    "just",
    "those",
    "people",
    "how",
    "too",
    "little",
    "state",
    "good",
    "very",
    "make",
    "world",
    "still",
    "own",
    "see",
    "men",
    "work",
    "long",
    "get",
    "here",
    "between",
    "both",
    "life",
    "being",
    "under",
    "never",
    "day",
    "same",
    "another",
    "know",
    "while",
    "last",
    "might",
    "great",
    "old",
    "year",
    "off",
    "come",
    "since",
    "against",
    "go",
    "came",
    "right",
    "used",
    "take",
    "three",
    "window",
    "screen",
    "button",
    "terminal",
    "process",
    "memory",
    "server",
    "client",
    "request",
    "timeout",
    "failed",
    "started",
    "stopped",
    "running",
    "/usr/bin/env",
    "config.json",
    "src/main.cpp",
    "0x7f3a",
    "127.0.0.1:8080",
    "--verbose",
    "README.md",
    "make",
    "git",
    "commit",
    "HEAD",
    "ERROR",
    "Warning:",
    "ok",
    "42",
    "1920x1080",
    "v2.3.1",
    "build/",
    "tests",
    "std::vector",
    "/var/log/syslog",
    "-rw-r--r--",
    "2024-03-14",
    "09:12:45",
    "pid=4242",
    "exit(1)",
    "#include",
    "<stdio.h>",
};

// A small deterministic generator, so every run prints the same text.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  uint32_t Next() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state_ >> 33);
  }

 private:
  uint64_t state_;
};

std::vector<std::string> MakeText(uint64_t seed, int lines, int max_cols) {
  Lcg rng(seed);
  const size_t n = sizeof(kWords) / sizeof(kWords[0]);
  std::vector<std::string> out;
  for (int i = 0; i < lines; ++i) {
    std::string line;
    const int limit = max_cols - static_cast<int>(rng.Next() % 12);
    while (true) {
      std::string w = kWords[rng.Next() % n];
      if (rng.Next() % 10 == 0) w[0] = static_cast<char>(std::toupper(w[0]));
      if (static_cast<int>(line.size() + 1 + w.size()) > limit) break;
      if (!line.empty()) line += ' ';
      line += w;
    }
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

// Share of the truth's words (as a multiset) found in `read`.
double WordRecall(const std::vector<std::string>& truth, const std::string& read) {
  std::map<std::string, int> have;
  for (const auto& w : Words(read)) ++have[w];
  int hit = 0;
  for (const auto& w : truth) {
    auto it = have.find(w);
    if (it != have.end() && it->second > 0) {
      --it->second;
      ++hit;
    }
  }
  return truth.empty() ? 0 : static_cast<double>(hit) / static_cast<double>(truth.size());
}

// --- scenarios ------------------------------------------------------------------

struct Terminal {
  std::string geometry;            // xterm -geometry COLSxROWS+X+Y
  std::vector<std::string> extra;  // more xterm arguments (font, -rv)
  int cols = 0;                    // text width
  int lines = 0;                   // lines printed
  bool prints_later = false;       // prints one more line when the flag appears
};

struct Scenario {
  std::string name;
  std::string description;
  std::vector<Terminal> terminals;
};

std::vector<Scenario> Scenarios() {
  const std::vector<std::string> mono9 = {"-fa", "DejaVu Sans Mono", "-fs", "9"};
  const std::vector<std::string> mono11 = {"-fa", "DejaVu Sans Mono", "-fs", "11"};
  std::vector<std::string> mono9rv = mono9;
  mono9rv.push_back("-rv");
  // Cells (measured on Xvfb): 9 pt 8x15, 11 pt 9x19, default font 6x13
  // pixels. Every window fits its quarter (or the screen) with its title
  // bar, and every line fits its window, so all the text is on screen.
  return {
      {"page",
       "one full-screen xterm, DejaVu Sans Mono 9 pt (8x15 px cells)",
       {{"238x69+0+0", mono9, 230, 66, true}}},
      {"grid",
       "four tiled xterms: 9 pt, 9 pt reverse video, 11 pt, default font (6x13)",
       {{"118x33+0+0", mono9, 112, 30, true},
        {"118x33+962+0", mono9rv, 112, 31, false},
        {"104x26+0+542", mono11, 98, 25, false},
        {"156x38+962+542", {}, 150, 37, false}}},
  };
}

// --- helpers ----------------------------------------------------------------

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The first three fields of /proc/loadavg: other work on the machine slows
// the two-thread read more than the one-thread CLI.
std::string LoadAverage() {
  std::string a, b, c;
  std::ifstream("/proc/loadavg") >> a >> b >> c;
  return a + " " + b + " " + c;
}

struct Stats {
  double best = 1e18;
  double median = 0;
  void From(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    best = v.front();
    median = v[v.size() / 2];
  }
};

Result<Image> Capture(const std::string& display, const Rect& r) {
  auto x = x11::X11Display::Open(display);
  if (!x.ok()) return x.error();
  return x11::CaptureRegion(**x, r);
}

// Waits until the screen stops changing (every terminal drawn).
Result<Image> SettledScreen(const std::string& display, const Rect& screen) {
  uint64_t last = 0;
  for (int i = 0; i < 100; ++i) {
    auto image = Capture(display, screen);
    if (!image.ok()) return image.error();
    const uint64_t h = ocr::HashImageMasked(*image, {}, 0);
    if (h == last) return image;
    last = h;
    std::this_thread::sleep_for(milliseconds(300));
  }
  return MakeError(ErrorCode::kTimeout, "the screen never settled");
}

struct CliRun {
  double ms = 0;
  std::string text;
};

Result<CliRun> RunTesseractCli(const DesktopInfo& info, const std::string& png,
                               const std::string& out_base) {
  SpawnOptions spawn;
  spawn.argv = {"tesseract", png, out_base};
  spawn.env = {{"OMP_THREAD_LIMIT", "1"}};
  ApplySessionEnvironment(info, &spawn);
  const auto start = Clock::now();
  auto p = Process::Spawn(spawn);
  if (!p.ok()) return p.error();
  auto code = (*p)->Wait(milliseconds(600000));
  if (!code.ok()) return code.error();
  CliRun run;
  run.ms = MsSince(start);
  if (*code != 0)
    return MakeError(ErrorCode::kInternal, "tesseract exited with " + std::to_string(*code));
  run.text = Slurp(out_base + ".txt");
  return run;
}

Result<ReadTextResult> ReadScreen(Workspace& workspace, TextReader& reader,
                                  const ReadTextRequest& request) {
  auto lease = workspace.Acquire();
  if (!lease.ok()) return lease.error();
  return reader.Read(std::move(lease).value(), request);
}

int RunScenario(const Scenario& s, int runs, const std::string& dir) {
  DesktopOptions options;
  options.width = 1920;
  options.height = 1080;
  auto desktop = HeadlessDesktop::Start(options);
  if (!desktop.ok()) {
    std::fprintf(stderr, "bench_ocr: %s\n", desktop.error().message.c_str());
    return 1;
  }
  const DesktopInfo& info = (*desktop)->info();
  const Rect screen{0, 0, info.width, info.height};
  const std::string flag = dir + "/" + s.name + ".flag";
  std::remove(flag.c_str());

  std::vector<std::string> truth;
  std::vector<std::unique_ptr<Process>> terminals;
  for (size_t i = 0; i < s.terminals.size(); ++i) {
    const Terminal& t = s.terminals[i];
    std::vector<std::string> lines = MakeText(1000 * (i + 1) + s.name.size(), t.lines, t.cols);
    const std::string file = dir + "/" + s.name + "-" + std::to_string(i) + ".txt";
    std::ofstream(file) << [&] {
      std::string all;
      for (const auto& l : lines) all += l + "\n";
      return all;
    }();
    for (const auto& l : lines) {
      for (auto& w : Words(l)) truth.push_back(std::move(w));
    }
    std::string script = "cat '" + file + "'; printf '\\033[?25l'; ";
    if (t.prints_later) {
      script += "while [ ! -f '" + flag +
                "' ]; do sleep 0.05; done; echo 'one more line: " + "exit(0) after 1.5 s'; ";
    }
    script += "sleep 100000";
    SpawnOptions spawn;
    spawn.argv = {"xterm", "-geometry", t.geometry};
    for (const auto& e : t.extra) spawn.argv.push_back(e);
    for (const char* a : {"-e", "sh", "-c"}) spawn.argv.emplace_back(a);
    spawn.argv.push_back(script);
    spawn.log_file = dir + "/xterm.log";
    ApplySessionEnvironment(info, &spawn);
    auto p = Process::Spawn(spawn);
    if (!p.ok()) {
      std::fprintf(stderr, "bench_ocr: cannot start xterm: %s\n", p.error().message.c_str());
      return 1;
    }
    terminals.push_back(std::move(p).value());
  }

  auto image = SettledScreen(info.display_name, screen);
  if (!image.ok()) {
    std::fprintf(stderr, "bench_ocr: %s\n", image.error().message.c_str());
    return 1;
  }
  const std::string png = dir + "/" + s.name + ".png";
  {
    auto bytes = EncodePng(*image);
    if (!bytes.ok()) return 1;
    std::ofstream(png, std::ios::binary) << *bytes;
  }

  std::printf("== %s: %s, %zu words on screen (%s)\n", s.name.c_str(), s.description.c_str(),
              truth.size(), png.c_str());

  // The reference, on the saved PNG of the very pixels uiscope reads.
  std::vector<double> cli_ms;
  std::string cli_text;
  for (int i = 0; i < runs; ++i) {
    auto run = RunTesseractCli(info, png, dir + "/" + s.name + "-cli");
    if (!run.ok()) {
      std::fprintf(stderr, "bench_ocr: tesseract CLI: %s\n", run.error().message.c_str());
      return 1;
    }
    cli_ms.push_back(run->ms);
    cli_text = run->text;
  }
  Stats cli;
  cli.From(cli_ms);

  WorkspaceOptions wo;
  wo.display = info.display_name;
  wo.start_headless = false;
  Workspace workspace(wo);
  TextReader reader;
  auto engine = reader.Engine();
  if (!engine.ok()) {
    std::fprintf(stderr, "bench_ocr: %s\n", engine.error().message.c_str());
    return 1;
  }
  ReadTextRequest whole;  // the whole screen
  // Warm-up: every worker loads its Tesseract once, as a server does once.
  if (auto warm = ReadScreen(workspace, reader, whole); !warm.ok()) {
    std::fprintf(stderr, "bench_ocr: %s\n", warm.error().message.c_str());
    return 1;
  }
  std::vector<double> ours_ms, ours_ocr_ms;
  std::string ours_text;
  int regions = 0;
  for (int i = 0; i < runs; ++i) {
    (*engine)->cache().Clear();
    auto read = ReadScreen(workspace, reader, whole);
    if (!read.ok()) {
      std::fprintf(stderr, "bench_ocr: %s\n", read.error().message.c_str());
      return 1;
    }
    ours_ms.push_back(read->total_ms);
    ours_ocr_ms.push_back(read->ocr.processing_time_ms);
    ours_text = read->ocr.text;
    regions = read->ocr.regions_read;
  }
  Stats ours, ours_ocr;
  ours.From(ours_ms);
  ours_ocr.From(ours_ocr_ms);
  std::ofstream(dir + "/" + s.name + "-uiscope.txt") << ours_text << "\n";

  const double cli_recall = WordRecall(truth, cli_text);
  const double ours_recall = WordRecall(truth, ours_text);
  std::printf("  %-46s %9s %9s %8s\n", "cold read of the whole screen", "best", "median", "recall");
  std::printf("  %-46s %7.0f ms %7.0f ms %7.2f%%\n", "tesseract IMAGE - (CLI, reference)", cli.best,
              cli.median, 100 * cli_recall);
  std::printf("  %-46s %7.0f ms %7.0f ms %7.2f%%   (%d text lines, OCR alone %.0f ms)\n",
              "uiscope read_text (capture + OCR)", ours.best, ours.median, 100 * ours_recall,
              regions, ours_ocr.best);
  std::printf("  -> uiscope is %.2fx faster (median %.2fx), recall %+.2f points\n",
              cli.best / ours.best, cli.median / ours.median, 100 * (ours_recall - cli_recall));
  {
    // The work itself: the same OCR on one worker (one core), uncached.
    ocr::TesseractOptions one;
    one.workers = 1;
    auto single = ocr::OcrEngine::CreateTesseract(one);
    if (single.ok()) {
      ocr::OcrOptions uncached;
      uncached.use_cache = false;
      (void)(*single)->Read(*image, Point{0, 0}, uncached);  // loads Tesseract
      const auto start = Clock::now();
      auto read = (*single)->Read(*image, Point{0, 0}, uncached);
      const double ms = MsSince(start);
      if (read.ok()) {
        std::printf("  %-46s %7.0f ms %18s   (%.2fx less work than the CLI)\n",
                    "uiscope OCR on one worker (work per core)", ms, "", cli.best / ms);
      }
    }
  }

  // Unchanged screen: a hash.
  std::vector<double> cached_ms, cached_ocr_ms;
  bool all_cached = true;
  for (int i = 0; i < std::max(3, runs); ++i) {
    auto read = ReadScreen(workspace, reader, whole);
    if (!read.ok()) return 1;
    all_cached = all_cached && read->ocr.cached;
    cached_ms.push_back(read->total_ms);
    cached_ocr_ms.push_back(read->ocr.processing_time_ms);
  }
  Stats cached, cached_ocr;
  cached.From(cached_ms);
  cached_ocr.From(cached_ocr_ms);
  std::printf(
      "  cached re-read of the unchanged screen: %.2f ms OCR (target < 5), %.1f ms with the "
      "1080p capture and the password-field lookup (median); cached=%s\n",
      cached_ocr.median, cached.median, all_cached ? "true" : "FALSE");

  // One terminal prints one more line.
  std::ofstream(flag).put('\n');
  Result<ReadTextResult> changed = MakeError(ErrorCode::kTimeout, "no change seen");
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline) {
    changed = ReadScreen(workspace, reader, whole);
    if (!changed.ok() || changed->ocr.regions_read > 0) break;
    std::this_thread::sleep_for(milliseconds(20));
  }
  if (!changed.ok() || changed->ocr.regions_read == 0) {
    std::printf("  one changed line: the terminal did not print it\n");
  } else {
    std::printf(
        "  one changed line: %.1f ms OCR (target < 50), %.1f ms in all; %d text region "
        "recognised, %d from the cache, %d of %d rows searched for lines\n",
        changed->ocr.processing_time_ms, changed->total_ms, changed->ocr.regions_read,
        changed->ocr.regions_reused, changed->ocr.rows_searched, 1080);
  }
  std::printf("\n");
  for (auto& t : terminals) (void)t->Terminate(milliseconds(500));
  return 0;
}

}  // namespace
}  // namespace uiscope

int main(int argc, char** argv) {
  using namespace uiscope;
  static const char kUsage[] =
      "usage: bench_ocr [--runs N] [--scenario page|grid|all] [--keep DIR]\n"
      "  read_text on terminals of known text against the tesseract CLI; its files go to a\n"
      "  temporary directory, or to DIR with --keep\n";
  if (bench::HelpAsked(argc, argv, kUsage)) return 0;
  int runs = 3;
  std::string scenario = "all";
  std::string keep;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--scenario" && i + 1 < argc) {
      scenario = argv[++i];
    } else if (a == "--keep" && i + 1 < argc) {
      keep = argv[++i];
    } else {
      return bench::BadUsage(argv[i], kUsage);
    }
  }
  bench::PrivateStateDir private_dirs;  // what the desktop's apps write
  // Sessions of this benchmark stay out of the user's `uiscope session list`.
  char state_template[] = "/tmp/uiscope-bench-ocr-XXXXXX";
  const char* state = mkdtemp(state_template);
  if (state == nullptr) return 1;
  setenv("UISCOPE_STATE_DIR", state, 1);
  std::string dir = keep.empty() ? std::string(state) : keep;
  mkdir(dir.c_str(), 0755);

  std::printf(
      "bench_ocr: %u cores, Tesseract with one OpenMP thread per recogniser (CLI: "
      "OMP_THREAD_LIMIT=1), %d runs each\n\n",
      std::thread::hardware_concurrency(), runs);
  int rc = 0;
  for (const Scenario& s : Scenarios()) {
    if (scenario != "all" && scenario != s.name) continue;
    rc |= RunScenario(s, runs, dir);
  }
  std::printf("load average at the end: %s\n", LoadAverage().c_str());
  std::error_code ec;
  std::filesystem::remove_all(state, ec);
  return rc;
}
