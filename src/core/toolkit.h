// The toolkit that drew an application, in one word: what its shortcuts,
// menus and quirks follow (discover, the application node's `toolkit=`),
// and part of what learned memory keys its targets by.
#pragma once

#include <string>
#include <string_view>

namespace uiscope {

// From what the app's accessibility says (Application.ToolkitName and
// Version: "GTK" "3.24.38", "GAIL", "Qt" "5.15.8", "Chromium", "VCL"), its
// name and its command line: "gtk2", "gtk3", "gtk4", "qt5", "qt6",
// "chromium", "electron" (a Chromium that is not the browser),
// "libreoffice-vcl" (LibreOffice draws VCL widgets under whichever plugin's
// name), the lowercased name for others, "" when the app named none.
std::string ToolkitLabel(std::string_view toolkit, std::string_view version,
                         std::string_view app_name, std::string_view command_line);

// Whether telling Chromium from Electron needs the command line (read it
// only then: /proc for every app of every walk is waste).
bool ToolkitLabelNeedsCommandLine(std::string_view toolkit);

}  // namespace uiscope
