// Why: see island_threading.hpp. The helper calls are told apart by the names ODE gives its
// posted calls (libode 0.16's dWorldStep stages); the thread that posts them runs the same
// stage function itself right after, so an emptied helper loses no work.
#include "island_threading.hpp"

#include <pthread.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <map>
#include <stdexcept>

namespace sim_ode {
namespace {

// dWorldStep's stages whose poster also runs them: a helper only takes items off a shared
// counter, in an order that depends on timing.
constexpr const char* kHelperStages[] = {
    "StepIsland Stage2a", "StepIsland Stage2b", "StepIsland Stage2c", "StepIsland Stage4"};

std::atomic<unsigned long> emptied{0};
std::mutex registry_mutex;
std::map<dThreadingImplementationID, IslandThreads*> registry;  // which threads an implementation is
dThreadedCallPostFunction* builtin_post = nullptr;
dThreadingFunctionsInfo functions{};
std::once_flag functions_made;

int EmptyCall(void*, dcallindex_t, dCallReleaseeID) { return 1; }

bool IsHelper(const char* name) {
  if (name == nullptr) return false;
  for (const char* stage : kHelperStages)
    if (std::strcmp(name, stage) == 0) return true;
  return false;
}

// One posted call and whose threads run it: freed by the call itself (ODE runs every posted
// call, also after a fault, which it only passes on to the calls that depend on it).
struct Call {
  dThreadedCallFunction* func;
  void* context;
  IslandThreads* threads;
};

}  // namespace

IslandThreads::IslandThreads(unsigned n) : threads_(n) {
  if (n < 2 || n > 16) throw std::invalid_argument("island threads: 2..16");
  impl_ = dThreadingAllocateMultiThreadedImplementation();
  if (impl_ == nullptr) throw std::runtime_error("ODE has no multi-threaded stepping");
  // The pool threads take no signals (ODE's requirement; Python's handlers run on the main
  // thread). The pool does the work; the stepping thread waits for it.
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  pool_ = dThreadingAllocateThreadPool(n, 0, dAllocateFlagBasicData, nullptr);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (pool_ == nullptr) {
    dThreadingFreeImplementation(impl_);
    throw std::runtime_error("ODE could not start " + std::to_string(n) + " stepping threads");
  }
  dThreadingThreadPoolServeMultiThreadedImplementation(pool_, impl_);
  std::call_once(functions_made, [this] {
    functions = *dThreadingImplementationGetFunctions(impl_);
    builtin_post = functions.post_call;
    functions.post_call = &IslandThreads::PostCall;
  });
  std::lock_guard<std::mutex> lock(registry_mutex);
  registry[impl_] = this;
}

IslandThreads::~IslandThreads() {
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry.erase(impl_);
  }
  dThreadingImplementationShutdownProcessing(impl_);
  dThreadingFreeThreadPool(pool_);
  dThreadingFreeImplementation(impl_);
}

void IslandThreads::Serve(dWorldID world) const {
  dWorldSetStepThreadingImplementation(world, &functions, impl_);
  dWorldSetStepIslandsProcessingMaxThreadCount(world, threads_);
}

void IslandThreads::Release(dWorldID world) { dWorldSetStepThreadingImplementation(world, nullptr, nullptr); }

std::string IslandThreads::TakeFault() {
  std::lock_guard<std::mutex> lock(fault_mutex_);
  std::string what;
  what.swap(fault_);
  return what;
}

unsigned long IslandThreads::EmptiedHelperCalls() { return emptied.load(std::memory_order_relaxed); }

void IslandThreads::Record(const std::string& what) {
  std::lock_guard<std::mutex> lock(fault_mutex_);
  if (fault_.empty()) fault_ = what;
}

void IslandThreads::PostCall(dThreadingImplementationID impl, int* out_summary_fault, dCallReleaseeID* out_post_releasee,
                             ddependencycount_t dependencies_count, dCallReleaseeID dependent_releasee,
                             dCallWaitID call_wait, dThreadedCallFunction* call_func, void* call_context,
                             dcallindex_t instance_index, const char* call_name) {
  if (IsHelper(call_name)) {
    emptied.fetch_add(1, std::memory_order_relaxed);
    builtin_post(impl, out_summary_fault, out_post_releasee, dependencies_count, dependent_releasee, call_wait,
                 &EmptyCall, nullptr, instance_index, call_name);
    return;
  }
  IslandThreads* threads = nullptr;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry.find(impl);
    if (it != registry.end()) threads = it->second;
  }
  auto* call = new Call{call_func, call_context, threads};
  builtin_post(impl, out_summary_fault, out_post_releasee, dependencies_count, dependent_releasee, call_wait,
               &IslandThreads::Guarded, call, instance_index, call_name);
}

int IslandThreads::Guarded(void* raw, dcallindex_t instance_index, dCallReleaseeID releasee) {
  Call* call = static_cast<Call*>(raw);
  const Call c = *call;
  delete call;
  try {
    return c.func(c.context, instance_index, releasee);
  } catch (const std::exception& e) {
    if (c.threads != nullptr) c.threads->Record(e.what());
  } catch (...) {
    if (c.threads != nullptr) c.threads->Record("ODE failed on a stepping thread");
  }
  return 0;  // a failed call: ODE passes the fault on and the step reports failure
}

}  // namespace sim_ode
