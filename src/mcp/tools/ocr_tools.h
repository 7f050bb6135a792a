// The `read_text` tool: the text on a session's screen, a region or a window,
// read by OCR (engine/read_text.h) as lines and words with screen bounds and
// confidences; unchanged text is answered from the cache. Password fields
// are masked before OCR.
#pragma once

#include <memory>

#include "core/result.h"
#include "engine/read_text.h"
#include "engine/workspace.h"
#include "mcp/tool_registry.h"

namespace uiscope::mcp {

// `read_text`, on the workspace's desktops (which must outlive the registry),
// with its own TextReader (one OCR engine and cache for the server's
// lifetime).
Status RegisterOcrTools(ToolRegistry& registry, Workspace& workspace);

// The same with a TextReader shared with other tools (observe --sources ocr),
// so there is one Tesseract pool and one cache.
Status RegisterOcrTools(ToolRegistry& registry, Workspace& workspace,
                        std::shared_ptr<TextReader> reader);

}  // namespace uiscope::mcp
