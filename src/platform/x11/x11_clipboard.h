// X11Clipboard: the Clipboard interface (platform/clipboard.h) over ICCCM
// selections, through its own X connection and an unmapped window of its
// own (WM_CLASS "uiscope-clipboard", _NET_WM_PID set).
//
// Reading: XConvertSelection into a property of our window, then the
// property, or the INCR protocol when the owner sends it in pieces (ICCCM
// §2.7.2). Writing: SelectionRequest answered by setting the requestor's
// property, or by INCR for content above kIncrThreshold (and above what
// one request may carry); MULTIPLE requests convert each pair they list.
//
// Every wait polls the connection's socket with the time left, so no call
// blocks past its deadline whatever the other client does.
//
// Thread safety: none; one instance per thread (Xlib without XInitThreads).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platform/clipboard.h"
#include "platform/x11/x11_display.h"

union _XEvent;

namespace uiscope::x11 {

// Content above this is sent by INCR in kIncrChunk pieces (xclip and GTK
// use pieces of a few tens of KiB; one piece must fit one X request).
inline constexpr size_t kIncrThreshold = 256 * 1024;
inline constexpr size_t kIncrChunk = 64 * 1024;
// An INCR transfer whose requestor took no piece for this long is dropped.
inline constexpr std::chrono::seconds kIncrStall{10};

class X11Clipboard final : public Clipboard {
 public:
  static Result<std::unique_ptr<X11Clipboard>> Open(const std::string& display);
  ~X11Clipboard() override;

  Result<ClipboardOwner> Owner(Selection selection) override;
  Result<std::vector<std::string>> Targets(Selection selection,
                                           std::chrono::milliseconds timeout) override;
  Result<ClipboardData> Get(Selection selection, std::string_view mime,
                            std::chrono::milliseconds timeout, size_t max_bytes) override;
  Status Own(Selection selection, ClipboardData data) override;
  Result<ServeEnd> Serve(std::chrono::steady_clock::time_point until) override;

 private:
  struct Transfer;  // an INCR transfer being served
  using Deadline = std::chrono::steady_clock::time_point;

  X11Clipboard(std::unique_ptr<X11Display> display, unsigned long window);
  unsigned long Intern(const char* name) const;
  unsigned long SelectionAtom(Selection selection) const;
  std::string AtomName(unsigned long atom) const;
  std::string Describe(Selection selection, const ClipboardOwner& owner) const;

  // Waits for an event `match` accepts, handing every other event to
  // Dispatch() (requests for what we own). False at the deadline or when
  // the display is gone.
  bool WaitFor(Deadline deadline, const std::function<bool(const _XEvent&)>& match, _XEvent* out);
  void Dispatch(const _XEvent& event);
  void Answer(const _XEvent& request);
  // Writes `target` of what we own into `property` of `requestor` (TARGETS,
  // TIMESTAMP, the content's types; INCR when large); false when refused.
  bool ConvertInto(unsigned long requestor, unsigned long target, unsigned long property);
  // A MULTIPLE request (ICCCM §2.6.2): each (target, property) pair of
  // `property` converted, refused ones set to None in the list written
  // back; false when the property holds no pairs.
  bool ConvertPairs(unsigned long requestor, unsigned long property);
  void Continue(const _XEvent& property_event);
  void DropStalled();

  // Asks the owner for `target` into our property; the bytes, or nullopt
  // when the owner refused the target. Errors: Timeout, InvalidArgument
  // (over max_bytes), Unavailable (display gone).
  Result<std::optional<std::string>> Convert(Selection selection, unsigned long target,
                                             Deadline deadline, size_t max_bytes,
                                             const std::string& who);
  Result<unsigned long> ServerTime(Deadline deadline);

  std::unique_ptr<X11Display> display_;
  unsigned long window_;
  // What Own() offers.
  std::optional<Selection> owned_;
  ClipboardData data_;
  unsigned long owned_since_ = 0;  // server time of the ownership
  bool lost_ = false;
  std::vector<std::unique_ptr<Transfer>> transfers_;
  size_t max_piece_ = kIncrThreshold;  // what one property write may carry
  // Bumped when a transfer into our property is given up (over the limit,
  // out of time): its owner may still write a piece there whenever the
  // property is deleted, so later requests use a property of another name.
  int property_generation_ = 0;
};

}  // namespace uiscope::x11
