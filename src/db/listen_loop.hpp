#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

namespace chopar::db {

// The body of a loop's wake-up thread: keeps a connection LISTENing on
// `channel` until `stopping` becomes true, calling `wake` for every batch of
// notifications and after every (re)connect — anything sent while nobody
// listened must not wait for the polling fallback. A lost connection is
// reopened after a jittered backoff spent in `pause` (which the owner makes
// interruptible by Stop()). `what` names the loop in the log. Returns when
// `stopping` is true (noticed within about 100 ms).
void RunListenLoop(const std::string& conninfo, const std::string& channel, const std::string& what,
                   const std::atomic<bool>& stopping, const std::function<void()>& wake,
                   const std::function<void(std::chrono::milliseconds)>& pause);

}  // namespace chopar::db
