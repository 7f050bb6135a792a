// A fixed set of threads that refuses work it cannot start soon, instead of
// queueing it without bound: TryPost is false when `max_queue` jobs already
// wait (max_queue 0: unless a thread is idle now). The HTTP server
// (mcp/http_server.h) runs requests and tool calls on two of them and answers
// 503 with Retry-After when TryPost refuses.
//
// Thread safety: TryPost may be called from any thread, a job included;
// Shutdown from any thread but one of the pool's own (it joins them).
// Ownership: a job (and what its closure holds: a connection, a
// session) is destroyed on the worker as soon as it has run, or in Shutdown
// when it never started.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace uiscope::mcp {

class WorkerPool {
 public:
  WorkerPool(int threads, int max_queue);
  ~WorkerPool();  // Shutdown()

  bool TryPost(std::function<void()> job);

  // Drops jobs not started and waits for those running.
  void Shutdown();

 private:
  void Work();

  const int max_queue_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  int idle_ = 0;
  bool shutdown_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace uiscope::mcp
