#include "screenshot_command.h"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "core/escape.h"
#include "detector_flags.h"
#include "engine/desktop.h"
#include "engine/perceive.h"
#include "engine/screenshot.h"
#include "engine/workspace.h"
#include "mcp/wire.h"
#include "policy_flags.h"

namespace uiscope::cli {
namespace {

// The encoding a file name asks for (".webp"), if any.
std::optional<ImageEncoding> EncodingOfPath(const std::string& path) {
  const auto dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return std::nullopt;
  std::string ext = path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto e = ParseImageEncoding(ext);
  if (!e.ok()) return std::nullopt;
  return *e;
}

Status WriteAll(const std::string& path, const std::string& bytes) {
  if (path == "-") {
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::cout.flush();
    if (!std::cout) return MakeError(ErrorCode::kInternal, "cannot write the image to stdout");
    return OkStatus();
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return MakeError(ErrorCode::kInvalidArgument, "cannot open " + path + " for writing");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return MakeError(ErrorCode::kInternal, "cannot write " + path);
  return OkStatus();
}

}  // namespace

CLI::App* AddScreenshotCommand(CLI::App& app, GlobalFlags& g, ScreenshotFlags& f) {
  auto* cmd = app.add_subcommand(
      "screenshot", "capture the screen, a region or a window to an image file (PNG/WebP/JPEG)");
  cmd->add_option("-o,--output", f.output,
                  "output file (default: screenshot.<ext> here; - = stdout)");
  cmd->add_option("--region", f.region, "only this screen rectangle X,Y,W,H");
  cmd->add_option("--window", f.window,
                  "only this window: an X window ID (0x1e00007) or an element ID from observe");
  cmd->add_option("--encoding", f.encoding,
                  "png | webp | jpeg (default: from the -o extension, else png)")
      ->check(CLI::IsMember({"png", "webp", "jpeg", "jpg"}));
  cmd->add_option("--max-width", f.max_width, "shrink wider images to PX pixels (0 = full size)")
      ->check(CLI::Range(0, 16384));
  cmd->add_option("--quality", f.quality, "JPEG quality 1-100")->check(CLI::Range(1, 100));
  cmd->add_flag("--marks", f.marks, "draw each element's box and ID (set-of-marks)");
  cmd->add_option("--app", f.app, "marks: only this application's elements");
  cmd->add_option("--sources", f.sources,
                  "marks: what perceives the elements, comma-separated: ax, ocr, "
                  "vision (as observe --sources, and the same default)");
  AddDetectorOption(cmd, f.detector);
  cmd->add_option("--timeout-ms", f.timeout_ms, "marks: deadline per application")
      ->check(CLI::Range(10, 600000));
  cmd->add_option("--display", g.display, "X display to use (default: $DISPLAY)");
  cmd->add_option(
      "--session", g.session,
      "uiscope session ID, headless or VNC (default: $UISCOPE_SESSION, else the display)");
  cmd->add_option("--config", g.config, "safety policy file (its deny_apps are not read)");
  cmd->add_flag("--json", g.json, "print the result as JSON (the MCP tool's structuredContent)");
  return cmd;
}

int RunScreenshotCommand(const GlobalFlags& g, const ScreenshotFlags& f) {
  if (f.output == "-" && g.json) {
    return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                             "-o - writes the image to stdout, where --json would go too; "
                             "pick one"));
  }
  if (f.output == "-" && isatty(STDOUT_FILENO)) {
    return Fail(g, MakeError(ErrorCode::kInvalidArgument,
                             "-o - would write binary image data to the terminal; redirect "
                             "stdout or give a file name"));
  }
  ScreenshotRequest request;
  if (!f.region.empty()) {
    auto region = ParseRegion(f.region);
    if (!region.ok()) return Fail(g, region.error());
    request.region = *region;
  }
  request.window = f.window;
  if (!f.encoding.empty()) {
    auto e = ParseImageEncoding(f.encoding);
    if (!e.ok()) return Fail(g, e.error());
    request.encoding = *e;
  } else if (auto from_path = EncodingOfPath(f.output)) {
    request.encoding = *from_path;
  }
  request.max_width = f.max_width;
  request.jpeg_quality = f.quality;
  request.marks = f.marks;
  request.observe.app = f.app;
  request.observe.timeout = std::chrono::milliseconds(f.timeout_ms);

  auto sources = ParseSources(CLI::detail::split(f.sources, ','));
  if (!sources.ok()) return Fail(g, sources.error());
  request.sources = *sources;
  auto detector = CliDetector(f.detector);
  if (!detector.ok()) return Fail(g, detector.error());
  request.detector = detector->get();

  auto policy = LoadPolicy(g);
  if (!policy.ok()) return Fail(g, policy.error());
  auto target = ResolveDesktop(g.display, g.session);
  if (!target.ok()) return Fail(g, target.error());
  // The accessibility tree only when something needs it: marks, or a window
  // given by element ID. Plain pixels need only the X display.
  // A VNC desktop's pixels come through its session, as the MCP tool's do.
  const bool needs_tree = request.marks || target->backend != "x11" ||
                          (!request.window.empty() && !ParseXWindowId(request.window));
  Result<ScreenshotResult> shot = MakeError(ErrorCode::kInternal, "not taken");
  if (needs_tree) {
    // The same path as the MCP tool: marks perceived as `observe --sources`
    // perceives, drawn only where they are seen, deny-listed windows masked.
    WorkspaceOptions where;
    where.display = g.display;
    where.session = g.session;
    where.start_headless = false;  // the CLI names the desktop; it never starts one
    where.hide_app = HiddenApps(*policy);
    Workspace workspace(where);
    auto lease = workspace.Acquire();
    if (!lease.ok()) return Fail(g, lease.error());
    ScreenshotService service;
    shot = service.Take(*lease, request);
  } else {
    auto capture = OpenScreenCapture(target->display);
    if (!capture.ok()) return Fail(g, capture.error());
    shot = TakeScreenshot(**capture, nullptr, request);
    if (shot.ok()) shot->display = target->display;
  }
  if (!shot.ok()) return Fail(g, shot.error());

  const std::string path =
      f.output.empty() ? "screenshot." + std::string(FileExtension(shot->encoding)) : f.output;
  if (auto st = WriteAll(path, shot->bytes); !st.ok()) return Fail(g, st.error());
  for (const auto& w : shot->warnings) {
    std::cerr << "uiscope: warning: " << EscapeForDisplay(w) << "\n";
  }
  if (g.json) {
    nlohmann::json j = ScreenshotToJson(*shot);
    j["file"] = path;
    std::cout << j.dump() << "\n";
    return kExitOk;
  }
  std::ostream& out = path == "-" ? std::cerr : std::cout;
  char line[256];
  std::snprintf(line, sizeof(line), "%s: %dx%d %s, %zu bytes, region %d,%d,%d,%d, scale %.4g",
                path == "-" ? "stdout" : path.c_str(), shot->width, shot->height,
                std::string(ImageEncodingName(shot->encoding)).c_str(), shot->bytes.size(),
                shot->region.x, shot->region.y, shot->region.w, shot->region.h, shot->scale);
  out << line;
  if (f.marks) out << ", " << shot->marks.size() << " marks";
  out << "\n";
  if (f.marks && path != "-") {
    for (const ScreenshotMark& m : shot->marks) {
      out << "  " << m.id << "  " << RoleName(m.role);
      if (!m.name.empty()) out << " \"" << m.name << "\"";
      out << "  " << m.bounds.x << "," << m.bounds.y << "," << m.bounds.w << "," << m.bounds.h
          << "\n";
    }
  }
  return kExitOk;
}

}  // namespace uiscope::cli
