// The step worker (step_worker.hpp): a condition variable each way, the job's exception kept.
#include "step_worker.hpp"

#include <ode/ode.h>
#include <pthread.h>

#include <csignal>
#include <stdexcept>
#include <utility>

namespace sim_ode {

namespace {

// The thread takes no signals (Python's handlers run on the main thread; ODE's pool threads
// block them too): it is started with every signal blocked, and the caller's mask restored.
std::thread Unsignalled(std::function<void()> body) {
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  struct Restore {  // also when the thread cannot be started (std::system_error)
    sigset_t* mask;
    ~Restore() { pthread_sigmask(SIG_SETMASK, mask, nullptr); }
  } restore{&before};
  return std::thread(std::move(body));
}

}  // namespace

StepWorker::StepWorker() : thread_(Unsignalled([this] { Run(); })) {}

StepWorker::~StepWorker() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return !busy_; });
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void StepWorker::Start(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (busy_) throw std::logic_error("a step is already running");
    job_ = std::move(job);
    error_ = nullptr;
    busy_ = true;
  }
  wake_.notify_one();
}

void StepWorker::Settle() {
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return !busy_; });
}

void StepWorker::Finish() {
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return !busy_; });
    std::swap(error, error_);
  }
  if (error) std::rethrow_exception(error);
}

bool StepWorker::Busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return busy_;
}

void StepWorker::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || busy_; });
    if (stop_) {
      dCleanupODEAllDataForThread();  // what the steps allocated for this thread
      return;
    }
    std::function<void()> job = std::move(job_);
    lock.unlock();
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    busy_ = false;
    done_.notify_all();
  }
}

}  // namespace sim_ode
