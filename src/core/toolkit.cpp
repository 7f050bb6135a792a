#include "core/toolkit.h"

#include "core/ascii.h"

namespace uiscope {
namespace {

bool Contains(std::string_view haystack, std::string_view needle) {
  return AsciiLower(haystack).find(needle) != std::string::npos;
}

int Major(std::string_view version) {
  int major = 0;
  for (char c : version) {
    if (c < '0' || c > '9') break;
    major = major * 10 + (c - '0');
    if (major > 1000) break;
  }
  return major;
}

}  // namespace

bool ToolkitLabelNeedsCommandLine(std::string_view toolkit) {
  const std::string tk = AsciiLower(toolkit);
  return tk == "chromium" || tk == "chrome";
}

std::string ToolkitLabel(std::string_view toolkit, std::string_view version,
                         std::string_view app_name, std::string_view command_line) {
  const std::string tk = AsciiLower(toolkit);
  const int major = Major(version);
  // LibreOffice answers "VCL" with its own widgets, and its gtk3 plugin
  // still draws VCL widgets under a GTK name: the app decides.
  if (tk == "vcl" || Contains(app_name, "soffice") || Contains(app_name, "libreoffice")) {
    return "libreoffice-vcl";
  }
  if (ToolkitLabelNeedsCommandLine(tk)) {
    if (Contains(command_line, "electron") || Contains(command_line, "app.asar")) return "electron";
    // The first word of the command line: the executable.
    std::string exe(command_line.substr(0, command_line.find(' ')));
    exe = exe.substr(exe.rfind('/') == std::string::npos ? 0 : exe.rfind('/') + 1);
    const bool browser = Contains(exe, "chrom");
    return browser || command_line.empty() ? "chromium" : "electron";
  }
  // GAIL: GTK 2's accessibility module (GIMP 2.10).
  if (tk == "gail") return "gtk2";
  if (tk == "gtk") {
    if (major == 2) return "gtk2";
    if (major == 4) return "gtk4";
    return "gtk3";
  }
  if (tk == "qt") return major == 6 ? "qt6" : "qt5";
  return tk;
}

}  // namespace uiscope
