// Why: ODE steps independent islands on its thread pool, which is what makes a 22-robot step
// faster on 2 cores, but it also lends spare pool threads to the inside of one island, where
// four stages hand out bodies and joints to whichever thread asks first. One of them links each
// body's joints into a list by lock-free prepends, and the constraint forces are summed in that
// list's order: with two threads in one island the order, so the last bit of a body's velocity,
// depends on timing (measured: 1-ULP differences on one link that spread to the whole robot).
// These threads are ODE's own multi-threaded implementation and pool with those helper calls
// made empty: the thread that owns an island runs each stage over all of its items, as on one
// thread, while whole islands still run side by side, so the state is the one-thread state bit
// for bit. And every call runs inside a fault boundary: ODE's error handlers throw, and an
// exception leaving a pool thread would end the process; here it fails the step instead.
#pragma once

#include <ode/ode.h>

#include <mutex>
#include <string>

namespace sim_ode {

class IslandThreads {
 public:
  // n pool threads (2..16) serving ODE's multi-threaded implementation; throws std::runtime_error.
  explicit IslandThreads(unsigned n);
  ~IslandThreads();
  IslandThreads(const IslandThreads&) = delete;
  IslandThreads& operator=(const IslandThreads&) = delete;

  // Steps `world`'s islands on these threads (until the world is given other threads).
  void Serve(dWorldID world) const;
  // Hands the stepping back to the calling thread alone.
  static void Release(dWorldID world);
  // The first error ODE raised on a pool thread since the last call ("" if none).
  std::string TakeFault();

  // In-island helper calls emptied in this process (the check that ODE's stage names still match).
  static unsigned long EmptiedHelperCalls();

 private:
  static void PostCall(dThreadingImplementationID impl, int* out_summary_fault, dCallReleaseeID* out_post_releasee,
                       ddependencycount_t dependencies_count, dCallReleaseeID dependent_releasee,
                       dCallWaitID call_wait, dThreadedCallFunction* call_func, void* call_context,
                       dcallindex_t instance_index, const char* call_name);
  static int Guarded(void* call, dcallindex_t instance_index, dCallReleaseeID releasee);
  void Record(const std::string& what);

  unsigned threads_;
  dThreadingImplementationID impl_ = nullptr;
  dThreadingThreadPoolID pool_ = nullptr;
  std::mutex fault_mutex_;
  std::string fault_;
};

}  // namespace sim_ode
