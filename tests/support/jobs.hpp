#pragma once
/// \file jobs.hpp
/// Job systems for tests: one that holds background tasks until the test runs them (so a test
/// decides when builds happen), and a small thread pool (real concurrency without oneTBB).

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "tide/jobs.hpp"

namespace tide::test {

/// Ranges run serially on the caller; background tasks wait in a queue until run_all()/run_one().
class ManualJobSystem final : public JobSystem {
public:
    /// `background` is what background_concurrency() reports (how many tasks a service queues).
    explicit ManualJobSystem(int background = 1) : background_(background) {}
    /// Runs what is still queued, so nothing given to it is lost.
    ~ManualJobSystem() override { run_all(); }

    void parallel_for(std::size_t count, std::size_t, RangeTask task, void* context) override {
        if (count > 0) task(context, 0, count);
    }
    int max_concurrency() const override { return 1; }
    void enqueue(Task task, void* context) override {
        std::lock_guard lock(mutex_);
        queue_.push_back({task, context});
        ++enqueued_;
    }
    int background_concurrency() const override { return background_; }

    /// Runs the oldest queued task; false when none was queued.
    bool run_one() {
        Item item;
        {
            std::lock_guard lock(mutex_);
            if (queue_.empty()) return false;
            item = queue_.front();
            queue_.pop_front();
        }
        item.task(item.context);
        return true;
    }
    /// Runs tasks until the queue is empty (tasks may enqueue more); returns how many ran.
    std::size_t run_all() {
        std::size_t n = 0;
        while (run_one()) ++n;
        return n;
    }
    /// Tasks waiting.
    std::size_t pending() const {
        std::lock_guard lock(mutex_);
        return queue_.size();
    }
    /// Tasks ever enqueued.
    std::size_t enqueued() const {
        std::lock_guard lock(mutex_);
        return enqueued_;
    }

private:
    struct Item {
        Task task = nullptr;
        void* context = nullptr;
    };
    int background_;
    mutable std::mutex mutex_;
    std::deque<Item> queue_;
    std::size_t enqueued_ = 0;
};

/// Background tasks on `threads` threads of its own; ranges split over the same threads' count
/// but run on the caller (tests need enqueue concurrency, not parallel ranges).
class ThreadPoolJobSystem final : public JobSystem {
public:
    explicit ThreadPoolJobSystem(int threads) : threads_(threads) {
        for (int i = 0; i < threads; ++i) pool_.emplace_back([this] { work(); });
    }
    /// Finishes every queued task, then stops the threads.
    ~ThreadPoolJobSystem() override {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        for (auto& t : pool_) t.join();
    }
    void parallel_for(std::size_t count, std::size_t grain, RangeTask task, void* context) override {
        // Ranges of `grain` items, in order, on the caller: the split differs from a serial run.
        const std::size_t g = grain > 0 ? grain : 1;
        for (std::size_t b = 0; b < count; b += g) task(context, b, std::min(count, b + g));
    }
    int max_concurrency() const override { return 1; }
    void enqueue(Task task, void* context) override {
        {
            std::lock_guard lock(mutex_);
            queue_.push_back({task, context});
        }
        cv_.notify_one();
    }
    int background_concurrency() const override { return threads_; }

private:
    struct Item {
        Task task = nullptr;
        void* context = nullptr;
    };
    void work() {
        std::unique_lock lock(mutex_);
        for (;;) {
            cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
            if (queue_.empty()) return;  // stop_ and nothing left
            const Item item = queue_.front();
            queue_.pop_front();
            lock.unlock();
            item.task(item.context);
            lock.lock();
        }
    }
    int threads_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<Item> queue_;
    bool stop_ = false;
    std::vector<std::thread> pool_;
};

/// Splits every range into `threads` chunks, each on its own std::thread (no background tasks):
/// real concurrency for the crowd step, with a fixed partition.
class ThreadJobs final : public JobSystem {
public:
    explicit ThreadJobs(int threads) : threads_(threads) {}
    void parallel_for(std::size_t count, std::size_t, RangeTask task, void* context) override {
        std::vector<std::thread> pool;
        const std::size_t chunk = (count + threads_ - 1) / threads_;
        for (int t = 0; t < threads_; ++t) {
            const std::size_t b = t * chunk, e = std::min(count, b + chunk);
            if (b < e) pool.emplace_back([=] { task(context, b, e); });
        }
        for (auto& th : pool) th.join();
    }
    int max_concurrency() const override { return threads_; }

private:
    int threads_;
};

/// Claims `threads` but runs every range on the caller, last range first: a host pool whose other
/// threads are busy, so the ranges of one parallel_for run one after the other, in any order.
class LateJobs final : public JobSystem {
public:
    explicit LateJobs(int threads) : threads_(threads) {}
    void parallel_for(std::size_t count, std::size_t grain, RangeTask task, void* context) override {
        const std::size_t g = grain > 0 ? grain : 1;
        for (std::size_t e = count; e > 0;) {
            const std::size_t b = e > g ? e - g : 0;
            task(context, b, e);
            e = b;
        }
    }
    int max_concurrency() const override { return threads_; }

private:
    int threads_;
};

}  // namespace tide::test
