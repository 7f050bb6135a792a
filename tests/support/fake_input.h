// FakeInput (tests only): an Input that records every call as a line of
// text ("click left 431,268 x1", "chord ctrl+a", "type Grüße") instead of
// sending events, and can run a hook on each, so a test can make the fake
// desktop react the way an app would.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "platform/input.h"

namespace uiscope::test {

class FakeInput final : public Input {
 public:
  // Called after each call is recorded, with its line.
  std::function<void(const std::string&)> on_event;
  // The next call fails with this error (then it is cleared).
  std::optional<Error> fail_next;

  const std::vector<std::string>& events() const { return events_; }
  void clear() { events_.clear(); }
  Point pointer() const { return pointer_; }

  // As the X11 backend: the engine's tests expect its results.
  std::string_view kind() const override { return "xtest"; }

  Status MovePointer(Point to) override {
    pointer_ = to;
    return Record("move " + P(to));
  }
  Result<Point> PointerPosition() override { return pointer_; }
  Status PressButton(MouseButton b) override {
    return Record("press " + std::string(MouseButtonName(b)));
  }
  Status ReleaseButton(MouseButton b) override {
    return Record("release " + std::string(MouseButtonName(b)));
  }
  Status Click(Point at, MouseButton b, int count) override {
    pointer_ = at;
    return Record("click " + std::string(MouseButtonName(b)) + " " + P(at) + " x" +
                  std::to_string(count));
  }
  Status Scroll(Point at, int dx, int dy) override {
    pointer_ = at;
    return Record("scroll " + P(at) + " dx=" + std::to_string(dx) + " dy=" + std::to_string(dy));
  }
  Status Drag(Point from, Point to, MouseButton b) override {
    pointer_ = to;
    return Record("drag " + std::string(MouseButtonName(b)) + " " + P(from) + " " + P(to));
  }
  Status PressChord(const KeyChord& chord) override { return Record("chord " + chord.text); }
  using Input::TypeText;
  Status TypeText(std::string_view utf8, const TypeOptions&) override {
    if (auto syms = KeysymsForText(utf8); !syms.ok()) return syms.error();
    return Record("type " + std::string(utf8));
  }

 private:
  static std::string P(Point p) { return std::to_string(p.x) + "," + std::to_string(p.y); }
  Status Record(std::string line) {
    if (fail_next) {
      Error e = *fail_next;
      fail_next.reset();
      return e;
    }
    events_.push_back(line);
    if (on_event) on_event(line);
    return OkStatus();
  }

  std::vector<std::string> events_;
  Point pointer_{0, 0};
};

}  // namespace uiscope::test
