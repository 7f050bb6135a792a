// Factory of the accessibility backend. The AT-SPI2 backend is the only one
// on Linux; the factory exists so the engine never includes backend headers.
#include "platform/accessibility.h"

#include "platform/atspi/atspi_tree.h"

namespace uiscope {

Result<std::unique_ptr<Accessibility>> ConnectAtspi(const AtspiOptions& options) {
  auto backend = atspi::AtspiAccessibility::Connect(options);
  if (!backend.ok()) return backend.error();
  return std::unique_ptr<Accessibility>(std::move(backend).value());
}

}  // namespace uiscope
