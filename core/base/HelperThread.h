#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace trainplan {

// A second thread kept for one owner, to share out a piece of work that would otherwise run on
// one core (the analysis's range variants: a drag onto 64 pipeline stages simulates twenty of
// them). Starting a thread per piece costs more than a small piece does; this one is started on
// the first run() and then sleeps between pieces. Not for concurrent owners: one run() at a
// time, each followed by wait().
class HelperThread {
public:
    HelperThread() = default;
    ~HelperThread();  // finishes the running piece, then joins
    HelperThread(const HelperThread&) = delete;
    HelperThread& operator=(const HelperThread&) = delete;

    // Starts `work` on the helper and returns at once.
    void run(std::function<void()> work);
    // Blocks until the piece run() started has finished; rethrows what it threw.
    void wait();

private:
    void loop();

    std::mutex lock_;
    std::condition_variable wake_, done_;
    std::function<void()> work_;
    bool pending_ = false;  // work_ handed over, not yet finished
    bool stopping_ = false;
    std::exception_ptr failure_;
    std::thread thread_;  // last: started after the state it reads exists
};

}  // namespace trainplan
