// Mouse button names and the factory of the input backend, so the engine
// never includes backend headers.
#include "platform/input.h"

#include "platform/x11/xtest_input.h"

namespace uiscope {

Result<MouseButton> ParseMouseButton(std::string_view name) {
  if (name == "left") return MouseButton::kLeft;
  if (name == "middle") return MouseButton::kMiddle;
  if (name == "right") return MouseButton::kRight;
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown mouse button \"" + std::string(name) + "\": use left, middle or right");
}

std::string_view MouseButtonName(MouseButton button) {
  switch (button) {
    case MouseButton::kLeft:
      return "left";
    case MouseButton::kMiddle:
      return "middle";
    case MouseButton::kRight:
      return "right";
  }
  return "left";
}

Result<std::unique_ptr<Input>> OpenXTestInput(const std::string& display) {
  auto input = x11::XTestInput::Open(display);
  if (!input.ok()) return input.error();
  return std::unique_ptr<Input>(std::move(input).value());
}

}  // namespace uiscope
