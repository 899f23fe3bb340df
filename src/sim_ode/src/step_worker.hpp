// One job at a time on a thread of its own: what lets the loop send the agents their
// perceptions while ODE steps (rcssserver3d's order: sense, then step while the agents think).
//
// Why a thread kept for the world's life rather than one per step: starting a thread costs tens
// of microseconds, a tenth of a one-robot step; handing a job to a waiting thread costs a few.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace sim_ode {

class StepWorker {
 public:
  StepWorker();
  ~StepWorker();  // waits for the job in hand, then ends the thread
  StepWorker(const StepWorker&) = delete;
  StepWorker& operator=(const StepWorker&) = delete;

  // Hands `job` to the thread; std::logic_error while the last one is not finished.
  void Start(std::function<void()> job);
  // Blocks until the job in hand (if any) is done; what it threw is kept for Finish.
  void Settle();
  // Settle, then rethrows what the job threw (once).
  void Finish();
  bool Busy() const;

 private:
  void Run();
  mutable std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::function<void()> job_;
  bool busy_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace sim_ode
