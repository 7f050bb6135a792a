#include "mcp/worker_pool.h"

#include <utility>

namespace uiscope::mcp {

WorkerPool::WorkerPool(int threads, int max_queue) : max_queue_(max_queue) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

WorkerPool::~WorkerPool() { Shutdown(); }

bool WorkerPool::TryPost(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (shutdown_) return false;
    if (static_cast<int>(jobs_.size()) >= idle_ + max_queue_) return false;
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void WorkerPool::Shutdown() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard lock(mutex_);
    if (shutdown_) return;
    shutdown_ = true;
    dropped.swap(jobs_);
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::Work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    ++idle_;
    wake_.wait(lock, [&] { return shutdown_ || !jobs_.empty(); });
    --idle_;
    if (shutdown_) return;
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // what it holds (a connection, a session) goes now
    lock.lock();
  }
}

}  // namespace uiscope::mcp
