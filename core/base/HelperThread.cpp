#include "core/base/HelperThread.h"

#include <utility>

namespace trainplan {

HelperThread::~HelperThread()
{
    {
        const std::lock_guard hold(lock_);
        stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable())
        thread_.join();
}

void HelperThread::run(std::function<void()> work)
{
    {
        const std::lock_guard hold(lock_);
        work_ = std::move(work);
        pending_ = true;
        failure_ = nullptr;
    }
    if (!thread_.joinable())
        thread_ = std::thread([this] { loop(); });
    else
        wake_.notify_one();
}

void HelperThread::wait()
{
    std::unique_lock hold(lock_);
    done_.wait(hold, [this] { return !pending_; });
    if (failure_)
        std::rethrow_exception(std::exchange(failure_, nullptr));
}

void HelperThread::loop()
{
    std::unique_lock hold(lock_);
    for (;;) {
        wake_.wait(hold, [this] { return pending_ || stopping_; });
        if (pending_) {
            std::function<void()> work = std::move(work_);
            hold.unlock();
            std::exception_ptr failure;
            try {
                work();
            } catch (...) {
                failure = std::current_exception();
            }
            hold.lock();
            failure_ = failure;
            pending_ = false;
            done_.notify_all();
        } else {
            return;  // stopping, nothing pending
        }
    }
}

}  // namespace trainplan
