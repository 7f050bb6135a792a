// Default (unsupported) actions and the factory of the accessibility
// backend. The AT-SPI2 backend is the only one
// on Linux; the factory exists so the engine never includes backend headers.
#include "platform/accessibility.h"

#include "core/ascii.h"
#include "platform/atspi/atspi_tree.h"

namespace uiscope {
namespace {

Error CannotAct() {
  return MakeError(ErrorCode::kUnsupported,
                   "this accessibility backend cannot act on elements; use input (via xtest)");
}

}  // namespace

Result<ElementCapabilities> Accessibility::Capabilities(const Node&, std::chrono::milliseconds) {
  return CannotAct();
}
Status Accessibility::DoAction(const Node&, std::string_view, std::chrono::milliseconds) {
  return CannotAct();
}
Status Accessibility::SetText(const Node&, std::string_view, std::chrono::milliseconds) {
  return CannotAct();
}
Status Accessibility::SetValue(const Node&, double, std::chrono::milliseconds) {
  return CannotAct();
}
Status Accessibility::GrabFocus(const Node&, std::chrono::milliseconds) { return CannotAct(); }
Result<std::string> Accessibility::ChooseOption(const Node&, std::string_view,
                                                std::chrono::milliseconds) {
  return CannotAct();
}
std::vector<Accessibility::Liveness> Accessibility::Probe(const std::vector<AppInfo>& apps,
                                                          std::chrono::milliseconds) {
  return std::vector<Liveness>(apps.size(), Liveness::kAnswers);
}

std::string ToolkitLabel(const AppInfo& app) {
  const std::string toolkit = AsciiLower(app.toolkit);
  // LibreOffice draws with its own VCL through a GTK 3 or KDE plugin, and
  // reports the plugin's toolkit.
  if (app.name == "soffice" || app.name.starts_with("LibreOffice")) return "libreoffice-vcl";
  // GAIL: GTK 2's accessibility module (GIMP 2.10).
  if (toolkit == "gail") return "gtk2";
  const char major = app.toolkit_version.empty() ? '\0' : app.toolkit_version[0];
  const bool digit = major >= '0' && major <= '9';
  if ((toolkit == "gtk" || toolkit == "qt") && digit) return toolkit + major;
  return toolkit;
}

Result<std::unique_ptr<Accessibility>> ConnectAtspi(const AtspiOptions& options) {
  auto backend = atspi::AtspiAccessibility::Connect(options);
  if (!backend.ok()) return backend.error();
  return std::unique_ptr<Accessibility>(std::move(backend).value());
}

}  // namespace uiscope
