// Fuzz targets only: an Outbound that serialises every message the server
// sends, as a transport would (DumpMessage), and throws it away, so that
// serialising is fuzzed too.
#pragma once

#include <cstddef>

#include "mcp/json_rpc.h"
#include "mcp/server.h"

namespace uiscope::mcp {

class Serialiser final : public Outbound {
 public:
  bool Send(const json& message) override {
    bytes_ += DumpMessage(message).size();
    return true;
  }

 private:
  size_t bytes_ = 0;
};

}  // namespace uiscope::mcp
