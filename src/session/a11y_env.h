// Accessibility switched on for every toolkit a session runs: the one place
// that knows what each toolkit needs before it talks AT-SPI (DESIGN §6).
//
// Two switches, because toolkits listen to different ones:
// - environment variables, read once when an app starts
//   (AccessibilityEnvironment(): GTK 2, Qt, Chromium/Electron, LibreOffice);
// - the org.a11y.Status properties IsEnabled and ScreenReaderEnabled of the
//   session bus's org.a11y.Bus (EnableAccessibilityOnBus()), which Qt,
//   Chromium and GTK 4 also watch while they run, so apps started without the
//   variables (by a user's terminal or a desktop launcher) switch on too.
//
// AccessibilityHint() reads what a running app is built with (its mapped
// libraries) and says what it lacks to appear on the accessibility bus.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace uiscope {

// Variables that switch accessibility on for apps started with them; each
// entry's why-comment is in a11y_env.cpp. `libreoffice_gtk3` adds
// SAL_USE_VCLPLUGIN=gtk3 (only when that plugin is installed: naming a
// missing plugin makes LibreOffice refuse to start).
std::vector<std::pair<std::string, std::string>> AccessibilityEnvironment(bool libreoffice_gtk3);

// Whether LibreOffice's GTK 3 plugin (Debian: libreoffice-gtk3) is installed.
bool LibreOfficeGtk3Installed();

// Variables that must not reach an app: they switch its bridge off.
std::vector<std::string> AccessibilityUnsetEnvironment();

// Sets org.a11y.Status IsEnabled and ScreenReaderEnabled to true on the bus
// at `bus_address` (D-Bus activates the AT-SPI bus launcher when it is not
// running yet), then has the launcher start the accessibility bus, so that
// its address is on the X root window before any app starts (see the
// why-comment in a11y_env.cpp: Qt 5). Errors: Unavailable (bus unreachable, no launcher installed:
// the message says which package), Timeout.
Status EnableAccessibilityOnBus(const std::string& bus_address,
                                std::chrono::milliseconds timeout = std::chrono::seconds(5));

// Reads org.a11y.Status `property` ("IsEnabled", "ScreenReaderEnabled").
Result<bool> ReadAccessibilityStatus(const std::string& bus_address, const std::string& property,
                                     std::chrono::milliseconds timeout = std::chrono::seconds(5));

// What an app built from `executable` with `libraries` mapped needs to
// appear on the accessibility bus: the toolkit, and the fix (a variable, a
// package, `uiscope session a11y-on`). "" when no known toolkit is seen.
std::string AccessibilityHintFor(std::string_view executable,
                                 const std::vector<std::string>& libraries);

// AccessibilityHintFor() for the running process `pid` (/proc/PID/exe and
// the libraries in /proc/PID/maps); "" when unreadable or unknown.
std::string AccessibilityHint(int pid);

}  // namespace uiscope
