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

class SubscriptionBell {
 public:
  SubscriptionBell() = default;
  SubscriptionBell(const SubscriptionBell&) = delete;
  SubscriptionBell& operator=(const SubscriptionBell&) = delete;

  // Rings with `key` for each new message of the rcl subscription at `pointer` (rclpy's
  // Subscription.handle.pointer; the caller holds the handle). Messages already waiting ring
  // at once.
  void watch(std::uintptr_t pointer, std::int64_t key) {
    auto slot = std::make_unique<Slot>(Slot{this, key});
    const Slot* user_data = slot.get();
    {
      std::lock_guard<std::mutex> lock(slots_mutex_);
      if (slots_.count(pointer) != 0) throw std::invalid_argument("this subscription is watched already");
      slots_.emplace(pointer, std::move(slot));
    }
    set_callback(pointer, &SubscriptionBell::rang, user_data);
  }

  // No more rings for this subscription: call before it is destroyed (the middleware holds
  // its listener's lock while calling, so no ring is under way when this returns).
  void unwatch(std::uintptr_t pointer) {
    std::unique_ptr<Slot> slot;
    {
      std::lock_guard<std::mutex> lock(slots_mutex_);
      auto it = slots_.find(pointer);
      if (it == slots_.end()) return;
      slot = std::move(it->second);
      slots_.erase(it);
    }
    set_callback(pointer, nullptr, nullptr);
  }

  // The keys that rang since the last call, oldest first, each once; waits up to `timeout_s`
  // (GIL released) for the first, or until `wake`.
  std::vector<std::int64_t> wait(double timeout_s) {
    std::vector<std::int64_t> out;
    {
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(mutex_);
      const auto timeout = std::chrono::duration<double>(timeout_s > 0 ? timeout_s : 0.0);
      cv_.wait_for(lock, timeout, [this] { return !ready_.empty() || woken_; });
      out.swap(ready_);
      pending_.clear();
      woken_ = false;
    }
    return out;
  }

  // Ends a wait now (a player joined or left, the reader stops).
  void wake() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      woken_ = true;
    }
    cv_.notify_one();
  }

  std::size_t watched() {
    std::lock_guard<std::mutex> lock(slots_mutex_);
    return slots_.size();
  }

 private:
  struct Slot {
    SubscriptionBell* bell;
    std::int64_t key;
  };

  // (a DDS thread) `count` new messages on the slot's subscription
  static void rang(const void* user_data, size_t /*count*/) {
    const auto* slot = static_cast<const Slot*>(user_data);
    slot->bell->ring(slot->key);
  }

  void ring(std::int64_t key) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (pending_.insert(key).second) ready_.push_back(key);
    }
    cv_.notify_one();
  }

  static void set_callback(std::uintptr_t pointer, rcl_event_callback_t callback, const void* user_data) {
    if (pointer == 0) throw std::invalid_argument("no subscription (null pointer)");
    const int ret = rcl_set_on_new_message_callback()(reinterpret_cast<const void*>(pointer), callback, user_data);
    if (ret != 0) throw std::runtime_error("cannot watch the subscription: rcl error " + std::to_string(ret));
  }

  std::mutex mutex_;  // ready_, pending_, woken_
  std::condition_variable cv_;
  std::vector<std::int64_t> ready_;
  std::unordered_set<std::int64_t> pending_;
  bool woken_ = false;
  std::mutex slots_mutex_;
  // the callbacks' user data; a slot left behind (its subscription destroyed unwatched) is
  // only freed: its listener went with the subscription
  std::unordered_map<std::uintptr_t, std::unique_ptr<Slot>> slots_;
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
      .def("watched", &SubscriptionBell::watched);
}
