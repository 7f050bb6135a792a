#include "session/a11y_env.h"

#include <dbus/dbus.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace uiscope {
namespace {

constexpr const char* kA11yBusName = "org.a11y.Bus";
constexpr const char* kA11yBusPath = "/org/a11y/bus";
constexpr const char* kStatusIface = "org.a11y.Status";
constexpr const char* kPropertiesIface = "org.freedesktop.DBus.Properties";

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

bool AnyLibrary(const std::vector<std::string>& libraries, std::string_view part) {
  return std::any_of(libraries.begin(), libraries.end(),
                     [&](const std::string& l) { return Contains(l, part); });
}

// A private connection to `address`, closed and released on destruction.
class Connection {
 public:
  static Result<Connection> Open(const std::string& address) {
    DBusError error;
    dbus_error_init(&error);
    DBusConnection* raw = dbus_connection_open_private(address.c_str(), &error);
    if (raw != nullptr && !dbus_bus_register(raw, &error)) {
      dbus_connection_close(raw);
      dbus_connection_unref(raw);
      raw = nullptr;
    }
    if (raw == nullptr) {
      std::string message = error.message ? error.message : "unknown error";
      dbus_error_free(&error);
      return MakeError(ErrorCode::kUnavailable,
                       "cannot reach the session bus " + address + ": " + message);
    }
    // Sending on a bus that went away must not end the process.
    dbus_connection_set_exit_on_disconnect(raw, FALSE);
    return Connection(raw);
  }
  Connection(Connection&& other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  Connection& operator=(Connection&&) = delete;
  ~Connection() {
    if (raw_ == nullptr) return;
    dbus_connection_close(raw_);
    dbus_connection_unref(raw_);
  }

  // Sends `message` (taking it) and returns the reply, or the error named.
  Result<DBusMessage*> Call(DBusMessage* message, std::chrono::milliseconds timeout) {
    DBusError error;
    dbus_error_init(&error);
    DBusMessage* reply = dbus_connection_send_with_reply_and_block(
        raw_, message, static_cast<int>(timeout.count()), &error);
    dbus_message_unref(message);
    if (reply != nullptr) return reply;
    const std::string name = error.name ? error.name : "";
    const std::string text = error.message ? error.message : "unknown error";
    dbus_error_free(&error);
    if (name == DBUS_ERROR_SERVICE_UNKNOWN) {
      return MakeError(ErrorCode::kUnavailable,
                       "no AT-SPI bus launcher on this bus (org.a11y.Bus unknown): install "
                       "at-spi2-core (" +
                           text + ")");
    }
    if (name == DBUS_ERROR_NO_REPLY || name == DBUS_ERROR_TIMEOUT) {
      return MakeError(ErrorCode::kTimeout, "the AT-SPI bus launcher did not answer within " +
                                                std::to_string(timeout.count()) + " ms");
    }
    return MakeError(ErrorCode::kUnavailable, "org.a11y.Status: " + name + ": " + text);
  }

 private:
  explicit Connection(DBusConnection* raw) : raw_(raw) {}
  DBusConnection* raw_;
};

Status SetStatus(Connection& connection, const char* property, std::chrono::milliseconds timeout) {
  DBusMessage* message =
      dbus_message_new_method_call(kA11yBusName, kA11yBusPath, kPropertiesIface, "Set");
  if (message == nullptr) return MakeError(ErrorCode::kInternal, "out of memory");
  DBusMessageIter args;
  DBusMessageIter variant;
  dbus_message_iter_init_append(message, &args);
  const char* iface = kStatusIface;
  dbus_bool_t on = TRUE;
  dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &iface);
  dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &property);
  dbus_message_iter_open_container(&args, DBUS_TYPE_VARIANT, "b", &variant);
  dbus_message_iter_append_basic(&variant, DBUS_TYPE_BOOLEAN, &on);
  dbus_message_iter_close_container(&args, &variant);
  auto reply = connection.Call(message, timeout);
  if (!reply.ok()) return reply.error();
  dbus_message_unref(*reply);
  return OkStatus();
}

// Asks the launcher for the accessibility bus, which starts that bus and
// publishes its address on the X root window (AT_SPI_BUS) if it is not
// running yet.
Status StartA11yBus(Connection& connection, std::chrono::milliseconds timeout) {
  DBusMessage* message =
      dbus_message_new_method_call(kA11yBusName, kA11yBusPath, kA11yBusName, "GetAddress");
  if (message == nullptr) return MakeError(ErrorCode::kInternal, "out of memory");
  auto reply = connection.Call(message, timeout);
  if (!reply.ok()) return reply.error();
  dbus_message_unref(*reply);
  return OkStatus();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> AccessibilityEnvironment(bool libreoffice_gtk3) {
  std::vector<std::pair<std::string, std::string>> env = {
      // GTK 2 has no built-in bridge: gail (the widgets' ATK side) and
      // atk-bridge (ATK to AT-SPI) are modules it loads only when named here.
      // GTK 3 accepts both names as built in; GTK 4 ignores the variable.
      {"GTK_MODULES", "gail:atk-bridge"},
      // Older GNOME apps and GTK 2's libgnome check this before loading them.
      {"GNOME_ACCESSIBILITY", "1"},
      // Qt only talks AT-SPI when asked to, or when it sees a screen reader
      // (org.a11y.Status ScreenReaderEnabled, which Qt 5 reads at start-up).
      {"QT_ACCESSIBILITY", "1"},
      {"QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1"},
      // Chromium and Electron build their accessibility tree on this (and on
      // org.a11y.Status, set by EnableAccessibilityOnBus()).
      {"ACCESSIBILITY_ENABLED", "1"},
  };
  if (libreoffice_gtk3) {
    // LibreOffice picks its VCL plugin from the desktop it sees; on a bare
    // X11 session it takes `gen`, which has no AT-SPI bridge. The gtk3 plugin
    // exposes the document through ATK.
    env.emplace_back("SAL_USE_VCLPLUGIN", "gtk3");
  }
  return env;
}

bool LibreOfficeGtk3Installed() {
  for (const char* dir : {"/usr/lib/libreoffice/program", "/opt/libreoffice/program",
                          "/usr/lib64/libreoffice/program"}) {
    if (access((std::string(dir) + "/libvclplug_gtk3lo.so").c_str(), R_OK) == 0) return true;
  }
  return false;
}

std::vector<std::string> AccessibilityUnsetEnvironment() {
  // NO_AT_BRIDGE=1 and GTK_A11Y=none switch GTK's bridge off; a foreign
  // AT_SPI_BUS_ADDRESS would send the app's tree to another desktop's bus.
  return {"NO_AT_BRIDGE", "GTK_A11Y", "AT_SPI_BUS_ADDRESS"};
}

Status EnableAccessibilityOnBus(const std::string& bus_address, std::chrono::milliseconds timeout) {
  auto connection = Connection::Open(bus_address);
  if (!connection.ok()) return connection.error();
  // IsEnabled: GTK 4, Chromium and Electron. ScreenReaderEnabled: Qt 5 reads
  // only this one; Chromium takes it as "a screen reader is running".
  for (const char* property : {"IsEnabled", "ScreenReaderEnabled"}) {
    if (Status set = SetStatus(*connection, property, timeout); !set.ok()) return set;
  }
  // Setting the properties activates the launcher but not the bus it
  // launches. A Qt 5.15 app started in that state never registered: it sees
  // org.a11y.Bus and the properties on, asks GetAddress asynchronously, and
  // its bridge registers on the next event-loop turn, before that reply has
  // connected it to the bus ("Error in contacting registry: Not connected to
  // D-Bus server" under QDBUS_DEBUG=1); it never tries again. With the bus
  // running, its address is on the root window and Qt connects to it
  // synchronously while starting.
  return StartA11yBus(*connection, timeout);
}

Result<bool> ReadAccessibilityStatus(const std::string& bus_address, const std::string& property,
                                     std::chrono::milliseconds timeout) {
  auto connection = Connection::Open(bus_address);
  if (!connection.ok()) return connection.error();
  DBusMessage* message =
      dbus_message_new_method_call(kA11yBusName, kA11yBusPath, kPropertiesIface, "Get");
  if (message == nullptr) return MakeError(ErrorCode::kInternal, "out of memory");
  const char* iface = kStatusIface;
  const char* name = property.c_str();
  dbus_message_append_args(message, DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &name,
                           DBUS_TYPE_INVALID);
  auto reply = connection->Call(message, timeout);
  if (!reply.ok()) return reply.error();
  DBusMessageIter args;
  DBusMessageIter variant;
  dbus_bool_t value = FALSE;
  bool ok = dbus_message_iter_init(*reply, &args) &&
            dbus_message_iter_get_arg_type(&args) == DBUS_TYPE_VARIANT;
  if (ok) {
    dbus_message_iter_recurse(&args, &variant);
    ok = dbus_message_iter_get_arg_type(&variant) == DBUS_TYPE_BOOLEAN;
    if (ok) dbus_message_iter_get_basic(&variant, &value);
  }
  dbus_message_unref(*reply);
  if (!ok) return MakeError(ErrorCode::kUnavailable, "org.a11y.Status " + property + " is no bool");
  return value == TRUE;
}

std::string AccessibilityHintFor(std::string_view executable,
                                 const std::vector<std::string>& libraries) {
  const std::string exe(executable.substr(executable.rfind('/') + 1));
  const std::string later =
      "; for an app started outside `uiscope app launch`, `uiscope session a11y-on` prints the "
      "variables to export";
  // LibreOffice first: its gtk3 plugin maps GTK 3 too.
  if (exe == "soffice.bin" || exe == "soffice" || AnyLibrary(libraries, "libvclplug_") ||
      AnyLibrary(libraries, "libsofficeapp")) {
    if (AnyLibrary(libraries, "libvclplug_gtk3") || AnyLibrary(libraries, "libvclplug_kf5") ||
        AnyLibrary(libraries, "libvclplug_qt5")) {
      return "LibreOffice: its VCL plugin has a bridge but nothing registered; check that "
             "NO_AT_BRIDGE is unset and run `uiscope session a11y-on`";
    }
    return "LibreOffice runs its `gen` VCL plugin, which has no AT-SPI bridge: install "
           "libreoffice-gtk3 (Debian; libreoffice-kf5 for KDE) and start it with "
           "SAL_USE_VCLPLUGIN=gtk3" +
           later;
  }
  if (Contains(exe, "chrom") || Contains(exe, "electron") || AnyLibrary(libraries, "libcef") ||
      AnyLibrary(libraries, "libelectron")) {
    return "Chromium/Electron builds its accessibility tree only when it sees a screen reader: "
           "run `uiscope session a11y-on` (sets org.a11y.Status on the session bus) and start it "
           "with ACCESSIBILITY_ENABLED=1, or pass --force-renderer-accessibility";
  }
  if (AnyLibrary(libraries, "libgtk-x11-2.0")) {
    return "GTK 2 loads its accessibility bridge only as a module: start it with "
           "GTK_MODULES=gail:atk-bridge (Debian packages libgail-common and libatk-adaptor)" +
           later;
  }
  for (const char* qt : {"libQt5Core", "libQt6Core", "libQt4"}) {
    if (AnyLibrary(libraries, qt)) {
      return std::string(qt).substr(3, 3) +
             " talks AT-SPI only when asked: start it with QT_ACCESSIBILITY=1 "
             "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1, or run `uiscope session a11y-on` before it "
             "starts (Debian: qt-at-spi for Qt 4)" +
             later;
    }
  }
  if (AnyLibrary(libraries, "libgtk-3") || AnyLibrary(libraries, "libgtk-4")) {
    return std::string(AnyLibrary(libraries, "libgtk-4") ? "GTK 4" : "GTK 3") +
           " has its bridge built in: make sure NO_AT_BRIDGE and GTK_A11Y are unset, and that "
           "at-spi2-core is installed";
  }
  return "";
}

std::string AccessibilityHint(int pid) {
  if (pid <= 0) return "";
  const std::string proc = "/proc/" + std::to_string(pid);
  std::error_code error;
  const std::string exe = std::filesystem::read_symlink(proc + "/exe", error).string();
  std::ifstream maps(proc + "/maps");
  std::set<std::string> seen;
  for (std::string line; std::getline(maps, line);) {
    const size_t slash = line.find('/');
    if (slash != std::string::npos && Contains(line, ".so")) {
      seen.insert(line.substr(line.rfind('/') + 1));
    }
  }
  if (exe.empty() && seen.empty()) return "";
  return AccessibilityHintFor(exe, std::vector<std::string>(seen.begin(), seen.end()));
}

}  // namespace uiscope
