#pragma once
// The world of `tide serve`: a map, its goals, the flow field built for them and a crowd.
// Owned and driven by the simulation thread only (not thread-safe); field builds run on a builder
// thread of their own and are swapped in whole by poll_build().

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tide/crowd.hpp"
#include "tide/flow_field.hpp"
#include "tide/jobs.hpp"
#include "tide/result.hpp"

namespace tide::serve {

/// Hard cap on the number of agents, whatever asks (command line or client).
inline constexpr int kMaxAgents = 200'000;
/// Most goals a client may set at once.
inline constexpr int kMaxGoals = 16;
/// Largest paint brush radius, cells.
inline constexpr int kMaxBrush = 16;

/// Unit settings a client may change (applied to every unit).
struct UnitParams {
    float speed = 3.0f;       ///< Top speed on plain ground, cells/s (0.1..20).
    float separation = 6.0f;  ///< Separation strength (0..20).
    float radius = 0.16f;     ///< Unit radius, cells (0.05..0.5).
};

/// A finished field build.
struct BuiltField {
    std::shared_ptr<const FlowField> field;  ///< The field, immutable once published.
    std::uint64_t version = 0;               ///< Request version it answers.
    double build_ms = 0.0;                   ///< Wall time of the build.
};

/// Builds flow fields on its own thread. request() replaces any request not yet started (only the
/// newest terrain/goals matter); take() returns the newest finished build, if any.
class FieldWorker {
public:
    FieldWorker();
    ~FieldWorker();
    FieldWorker(const FieldWorker&) = delete;
    FieldWorker& operator=(const FieldWorker&) = delete;

    /// Queues a build of `cost` toward `goals` tagged `version`.
    void request(std::shared_ptr<const CostField> cost, std::vector<Cell> goals, std::uint64_t version);
    /// The newest finished build since the last take(), if any.
    std::optional<BuiltField> take();
    /// Blocks until every queued request has finished (tests, map loads).
    void wait_idle();

private:
    void run();
    struct Request {
        std::shared_ptr<const CostField> cost;
        std::vector<Cell> goals;
        std::uint64_t version = 0;
    };
    std::mutex mutex_;
    std::condition_variable cv_;
    std::optional<Request> pending_;
    std::optional<BuiltField> done_;
    bool busy_ = false;
    bool stop_ = false;
    std::thread thread_;
};

/// Counters shown on the page.
struct WorldStats {
    CrowdStats crowd;                 ///< Units, arrived, no path, stuck.
    double field_ms = 0.0;            ///< Build time of the current field.
    double step_ms = 0.0;             ///< Last simulation step.
    std::uint64_t tick = 0;           ///< Ticks simulated.
    std::uint64_t field_version = 0;  ///< Version of the field in use.
};

/// The passable cell nearest `from` (Euclidean; ties: first in row-major order); none on an
/// all-wall map. `from` may lie off the map.
std::optional<Cell> nearest_passable(const CostField& cost, Cell from);

/// The simulated world.
class World {
public:
    /// An empty world; call load() before anything else. `jobs` runs the crowd step.
    explicit World(JobSystem& jobs, std::uint64_t seed = 1);

    /// Replaces the map: `name` for display, goals (checked), `agents` units spawned. Builds the
    /// field synchronously so the world is complete on return. Error (world unchanged) on bad goals.
    Result<void> load(std::string name, CostField cost, std::vector<Cell> goals, int agents);
    /// Replaces the goal set: 1..kMaxGoals cells on the map and not walls (duplicates dropped).
    Result<void> set_goals(std::vector<Cell> goals);
    /// Paints a disc of `radius` cells around (x, y) with `cost` (kCostWall for walls); goal cells
    /// are never walled; units caught inside new walls move to the nearest free cell.
    Result<void> paint(int x, int y, int radius, Cost cost);
    /// Removes every unit and spawns `count` (0..kMaxAgents) at random passable cells.
    Result<void> spawn(int count);
    /// Applies unit settings to every unit (error when a value is out of range).
    Result<void> set_params(const UnitParams& params);
    /// Pauses or resumes tick().
    void set_paused(bool paused) noexcept { paused_ = paused; }
    /// Once per tick: hands the tick's edits (paint, goals) to the field worker as one request
    /// (one copy of the terrain however many edits), and swaps in a finished build if there is
    /// one; true when the field changed.
    bool poll_build();
    /// Advances the crowd by dt unless paused (or `force`, for single steps).
    Result<void> tick(float dt, bool force = false);

    const std::string& name() const noexcept { return name_; }                   ///< Map name.
    const CostField& cost() const noexcept { return *cost_; }                    ///< Current terrain.
    const std::vector<Cell>& goals() const noexcept { return goals_; }           ///< Current goals.
    const FlowField& field() const noexcept { return *field_; }                  ///< Field in use.
    const Crowd& crowd() const noexcept { return *crowd_; }                      ///< The units.
    const std::vector<AgentId>& agents() const noexcept { return agents_; }      ///< Units in slot order.
    const UnitParams& params() const noexcept { return params_; }                ///< Unit settings.
    bool paused() const noexcept { return paused_; }                             ///< Paused?
    const WorldStats& stats() const noexcept { return stats_; }                  ///< Counters.
    std::uint64_t terrain_version() const noexcept { return terrain_version_; }  ///< Bumped by paint/load.
    /// Waits for the pending field build and swaps it in (tests).
    void finish_builds();

private:
    Result<void> check_goals(std::vector<Cell>& goals) const;
    void request_build();
    CrowdParams crowd_params() const;
    void rebuild_crowd(const std::vector<Vec2>& positions);

    JobSystem* jobs_;
    std::uint64_t rng_state_;
    std::string name_;
    std::unique_ptr<CostField> cost_;  // stable address: the crowd points at it
    std::vector<Cell> goals_;
    std::shared_ptr<const FlowField> field_;
    std::unique_ptr<Crowd> crowd_;
    std::vector<AgentId> agents_;
    UnitParams params_;
    bool paused_ = false;
    WorldStats stats_;
    std::uint64_t requested_version_ = 0;
    bool build_pending_ = false;  // edits not yet sent to the worker
    std::uint64_t terrain_version_ = 0;
    FieldWorker worker_;
};

}  // namespace tide::serve
