// libFuzzer target: the JSON Schema validator (src/mcp/json_schema.h) with an
// arbitrary schema and an arbitrary instance. The input is the schema, a
// newline, then the instance; each is parsed as the transports parse a frame
// (ParseFrame: nesting capped), and when both parse, CheckSchema,
// ValidateJson and ValidateArguments run on them, whatever CheckSchema says:
// the validator must be total over any JSON. The seeds in
// fuzz/corpus/json_schema include uiscope tools' real input schemas.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mcp/json_rpc.h"
#include "mcp/json_schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace uiscope::mcp;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const size_t nl = bytes.find('\n');
  if (nl == std::string_view::npos) return 0;
  Parsed schema = ParseFrame(bytes.substr(0, nl));
  Parsed instance = ParseFrame(bytes.substr(nl + 1));
  if (!schema.ok || !instance.ok) return 0;
  (void)CheckSchema(schema.value);
  (void)ValidateJson(schema.value, instance.value);
  (void)ValidateArguments(schema.value, instance.value);
  return 0;
}
