// Base64 (RFC 4648, standard alphabet), shared by MCP's image content and
// clipboard tool, and the DevTools WebSocket handshake.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace uiscope {

// With padding.
std::string Base64Encode(std::string_view bytes);
// Padding optional, no whitespace; nullopt when malformed.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace uiscope
