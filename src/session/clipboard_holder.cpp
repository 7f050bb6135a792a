#include "session/clipboard_holder.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string_view>

#include "session/process.h"

namespace uiscope {
namespace {

using std::chrono::milliseconds;

constexpr char kHolderVariable[] = "UISCOPE_CLIPBOARD_HOLDER";
constexpr char kHolderName[] = "uiscope-clipboard-holder";

// Writes all of `text` to `fd`, retrying short writes.
void WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text.remove_prefix(static_cast<size_t>(n));
  }
}

// Reads exactly `n` bytes from `fd` (false at end of file or an error).
bool ReadExactly(int fd, size_t n, std::string* out) {
  out->resize(n);
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, out->data() + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

bool ReadHeader(int fd, std::string* line) {
  char c;
  while (line->size() < 4096) {
    ssize_t r = read(fd, &c, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    if (c == '\n') return true;
    *line += c;
  }
  return false;
}

void Report(std::string_view line) { WriteAll(STDOUT_FILENO, std::string(line) + "\n"); }

// The holder's whole life; see clipboard_holder.h.
int RunHolder() {
  // Exec'd through /proc/self/exe its name would read "exe": the name the
  // owner of a selection goes by (clipboard get, the deny list) says what it is.
  prctl(PR_SET_NAME, "uiscope-clip", 0, 0, 0);
  signal(SIGHUP, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  std::string header;
  if (!ReadHeader(STDIN_FILENO, &header)) {
    Report("error no header on stdin");
    return 1;
  }
  nlohmann::json h = nlohmann::json::parse(header, nullptr, false);
  if (h.is_discarded() || !h.is_object()) {
    Report("error unreadable header");
    return 1;
  }
  const std::string display = h.value("display", "");
  const size_t size = h.value("bytes", size_t{0});
  const long hold_s = h.value("hold_s", 0L);
  auto selection = ParseSelection(h.value("selection", ""));
  ClipboardData data;
  data.mime = h.value("mime", "");
  if (!selection.ok() || size > kClipboardMaxBytes || hold_s <= 0) {
    Report("error bad header: " + header);
    return 1;
  }
  if (!ReadExactly(STDIN_FILENO, size, &data.bytes)) {
    Report("error the content ended early");
    return 1;
  }
  // Nothing more comes; stdin stays /dev/null (a read must never block).
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);

  // Double fork: the spawned process exits now (its parent reaps it); the
  // holder, its child, is no session leader and belongs to nobody's wait().
  const pid_t child = fork();
  if (child < 0) {
    Report("error fork failed");
    return 1;
  }
  if (child > 0) return 0;

  auto clipboard = OpenX11Clipboard(display);
  if (!clipboard.ok()) {
    Report("error " + clipboard.error().message);
    return 1;
  }
  if (Status owned = (*clipboard)->Own(*selection, std::move(data)); !owned.ok()) {
    Report("error " + owned.error().message);
    return 1;
  }
  Report("ok " + std::to_string(getpid()));
  if (null_fd >= 0) dup2(null_fd, STDOUT_FILENO);  // the starter stops reading
  auto end = (*clipboard)->Serve(std::chrono::steady_clock::now() + std::chrono::seconds(hold_s));
  std::cerr << kHolderName << " " << getpid() << ": "
            << (end.ok() ? std::string(ServeEndName(*end)) : end.error().ToString()) << "\n";
  return 0;
}

// Runs before main() in every program that links this file (see
// clipboard_holder.h); does nothing unless this process was started as a
// holder.
__attribute__((constructor)) void RunClipboardHolderIfAsked() {
  const char* role = std::getenv(kHolderVariable);
  if (role == nullptr || std::string_view(role) != "1") return;
  unsetenv(kHolderVariable);
  int code = 1;
  try {
    code = RunHolder();
  } catch (const std::exception& e) {
    Report(std::string("error ") + e.what());
  }
  std::cerr.flush();
  // Not exit(): the program's static objects were never meant to run here.
  _exit(code);
}

}  // namespace

Result<int> StartClipboardHolder(const ClipboardHoldRequest& request) {
  if (request.data.bytes.size() > kClipboardMaxBytes) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the content (" + std::to_string(request.data.bytes.size()) +
                         " bytes) is larger than the clipboard limit of " +
                         std::to_string(kClipboardMaxBytes) + " bytes");
  }
  if (request.hold_for < std::chrono::seconds(1) || request.hold_for > kClipboardHoldLimit) {
    return MakeError(ErrorCode::kInvalidArgument, "the clipboard is held between 1 s and " +
                                                      std::to_string(kClipboardHoldLimit.count()) +
                                                      " h");
  }
  SpawnOptions options;
  options.executable = "/proc/self/exe";
  options.argv = {kHolderName, request.display, std::string(SelectionName(request.selection))};
  options.env = {{kHolderVariable, "1"}, {"DISPLAY", request.display}};
  options.pipe_stdin = true;
  options.capture_stdout = true;
  if (request.session != nullptr && !request.session->runtime_dir.empty()) {
    options.log_file = request.session->runtime_dir + "/clipboard-holder.log";
  }
  auto process = request.session != nullptr ? SpawnInSession(*request.session, options)
                                            : Process::Spawn(options);
  if (!process.ok()) {
    return MakeError(process.error().code,
                     "cannot start the clipboard holder: " + process.error().message);
  }
  Process& p = **process;
  const nlohmann::json header = {{"display", request.display},
                                 {"selection", SelectionName(request.selection)},
                                 {"mime", request.data.mime},
                                 {"bytes", request.data.bytes.size()},
                                 {"hold_s", request.hold_for.count()}};
  if (Status st = p.WriteLine(header.dump()); !st.ok()) return st.error();
  if (Status st = p.WriteLine(request.data.bytes); !st.ok()) return st.error();
  p.CloseStdin();
  auto line = p.ReadLine(request.timeout);
  if (!line.ok()) {
    const std::string log = options.log_file.empty() ? "" : "\n" + FileTail(options.log_file, 5);
    return MakeError(
        line.error().code == ErrorCode::kTimeout ? ErrorCode::kTimeout : ErrorCode::kInternal,
        "the clipboard holder did not report: " + line.error().message + log);
  }
  // The spawned process exits right after its fork; reap it. The holder
  // itself must outlive `p`: Release() keeps the destructor from signalling
  // the process group they share.
  Result<int> exited = p.Wait(milliseconds(2000));
  (void)exited;
  p.Release();
  if (line->starts_with("ok ")) return std::atoi(line->c_str() + 3);
  const std::string message = line->starts_with("error ") ? line->substr(6) : *line;
  return MakeError(ErrorCode::kUnavailable, "the clipboard holder failed: " + message);
}

}  // namespace uiscope
