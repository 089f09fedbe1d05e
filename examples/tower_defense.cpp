// A tower-defense loop on tide::World: waves of units walk from the west edge of a field to an
// exit in its east wall (a spawner and a sink, SpawnerSpec), while the player builds towers.
// Each tower is previewed first (World::check_tower, what a game shows while the player hovers);
// one that would seal the path from the spawn lane to the exit, or wall a unit in, is refused
// with the reason, and the units reroute round the towers that stand. At the end of each wave
// the example prints how many units got through.
//   tide_example_tower_defense [--check]
// With --check it exits 1 unless every unit of every wave got through, the towers that would
// seal the path were refused, and the run is the same on one thread and on the host's pool
// (lockstep: fields published at fixed points).
#include <tide/jobs.hpp>
#include <tide/world.hpp>

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

// The field: 80 x 40 cells inside a wall border, the exit four cells of the east wall.
tide::CostField make_field() {
    tide::CostField cost = *tide::CostField::create(80, 40);
    cost.fill_rect(0, 0, 79, 0, tide::kCostWall);
    cost.fill_rect(0, 39, 79, 39, tide::kCostWall);
    cost.fill_rect(0, 0, 0, 39, tide::kCostWall);
    cost.fill_rect(79, 0, 79, 39, tide::kCostWall);
    cost.fill_rect(79, 18, 79, 21, tide::kCostPlain);  // the exit
    cost.fill_rect(10, 6, 14, 9, tide::kCostForest);
    return cost;
}

// What the player builds, and when (simulated seconds): two lines of 2 x 8 towers across the field
// (the last tower of each would close it), then, during the waves, towers in the lanes the
// units walk (refused while a unit stands there) and one over the exit (never allowed).
struct Build {
    double at_s;
    tide::PlaceTower tower;
};
const std::vector<Build> kPlan = {
    {0.0, {30, 1, 31, 8}},    {0.0, {30, 9, 31, 16}},  {0.0, {30, 17, 31, 24}},
    {0.0, {30, 25, 31, 32}},  {0.0, {30, 33, 31, 38}},  // seals the first line: refused
    {1.0, {50, 31, 51, 38}},  {1.0, {50, 23, 51, 30}}, {1.0, {50, 15, 51, 22}},
    {1.0, {50, 7, 51, 14}},   {1.0, {50, 1, 51, 6}},  // seals the second line: refused
    {14.0, {40, 28, 42, 30}},                         // in the middle lane while a wave walks there
    {26.0, {60, 4, 62, 6}},                           // beside the way out of the second line
    {38.0, {77, 18, 78, 21}},                         // in front of the exit: seals it
};

struct Outcome {
    std::uint64_t spawned = 0, sunk = 0, hash = 0;
    int refused = 0, placed = 0;
};

Outcome play(tide::JobSystem& jobs, bool print) {
    tide::WorldConfig config;
    config.lockstep = true;  // the same game on any number of threads (and on a lockstep peer)
    tide::World world(jobs, config);
    const std::vector<tide::Cell> exit = {{79, 18}, {79, 19}, {79, 20}, {79, 21}};
    if (auto r = world.load("tower_defense", make_field(), exit, 0); !r) {
        std::fprintf(stderr, "load: %s\n", r.error().message.c_str());
        return {};
    }
    tide::SpawnerSpec waves;
    waves.area = tide::CellRect{1, 1, 3, 38};
    waves.goals = exit;
    waves.exit = true;  // units leave the map there (a sink) and are counted
    waves.start_s = 2.0;
    waves.every_s = 0.2;
    waves.per_emission = 2;
    waves.wave_emissions = 20;  // 40 units a wave
    waves.wave_pause_s = 6.0;
    waves.waves = 6;
    auto added = world.apply(tide::AddSpawner{waves});
    if (!added) {
        std::fprintf(stderr, "spawner: %s\n", added.error().message.c_str());
        return {};
    }
    Outcome out;
    std::size_t next_build = 0;
    int waves_reported = 0;
    const float dt = 1.0f / 60.0f;
    for (int tick = 0; tick < 60 * 150; ++tick) {
        const double now = world.crowd().time();
        for (; next_build < kPlan.size() && kPlan[next_build].at_s <= now + 1e-9; ++next_build) {
            const tide::PlaceTower& t = kPlan[next_build].tower;
            auto preview = world.check_tower(t.x0, t.y0, t.x1, t.y1);  // the hover colour, in a game
            auto placed = world.apply(t);
            if (placed) {
                ++out.placed;
            } else {
                ++out.refused;
            }
            if (print) {
                std::printf("%6.1f s  tower [%d..%d] x [%d..%d]: %s", now, t.x0, t.x1, t.y0, t.y1,
                            placed ? "built" : ("refused: " + placed.error().message).c_str());
                if (preview && preview->blocks) {
                    std::printf(" (preview: %zu units, %zu lane cells cut off)", preview->units_cut_off,
                                preview->spawn_cells_cut_off);
                }
                std::printf("\n");
            }
        }
        if (auto r = world.tick(dt); !r) {
            std::fprintf(stderr, "tick: %s\n", r.error().message.c_str());
            return {};
        }
        const tide::SpawnerInfo& s = world.spawners()[0];
        if (print && s.waves_done > waves_reported) {
            waves_reported = s.waves_done;
            std::printf("%6.1f s  wave %d of %d sent: %llu units spawned so far, %llu got through\n",
                        world.crowd().time(), s.waves_done, waves.waves, static_cast<unsigned long long>(s.spawned),
                        static_cast<unsigned long long>(s.sunk));
        }
        if (s.done && world.agents().empty()) break;  // every wave through
    }
    const tide::SpawnerInfo& s = world.spawners()[0];
    out.spawned = s.spawned;
    out.sunk = s.sunk;
    out.hash = world.state_hash();
    if (print) {
        std::printf("%6.1f s  %llu of %llu units got through; %d towers built, %d refused; state hash %016llx\n",
                    world.crowd().time(), static_cast<unsigned long long>(out.sunk),
                    static_cast<unsigned long long>(out.spawned), out.placed, out.refused,
                    static_cast<unsigned long long>(out.hash));
    }
    return out;
}

// The host's own job system, as small as it gets: ranges split in two (one half on a new thread),
// background work (the field builds) on one worker thread. A game hands in its own scheduler.
class TwoThreads final : public tide::JobSystem {
public:
    TwoThreads() : worker_([this] { work(); }) {}
    ~TwoThreads() override {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_one();
        worker_.join();
    }
    void parallel_for(std::size_t count, std::size_t grain, tide::RangeTask task, void* context) override {
        if (count <= grain) {
            if (count > 0) task(context, 0, count);
            return;
        }
        const std::size_t half = count / 2;
        std::thread other([&] { task(context, half, count); });
        task(context, 0, half);
        other.join();
    }
    int max_concurrency() const override { return 2; }
    void enqueue(tide::Task task, void* context) override {
        {
            std::lock_guard lock(mutex_);
            queue_.push_back({task, context});
        }
        wake_.notify_one();
    }
    int background_concurrency() const override { return 1; }

private:
    void work() {
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
            if (queue_.empty()) return;  // stopping, nothing left
            const auto job = queue_.front();
            queue_.pop_front();
            lock.unlock();
            job.first(job.second);
            lock.lock();
        }
    }
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::pair<tide::Task, void*>> queue_;
    bool stop_ = false;
    std::thread worker_;
};

}  // namespace

int main(int argc, char** argv) {
    const bool check = argc > 1 && std::strcmp(argv[1], "--check") == 0;
    tide::SerialJobSystem serial;
    const Outcome a = play(serial, true);
    if (!check) return a.spawned > 0 ? 0 : 1;
    TwoThreads pool;
    const Outcome b = play(pool, false);
    bool ok = true;
    auto expect = [&](bool cond, const char* what) {
        if (!cond) std::fprintf(stderr, "check failed: %s\n", what);
        ok &= cond;
    };
    expect(a.spawned == 240 && a.sunk == 240, "every unit of the 6 waves of 40 got through");
    expect(a.refused >= 3, "the towers that seal a line or the exit are refused");
    expect(b.hash == a.hash && b.sunk == a.sunk, "the same game on the host's pool (lockstep)");
    if (ok) std::printf("check passed\n");
    return ok ? 0 : 1;
}
