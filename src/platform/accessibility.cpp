// Default (unsupported) actions and the factory of the accessibility
// backend. The AT-SPI2 backend is the only one
// on Linux; the factory exists so the engine never includes backend headers.
#include "platform/accessibility.h"

#include "core/toolkit.h"
#include "platform/atspi/atspi_tree.h"
#include "platform/process_name.h"

namespace uiscope {
namespace {

Error CannotAct() {
  return MakeError(ErrorCode::kUnsupported,
                   "this accessibility backend cannot act on elements; use input (via xtest)");
}

class Absent final : public Accessibility {
 public:
  explicit Absent(std::string where) : where_(std::move(where)) {}
  Result<std::vector<AppInfo>> ListApps() override { return std::vector<AppInfo>{}; }
  Result<TreeResult> Tree(const TreeRequest& request) override {
    if (request.app_name.empty() && request.pid == 0) return TreeResult{};
    return MakeError(ErrorCode::kNotFound,
                     where_ +
                         " has no accessibility tree: its windows are read from pixels (OCR "
                         "and vision); observe without --app/--pid");
  }

 private:
  std::string where_;
};

}  // namespace

std::unique_ptr<Accessibility> NoAccessibility(std::string where) {
  return std::make_unique<Absent>(std::move(where));
}

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
  const std::string command_line =
      ToolkitLabelNeedsCommandLine(app.toolkit) ? ProcessCommandLine(app.pid) : "";
  return uiscope::ToolkitLabel(app.toolkit, app.toolkit_version, app.name, command_line);
}

Result<std::unique_ptr<Accessibility>> ConnectAtspi(const AtspiOptions& options) {
  auto backend = atspi::AtspiAccessibility::Connect(options);
  if (!backend.ok()) return backend.error();
  return std::unique_ptr<Accessibility>(std::move(backend).value());
}

}  // namespace uiscope
