// Embedding Tide in a C++ program: load a map, request a flow field from the FieldService, step a
// crowd on the host's own job system, print where the agents are.
//   tide_example_cpp [map file]   (default: arena.map beside this source when run from examples/)
#include <tide/crowd.hpp>
#include <tide/field_service.hpp>
#include <tide/jobs.hpp>
#include <tide/map_io.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace {

// The host's job system: a small thread pool. Tide calls parallel_for for the crowd step and
// enqueue for background field builds; an engine would forward both to its own scheduler.
class HostJobs final : public tide::JobSystem {
public:
    explicit HostJobs(unsigned threads) {
        for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
    }
    ~HostJobs() override {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& t : workers_) t.join();
    }
    void parallel_for(std::size_t count, std::size_t grain, tide::RangeTask task, void* context) override {
        if (count == 0) return;
        const std::size_t chunk = std::max<std::size_t>(grain, 1);
        std::size_t pending = (count + chunk - 1) / chunk;
        std::mutex done_mutex;
        std::condition_variable done;
        for (std::size_t b = 0; b < count; b += chunk) {
            const std::size_t e = std::min(count, b + chunk);
            push([&, b, e] {
                task(context, b, e);
                std::lock_guard lock(done_mutex);
                if (--pending == 0) done.notify_one();
            });
        }
        std::unique_lock lock(done_mutex);
        done.wait(lock, [&] { return pending == 0; });
    }
    int max_concurrency() const override { return static_cast<int>(workers_.size()); }
    void enqueue(tide::Task task, void* context) override {
        push([task, context] { task(context); });
    }

private:
    void push(std::function<void()> fn) {
        {
            std::lock_guard lock(mutex_);
            queue_.push_back(std::move(fn));
        }
        wake_.notify_one();
    }
    void work() {
        for (;;) {
            std::function<void()> fn;
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
                if (queue_.empty()) return;
                fn = std::move(queue_.front());
                queue_.pop_front();
            }
            fn();
        }
    }
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> queue_;
    std::vector<std::thread> workers_;
    bool stop_ = false;
};

int fail(const tide::Error& e) {
    std::fprintf(stderr, "error (%s): %s\n", tide::error_code_name(e.code), e.message.c_str());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string path = argc > 1 ? argv[1] : "arena.map";
    auto map = tide::load_map(path);
    if (!map) return fail(map.error());
    const tide::CostField& cost = map->cost;

    HostJobs jobs(2);
    auto service = tide::FieldService::create(cost, jobs);
    if (!service) return fail(service.error());
    const tide::Cell goal{cost.width() - 2, cost.height() / 2};
    auto ticket = (*service)->request({&goal, 1});
    if (!ticket) return fail(ticket.error());
    (*service)->wait_idle();  // a game would keep ticking and publish() at the start of each tick
    (*service)->publish();
    std::shared_ptr<const tide::FlowField> field = (*service)->current(*ticket);
    if (!field) return fail(tide::Error{tide::ErrorCode::internal, "no field after wait_idle"});
    std::printf("field toward (%d, %d): cost from (1, 1) is %.2f\n", goal.x, goal.y, field->integration(1, 1));

    tide::Crowd crowd(cost);
    auto group = crowd.add_group(field);
    if (!group) return fail(group.error());
    tide::AgentParams params = crowd.default_agent_params();
    for (int i = 0; i < 8; ++i) {
        params.user_tag = 100 + static_cast<std::uint64_t>(i);  // e.g. the engine's entity id
        auto id = crowd.add_agent({1.5f + static_cast<float>(i % 2), 1.5f + static_cast<float>(i)}, *group, params);
        if (!id) return fail(id.error());
    }
    for (int step = 0; step < 600; ++step) {
        if (auto r = crowd.step(1.0f / 60.0f, jobs); !r) return fail(r.error());
    }

    std::vector<tide::Vec2> positions(crowd.size());
    std::vector<tide::AgentState> states(crowd.size());
    std::vector<std::uint64_t> tags(crowd.size());
    tide::AgentBuffers out;
    out.positions = positions;
    out.states = states;
    out.user_tags = tags;
    if (auto n = crowd.read_agents(out); !n) return fail(n.error());
    for (std::size_t k = 0; k < positions.size(); ++k) {
        std::printf("agent %llu at (%.2f, %.2f) %s\n", static_cast<unsigned long long>(tags[k]), positions[k].x,
                    positions[k].y, states[k] == tide::AgentState::arrived ? "arrived" : "moving");
    }
    std::printf("%zu of %zu arrived after %.1f s\n", crowd.stats().arrived, crowd.size(), crowd.time());
    return 0;
}
