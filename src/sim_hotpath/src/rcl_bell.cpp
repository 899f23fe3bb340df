// _rcl_bell: which of a set of ROS subscriptions have new messages, told by the middleware.
//
// Why: an rcl wait set costs O(every subscription in it) per wake (rmw_fastrtps attaches and
// detaches a condition per entity): ~160 us for the 88 effector topics of 22 ROS players,
// and the server's inbox wakes about once per player and cycle (issue 28). Here each
// subscription's on-new-message callback (called on a DDS thread, no Python) rings a bell
// with the subscription's key; the reader sleeps on the bell and wakes with just the keys
// that rang, in the order they rang. Taking the messages stays with rclpy.
//
// A separate module from _hotpath, as only ROS code uses it. It calls the one rcl function
// it needs in the librcl that rclpy has loaded (dlopen RTLD_NOLOAD): the ROS wheels' CMake
// exports name their build machine's libraries, and a second librcl must never be loaded.
// The function's C signature is rcl's (rcl/subscription.h, since Humble).
#include <dlfcn.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

using rcl_event_callback_t = void (*)(const void* user_data, size_t number_of_events);
using set_callback_fn = int (*)(const void* subscription, rcl_event_callback_t callback, const void* user_data);

// rcl_subscription_set_on_new_message_callback of the loaded librcl
set_callback_fn rcl_set_on_new_message_callback() {
  static const set_callback_fn fn = []() -> set_callback_fn {
    void* lib = dlopen("librcl.so", RTLD_LAZY | RTLD_NOLOAD);
    if (lib == nullptr) return nullptr;
    return reinterpret_cast<set_callback_fn>(dlsym(lib, "rcl_subscription_set_on_new_message_callback"));
  }();
  if (fn == nullptr) throw std::runtime_error("librcl is not loaded (import rclpy first)");
  return fn;
}

// What the DDS threads ring and the reader waits on. Shared with every slot, so a ring that
// comes after the bell is gone (a subscription left watched) finds it alive and harmless.
struct BellState {
  std::mutex mutex;  // ready, pending, woken
  std::condition_variable cv;
  std::vector<std::int64_t> ready;
  std::unordered_set<std::int64_t> pending;
  bool woken = false;
  // readable while keys wait to be taken or the bell was woken: for a caller that waits on
  // other descriptors too (select/epoll) and then takes with wait(0)
  int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

  BellState() {
    if (fd < 0) throw std::runtime_error("eventfd failed");
  }
  BellState(const BellState&) = delete;
  BellState& operator=(const BellState&) = delete;
  ~BellState() { close(fd); }

  // (mutex held) the descriptor readable
  void signal() const {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = write(fd, &one, sizeof(one));  // only fails when the counter is huge
  }

  // (mutex held) the descriptor not readable
  void drain() const {
    std::uint64_t count = 0;
    [[maybe_unused]] const ssize_t n = read(fd, &count, sizeof(count));  // EAGAIN when already 0
  }

  void ring(std::int64_t key) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (pending.insert(key).second) {
        if (ready.empty()) signal();
        ready.push_back(key);
      }
    }
    cv.notify_one();
  }
};

struct Slot {
  std::shared_ptr<BellState> state;
  std::int64_t key;
};

class SubscriptionBell {
 public:
  SubscriptionBell() : state_(std::make_shared<BellState>()) {}
  SubscriptionBell(const SubscriptionBell&) = delete;
  SubscriptionBell& operator=(const SubscriptionBell&) = delete;

  // A slot still watched when the bell goes is left allocated: its subscription's listener
  // may call it at any time, and only unwatch (which needs the live subscription) stops that.
  ~SubscriptionBell() = default;

  // Rings with `key` for each new message of the rcl subscription at `pointer` (rclpy's
  // Subscription.handle.pointer; the caller holds the handle). Messages already waiting ring
  // at once.
  void watch(std::uintptr_t pointer, std::int64_t key) {
    if (pointer == 0) throw std::invalid_argument("no subscription (null pointer)");
    auto* slot = new Slot{state_, key};
    {
      std::lock_guard<std::mutex> lock(slots_mutex_);
      if (slots_.count(pointer) != 0) {
        delete slot;
        throw std::invalid_argument("this subscription is watched already");
      }
      slots_.emplace(pointer, slot);
    }
    try {
      set_callback(pointer, &SubscriptionBell::rang, slot);
    } catch (...) {
      std::lock_guard<std::mutex> lock(slots_mutex_);
      slots_.erase(pointer);
      delete slot;
      throw;
    }
  }

  // No more rings for this subscription: call before it is destroyed (the middleware holds
  // its listener's lock while calling, so no ring is under way when this returns).
  void unwatch(std::uintptr_t pointer) {
    Slot* slot = nullptr;
    {
      std::lock_guard<std::mutex> lock(slots_mutex_);
      auto it = slots_.find(pointer);
      if (it == slots_.end()) return;
      slot = it->second;
      slots_.erase(it);
    }
    set_callback(pointer, nullptr, nullptr);
    delete slot;
  }

  // The keys that rang since the last call, oldest first, each once; waits up to `timeout_s`
  // (GIL released) for the first, or until `wake`.
  std::vector<std::int64_t> wait(double timeout_s) {
    std::vector<std::int64_t> out;
    BellState& s = *state_;
    {
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(s.mutex);
      const auto timeout = std::chrono::duration<double>(timeout_s > 0 ? timeout_s : 0.0);
      s.cv.wait_for(lock, timeout, [&s] { return !s.ready.empty() || s.woken; });
      out.swap(s.ready);
      s.pending.clear();
      s.woken = false;
      s.drain();
    }
    return out;
  }

  // Ends a wait now (a player joined or left, the reader stops).
  void wake() {
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->woken = true;
      state_->signal();
    }
    state_->cv.notify_one();
  }

  // A descriptor readable while wait(0) would return keys (or after wake).
  int fileno() const { return state_->fd; }

  std::size_t watched() {
    std::lock_guard<std::mutex> lock(slots_mutex_);
    return slots_.size();
  }

 private:
  // (a DDS thread) `count` new messages on the slot's subscription
  static void rang(const void* user_data, size_t /*count*/) {
    const auto* slot = static_cast<const Slot*>(user_data);
    slot->state->ring(slot->key);
  }

  static void set_callback(std::uintptr_t pointer, rcl_event_callback_t callback, const void* user_data) {
    const int ret = rcl_set_on_new_message_callback()(reinterpret_cast<const void*>(pointer), callback, user_data);
    if (ret != 0) throw std::runtime_error("cannot watch the subscription: rcl error " + std::to_string(ret));
  }

  std::shared_ptr<BellState> state_;
  std::mutex slots_mutex_;
  std::unordered_map<std::uintptr_t, Slot*> slots_;  // the callbacks' user data
};

}  // namespace

PYBIND11_MODULE(_rcl_bell, m) {
  m.doc() = "Subscriptions that have new messages, told by the middleware (no wait set).";
  py::class_<SubscriptionBell>(m, "SubscriptionBell")
      .def(py::init<>())
      .def("watch", &SubscriptionBell::watch, py::arg("pointer"), py::arg("key"))
      .def("unwatch", &SubscriptionBell::unwatch, py::arg("pointer"))
      .def("wait", &SubscriptionBell::wait, py::arg("timeout_s"))
      .def("wake", &SubscriptionBell::wake)
      .def("fileno", &SubscriptionBell::fileno)
      .def("watched", &SubscriptionBell::watched);
}
