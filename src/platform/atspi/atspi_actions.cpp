// Acting on elements through AT-SPI2 (DESIGN §7): actions (org.a11y.atspi.
// Action), replacing text (EditableText), setting values (Value) and moving
// the focus (Component), on the same connections as the tree walk (the
// app's private socket when it offers one).
//
// Each operation is one or two blocking calls with the caller's deadline:
// acting is not chatty the way a walk is, so there is nothing to pipeline
// beyond asking for the interfaces and the action list together.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <thread>

#include "core/ascii.h"
#include "platform/atspi/atspi_constants.h"
#include "platform/atspi/atspi_tree.h"

namespace uiscope::atspi {
namespace {

constexpr char kRootPath[] = "/org/a11y/atspi/accessible/root";
constexpr char kAccessibleIface[] = "org.a11y.atspi.Accessible";
constexpr char kActionIface[] = "org.a11y.atspi.Action";
constexpr char kEditableTextIface[] = "org.a11y.atspi.EditableText";
constexpr char kTextIface[] = "org.a11y.atspi.Text";
constexpr char kValueIface[] = "org.a11y.atspi.Value";
constexpr char kComponentIface[] = "org.a11y.atspi.Component";
constexpr char kPropertiesIface[] = "org.freedesktop.DBus.Properties";
constexpr char kSelectionIface[] = "org.a11y.atspi.Selection";

// Where ChooseOption looks for options below the element: a combo box's
// menu items sit one level down (GTK: combo > menu > item; Chromium:
// select > menu list popup > option), a list's items directly.
constexpr int kOptionDepth = 3;
constexpr size_t kMaxOptionNodes = 2000;
// How long a choice is given to read back before the next way is tried.
constexpr auto kChoiceReadBack = std::chrono::milliseconds(400);

bool IsReturn(DBusMessage* reply) {
  return reply != nullptr && dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_METHOD_RETURN;
}

std::string Describe(const Node& node) {
  std::string out(RoleName(node.role));
  if (!node.name.empty()) out += " \"" + node.name + "\"";
  if (!node.id.empty()) out += " (" + node.id + ")";
  return out;
}

// Maps a failed call to what the caller should do: a dead object is Stale.
Error CallError(const Error& error, const Node& node, const char* what) {
  if (error.code == ErrorCode::kNotFound) {
    return MakeError(ErrorCode::kStale, Describe(node) +
                                            " is gone from its application; observe again for "
                                            "current IDs");
  }
  if (error.code == ErrorCode::kTimeout) {
    // Name the application: the agent's remedy (wait, or close it) is
    // about the app, not the element.
    std::string app =
        (node.app.empty() ? std::string("the application") : "application " + node.app) +
        (node.pid > 0 ? " (pid " + std::to_string(node.pid) + ")" : "");
    return MakeError(ErrorCode::kTimeout, app + " is not answering: no reply to " +
                                              std::string(what) + " on " + Describe(node) + " (" +
                                              error.message +
                                              "). It is busy or hung: wait and retry, or close "
                                              "it (app_close)");
  }
  return MakeError(error.code,
                   std::string(what) + " on " + Describe(node) + " failed: " + error.message);
}

// The boolean an AT-SPI method answers with (DoAction, SetTextContents,
// GrabFocus); true when the reply carries none.
bool ReplyBool(DBusMessage* reply) {
  DBusMessageIter it;
  bool ok = true;
  if (dbus_message_iter_init(reply, &it)) ReadBool(&it, &ok);
  return ok;
}

std::vector<std::string> ParseActionNames(DBusMessage* r) {
  std::vector<std::string> names;
  DBusMessageIter it, arr;
  if (!IsReturn(r) || !dbus_message_iter_init(r, &it) ||
      dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_ARRAY) {
    return names;
  }
  dbus_message_iter_recurse(&it, &arr);
  while (dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT) {
    DBusMessageIter st;
    dbus_message_iter_recurse(&arr, &st);
    std::string name;
    ReadString(&st, &name);
    names.push_back(AsciiLower(name));  // keep the index even for an unnamed action
    dbus_message_iter_next(&arr);
  }
  return names;
}

// Fills the names GetActions left empty with Action.GetName, pipelined:
// GetActions answers with localised names, and Chromium localises none
// (its check box answers ("", ...) for "check"), while GetName gives the
// action's own name. Names still unknown stay empty.
void NameUnnamedActions(DbusConnection& conn, const BackendRef& ref,
                        std::vector<std::string>* names, Clock::time_point deadline) {
  if (std::none_of(names->begin(), names->end(), [](const auto& n) { return n.empty(); })) return;
  DbusConnection::Pipeline pipeline(conn);
  for (size_t i = 0; i < names->size(); ++i) {
    if (!(*names)[i].empty()) continue;
    MessagePtr m = NewMethodCall(ref.owner, ref.path, kActionIface, "GetName");
    int32_t index = static_cast<int32_t>(i);
    dbus_message_append_args(m.get(), DBUS_TYPE_INT32, &index, DBUS_TYPE_INVALID);
    pipeline.Add(std::move(m), [names, i](DBusMessage* r) {
      DBusMessageIter it;
      std::string name;
      if (IsReturn(r) && dbus_message_iter_init(r, &it) && ReadString(&it, &name)) {
        (*names)[i] = AsciiLower(name);
      }
    });
  }
  (void)pipeline.Run(deadline);
}

std::vector<std::string> Interfaces(DBusMessage* r) {
  std::vector<std::string> out;
  DBusMessageIter it;
  if (IsReturn(r) && dbus_message_iter_init(r, &it)) ReadStringArray(&it, &out);
  return out;
}

bool Has(const std::vector<std::string>& ifaces, const char* name) {
  return std::find(ifaces.begin(), ifaces.end(), name) != ifaces.end();
}

std::string JoinActions(const std::vector<std::string>& actions) {
  std::string out;
  for (const auto& a : actions) {
    if (a.empty()) continue;
    if (!out.empty()) out += ", ";
    out += a;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

Result<DbusConnection*> AtspiAccessibility::ConnectionForNode(const Node& node,
                                                              Clock::time_point deadline) {
  if (node.ref.empty() || node.ref.owner.empty()) {
    return MakeError(ErrorCode::kStale, Describe(node) +
                                            " carries no accessibility reference (it did not "
                                            "come from the accessibility tree)");
  }
  AppHandle app;
  app.info.bus_name = node.ref.owner;
  app.root = ObjectRef{node.ref.owner, kRootPath};
  return &ConnectionFor(app, deadline);
}

Result<ElementCapabilities> AtspiAccessibility::Capabilities(const Node& node,
                                                             std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  auto conn = ConnectionForNode(node, deadline);
  if (!conn.ok()) return conn.error();
  const BackendRef& ref = node.ref;
  ElementCapabilities caps;
  std::vector<std::string> ifaces;
  bool answered = false;
  bool dead = false;
  {
    DbusConnection::Pipeline pipeline(**conn);
    pipeline.Add(NewMethodCall(ref.owner, ref.path, kAccessibleIface, "GetInterfaces"),
                 [&](DBusMessage* r) {
                   answered = IsReturn(r);
                   dead = IsDeadObjectError(r);
                   ifaces = Interfaces(r);
                 });
    Status st = pipeline.Run(deadline);
    if (!answered) {
      if (dead) return CallError(MakeError(ErrorCode::kNotFound, ""), node, "GetInterfaces");
      return CallError(st.ok() ? MakeError(ErrorCode::kInternal, "no interface list") : st.error(),
                       node, "GetInterfaces");
    }
  }
  caps.editable_text = Has(ifaces, kEditableTextIface);
  caps.text = Has(ifaces, kTextIface);
  caps.component = Has(ifaces, kComponentIface);
  caps.value = Has(ifaces, kValueIface);
  // Only interfaces the object has are asked (GTK logs a CRITICAL for a
  // call on a missing one), all at once.
  DbusConnection::Pipeline pipeline(**conn);
  if (Has(ifaces, kActionIface)) {
    pipeline.Add(NewMethodCall(ref.owner, ref.path, kActionIface, "GetActions"),
                 [&](DBusMessage* r) { caps.actions = ParseActionNames(r); });
  }
  if (caps.value) {
    // One Properties.Get per property, never GetAll: Qt 5's bridge reads a
    // property name from every Properties call and crashes on GetAll (see
    // Quirks() in atspi_tree.cpp). Pipelined, four cost one round trip.
    const std::pair<const char*, double*> kProps[] = {{"CurrentValue", &caps.current},
                                                      {"MinimumValue", &caps.minimum},
                                                      {"MaximumValue", &caps.maximum},
                                                      {"MinimumIncrement", &caps.increment}};
    for (const auto& prop : kProps) {
      MessagePtr m = NewMethodCall(ref.owner, ref.path, kPropertiesIface, "Get");
      const char* iface = kValueIface;
      const char* name = prop.first;
      double* out = prop.second;  // a structured binding cannot be captured before clang 16
      dbus_message_append_args(m.get(), DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &name,
                               DBUS_TYPE_INVALID);
      pipeline.Add(std::move(m), [out](DBusMessage* r) {
        DBusMessageIter it;
        if (IsReturn(r) && dbus_message_iter_init(r, &it)) ReadVariantDouble(&it, out);
      });
    }
  }
  if (Status st = pipeline.Run(deadline); !st.ok()) return CallError(st.error(), node, "reading");
  NameUnnamedActions(**conn, ref, &caps.actions, deadline);
  return caps;
}

Status AtspiAccessibility::DoAction(const Node& node, std::string_view action,
                                    std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  auto conn = ConnectionForNode(node, deadline);
  NoteActedOn(node);
  if (!conn.ok()) return conn.error();
  const BackendRef& ref = node.ref;
  auto left = [&] { return std::chrono::milliseconds(std::max(1, RemainingMs(deadline))); };
  auto ifaces_reply =
      (*conn)->Call(NewMethodCall(ref.owner, ref.path, kAccessibleIface, "GetInterfaces"), left());
  if (!ifaces_reply.ok()) return CallError(ifaces_reply.error(), node, "GetInterfaces");
  if (!Has(Interfaces(ifaces_reply->get()), kActionIface)) {
    return MakeError(ErrorCode::kUnsupported,
                     Describe(node) +
                         " offers no accessibility actions; act on it with input "
                         "(via xtest)");
  }
  auto actions_reply =
      (*conn)->Call(NewMethodCall(ref.owner, ref.path, kActionIface, "GetActions"), left());
  if (!actions_reply.ok()) return CallError(actions_reply.error(), node, "GetActions");
  std::vector<std::string> names = ParseActionNames(actions_reply->get());
  NameUnnamedActions(**conn, ref, &names, deadline);
  const std::string wanted = AsciiLower(std::string(action));
  auto it = std::find(names.begin(), names.end(), wanted);
  if (it == names.end()) {
    return MakeError(ErrorCode::kNotFound, Describe(node) + " has no action \"" +
                                               std::string(action) +
                                               "\" (its actions: " + JoinActions(names) + ")");
  }
  MessagePtr call = NewMethodCall(ref.owner, ref.path, kActionIface, "DoAction");
  int32_t index = static_cast<int32_t>(it - names.begin());
  dbus_message_append_args(call.get(), DBUS_TYPE_INT32, &index, DBUS_TYPE_INVALID);
  auto reply = (*conn)->Call(std::move(call), left());
  if (!reply.ok()) return CallError(reply.error(), node, ("action \"" + wanted + "\"").c_str());
  if (!ReplyBool(reply->get())) {
    return MakeError(ErrorCode::kInternal, "the application refused action \"" + wanted + "\" on " +
                                               Describe(node) + " (disabled or not showing?)");
  }
  return OkStatus();
}

Status AtspiAccessibility::SetText(const Node& node, std::string_view text,
                                   std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  auto conn = ConnectionForNode(node, deadline);
  NoteActedOn(node);
  if (!conn.ok()) return conn.error();
  const BackendRef& ref = node.ref;
  auto left = [&] { return std::chrono::milliseconds(std::max(1, RemainingMs(deadline))); };
  auto ifaces_reply =
      (*conn)->Call(NewMethodCall(ref.owner, ref.path, kAccessibleIface, "GetInterfaces"), left());
  if (!ifaces_reply.ok()) return CallError(ifaces_reply.error(), node, "GetInterfaces");
  if (!Has(Interfaces(ifaces_reply->get()), kEditableTextIface)) {
    return MakeError(ErrorCode::kUnsupported,
                     Describe(node) +
                         " has no editable text; type into it with input (via "
                         "xtest)");
  }
  MessagePtr call = NewMethodCall(ref.owner, ref.path, kEditableTextIface, "SetTextContents");
  std::string copy(text);
  const char* s = copy.c_str();
  dbus_message_append_args(call.get(), DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID);
  auto reply = (*conn)->Call(std::move(call), left());
  if (!reply.ok()) return CallError(reply.error(), node, "SetTextContents");
  if (!ReplyBool(reply->get())) {
    return MakeError(ErrorCode::kInternal, "the application refused to set the text of " +
                                               Describe(node) + " (read-only?)");
  }
  return OkStatus();
}

Status AtspiAccessibility::SetValue(const Node& node, double value,
                                    std::chrono::milliseconds timeout) {
  if (!std::isfinite(value)) {
    return MakeError(ErrorCode::kInvalidArgument, "the value must be a finite number");
  }
  const auto deadline = Clock::now() + timeout;
  auto conn = ConnectionForNode(node, deadline);
  NoteActedOn(node);
  if (!conn.ok()) return conn.error();
  const BackendRef& ref = node.ref;
  MessagePtr call = NewMethodCall(ref.owner, ref.path, kPropertiesIface, "Set");
  {
    const char* iface = kValueIface;
    const char* prop = "CurrentValue";
    DBusMessageIter it, var;
    dbus_message_iter_init_append(call.get(), &it);
    dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &iface);
    dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &prop);
    dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, "d", &var);
    dbus_message_iter_append_basic(&var, DBUS_TYPE_DOUBLE, &value);
    dbus_message_iter_close_container(&it, &var);
  }
  auto reply =
      (*conn)->Call(std::move(call), std::chrono::milliseconds(std::max(1, RemainingMs(deadline))));
  if (!reply.ok()) return CallError(reply.error(), node, "setting the value");
  return OkStatus();
}

Status AtspiAccessibility::GrabFocus(const Node& node, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  auto conn = ConnectionForNode(node, deadline);
  NoteActedOn(node);
  if (!conn.ok()) return conn.error();
  const BackendRef& ref = node.ref;
  auto reply = (*conn)->Call(NewMethodCall(ref.owner, ref.path, kComponentIface, "GrabFocus"),
                             std::chrono::milliseconds(std::max(1, RemainingMs(deadline))));
  if (!reply.ok()) return CallError(reply.error(), node, "GrabFocus");
  if (!ReplyBool(reply->get())) {
    return MakeError(ErrorCode::kInternal,
                     Describe(node) +
                         " did not take the focus (not focusable, or its window is "
                         "not active)");
  }
  return OkStatus();
}

// Chooses an option among the element's descendants (up to kOptionDepth
// levels, kMaxOptionNodes objects), named `option` exactly, else the same
// but for ASCII case. The ways, in order, each read back before the next:
//   1. the element's Selection.SelectChild(the option's index among its
//      siblings): GTK's combo box sets its active item this way;
//   2. the Selection of the option's parent: Chromium's menu list popup
//      does the option's default action (GTK's menu only highlights an
//      item, which does not read back, hence after 1);
//   3. the option's own action (click, press, activate, select).
// Read back: the element is named by the option (GTK names a combo box by
// its chosen item), or the option is in state selected. Never input: a
// select-all or typed keys land on whatever has the focus.
Result<std::string> AtspiAccessibility::ChooseOption(const Node& node, std::string_view option,
                                                     std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  auto conn = ConnectionForNode(node, deadline);
  NoteActedOn(node);
  if (!conn.ok()) return conn.error();
  const std::string& owner = node.ref.owner;
  struct Item {
    std::string path;
    std::string name;
    int parent = -1;
    int index = 0;  // among its parent's children
    int depth = 0;
  };
  std::vector<Item> items = {{node.ref.path, node.name, -1, 0, 0}};
  for (size_t level = 0; level < items.size();) {
    const size_t level_end = items.size();
    {
      DbusConnection::Pipeline pipeline(**conn);
      for (size_t i = level; i < level_end; ++i) {
        if (items[i].depth >= kOptionDepth) continue;
        pipeline.Add(NewMethodCall(owner, items[i].path, kAccessibleIface, "GetChildren"),
                     [&items, i](DBusMessage* r) {
                       DBusMessageIter it, arr;
                       if (!IsReturn(r) || !dbus_message_iter_init(r, &it) ||
                           dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_ARRAY) {
                         return;
                       }
                       dbus_message_iter_recurse(&it, &arr);
                       ObjectRef child;
                       for (int index = 0;
                            dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT &&
                            items.size() < kMaxOptionNodes;
                            ++index) {
                         if (!ReadObjectRef(&arr, &child)) break;
                         // Self-parents and loops: untrusted data.
                         if (child.IsNull() || child.path == items[i].path) continue;
                         items.push_back(
                             {child.path, "", static_cast<int>(i), index, items[i].depth + 1});
                       }
                     });
      }
      if (Status st = pipeline.Run(deadline); !st.ok()) {
        return CallError(st.error(), node, "listing the options");
      }
    }
    level = level_end;
    DbusConnection::Pipeline names(**conn);
    for (size_t i = level; i < items.size(); ++i) {
      MessagePtr m = NewMethodCall(owner, items[i].path, kPropertiesIface, "Get");
      const char* iface = kAccessibleIface;
      const char* prop = "Name";
      dbus_message_append_args(m.get(), DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &prop,
                               DBUS_TYPE_INVALID);
      names.Add(std::move(m), [&items, i](DBusMessage* r) {
        DBusMessageIter it;
        if (IsReturn(r) && dbus_message_iter_init(r, &it)) ReadVariantString(&it, &items[i].name);
      });
    }
    if (Status st = names.Run(deadline); !st.ok()) {
      return CallError(st.error(), node, "reading the options' names");
    }
  }
  auto named = [&](bool fold) -> int {
    for (size_t i = 1; i < items.size(); ++i) {
      if (fold ? AsciiLower(items[i].name) == AsciiLower(std::string(option))
               : items[i].name == option) {
        return static_cast<int>(i);
      }
    }
    return -1;
  };
  int found = named(false);
  if (found < 0) found = named(true);
  if (found < 0) {
    std::string listed;
    int count = 0;
    for (size_t i = 1; i < items.size() && count < 20; ++i) {
      if (items[i].name.empty()) continue;
      listed += (listed.empty() ? "\"" : ", \"") + items[i].name + "\"";
      ++count;
    }
    return MakeError(ErrorCode::kNotFound,
                     Describe(node) + " has no option \"" + std::string(option) + "\"" +
                         (listed.empty() ? std::string(" (it lists none)")
                                         : " (its options: " + listed + ")"));
  }
  const Item& chosen = items[found];
  auto left = [&] { return std::chrono::milliseconds(std::max(1, RemainingMs(deadline))); };
  auto reads_chosen = [&]() -> bool {
    bool yes = false;
    DbusConnection::Pipeline pipeline(**conn);
    MessagePtr m = NewMethodCall(owner, node.ref.path, kPropertiesIface, "Get");
    const char* iface = kAccessibleIface;
    const char* prop = "Name";
    dbus_message_append_args(m.get(), DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &prop,
                             DBUS_TYPE_INVALID);
    pipeline.Add(std::move(m), [&](DBusMessage* r) {
      DBusMessageIter it;
      std::string name;
      if (IsReturn(r) && dbus_message_iter_init(r, &it) && ReadVariantString(&it, &name)) {
        yes = yes || name == chosen.name;
      }
    });
    pipeline.Add(NewMethodCall(owner, chosen.path, kAccessibleIface, "GetState"),
                 [&](DBusMessage* r) {
                   DBusMessageIter it, arr;
                   if (!IsReturn(r) || !dbus_message_iter_init(r, &it) ||
                       dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_ARRAY) {
                     return;
                   }
                   dbus_message_iter_recurse(&it, &arr);
                   uint32_t lo = 0, hi = 0;
                   ReadUint32(&arr, &lo);
                   ReadUint32(&arr, &hi);
                   yes = yes || HasState(lo, hi, StateBit::kSelected);
                 });
    (void)pipeline.Run(deadline);
    return yes;
  };
  auto settled_on_choice = [&]() -> bool {
    const auto until = std::min(deadline, Clock::now() + kChoiceReadBack);
    while (true) {
      if (reads_chosen()) return true;
      if (Clock::now() >= until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  const std::string what = "option \"" + chosen.name + "\"";
  if (reads_chosen()) return what + " was already chosen";
  auto interfaces = [&](const std::string& path) {
    auto reply = (*conn)->Call(NewMethodCall(owner, path, kAccessibleIface, "GetInterfaces"), left());
    return reply.ok() ? Interfaces(reply->get()) : std::vector<std::string>{};
  };
  auto select_child = [&](const std::string& path, int index) -> bool {
    if (!Has(interfaces(path), kSelectionIface)) return false;
    MessagePtr call = NewMethodCall(owner, path, kSelectionIface, "SelectChild");
    int32_t i = index;
    dbus_message_append_args(call.get(), DBUS_TYPE_INT32, &i, DBUS_TYPE_INVALID);
    auto reply = (*conn)->Call(std::move(call), left());
    return reply.ok() && IsReturn(reply->get()) && ReplyBool(reply->get());
  };
  if (chosen.parent != 0 && select_child(node.ref.path, chosen.index) && settled_on_choice()) {
    return what + " through the element's Selection";
  }
  if (select_child(items[chosen.parent].path, chosen.index) && settled_on_choice()) {
    return what + " through " + (chosen.parent == 0 ? "the element's" : "its list's") +
           " Selection";
  }
  if (Has(interfaces(chosen.path), kActionIface)) {
    Node option_node;
    option_node.name = chosen.name;
    option_node.ref = BackendRef{owner, chosen.path};
    option_node.app = node.app;
    option_node.pid = node.pid;
    for (const char* action : {"click", "press", "activate", "select"}) {
      if (!DoAction(option_node, action, left()).ok()) continue;
      if (settled_on_choice()) return what + " by its action \"" + action + "\"";
      break;
    }
  }
  return MakeError(ErrorCode::kUnsupported,
                   "choosing " + what + " of " + Describe(node) +
                       " did not take: neither its Selection nor the option's action made it "
                       "read back as chosen");
}

}  // namespace uiscope::atspi
