#pragma once
/// \file simulation.hpp
/// A scripted crowd run on a World (target tide::world), as `tide sim` and the Python `tide.sim`
/// do it: load a map, spawn units toward goals (or flee from danger cells), tick for a number of
/// seconds and measure arrival, wall safety, overlap and step times. Hosts step it themselves, so
/// they can draw frames or trails between steps; report() gathers the figures.
///
/// Positions are in cell units, times in simulated seconds (step times in wall milliseconds).
/// The run is deterministic for a seed on any job system (World and Crowd are); the step times
/// are not.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/crowd.hpp"
#include "tide/export.h"
#include "tide/jobs.hpp"
#include "tide/recording.hpp"
#include "tide/result.hpp"
#include "tide/scenarios.hpp"
#include "tide/world.hpp"

namespace tide {

/// Where units spawn: the cells covering [x0, x1) x [y0, y1), clipped to the map.
struct SpawnArea {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

/// What a simulation runs. Plain data.
struct SimulationSettings {
    std::vector<Cell> targets;       ///< Goal cells, or with `flee` the danger cells (at least one).
    bool flee = false;               ///< Flee from `targets` (WorldConfig::flee.factor) instead of going there.
    int agents = 1000;               ///< Units, 1..kMaxWorldUnits.
    int unit_size = 1;               ///< Their size, 1..kWorldUnitSizes cells a side (Spawn::size).
    std::optional<SpawnArea> spawn;  ///< Where they spawn (default: the whole map).
    double seconds = 30.0;           ///< Simulated time, (0, 3600].
    double dt = 1.0 / 60.0;          ///< Step, s, (0, 1]; seconds / dt steps, at most kMaxSimSteps.
    bool detail = false;             ///< Record each unit's start and path length (report().units).
    WorldConfig world;               ///< The world's settings: seed, hierarchy_cells, wall margin, crowd.
    /// When set, the world runs in lockstep (WorldConfig::lockstep) and records everything into it
    /// (World::start_recording; it must outlive the simulation): replay() gives the same run.
    Recording* record = nullptr;
};

/// One group of a run (SimulationReport::groups): the units whose last group it was.
struct SimulationGroup {
    UnitGroupId id = 0;            ///< The world's group id.
    std::vector<Cell> goals;       ///< Its goals (dangers of a flee group, exits of an exit group).
    bool flee = false;             ///< A flee group.
    bool exit = false;             ///< Its goals are exits.
    std::size_t units = 0;         ///< Units whose last group it was (those that left included).
    std::size_t arrived = 0;       ///< Of them arrived now.
    std::size_t exited = 0;        ///< Of them gone through an exit.
    std::size_t queued = 0;        ///< Of them queued now.
    std::size_t stuck = 0;         ///< Of them flagged stuck now.
    double done_50_s = -1.0;       ///< First step with half of them arrived or gone; -1: not yet.
    double done_90_s = -1.0;       ///< The same for 90%.
    double done_95_s = -1.0;       ///< The same for 95%.
    double done_100_s = -1.0;      ///< The same for all of them.
    double longest_stall_s = 0.0;  ///< Longest time with units not arrived and no progress (none
                                   ///< arrived or left, their summed cost to go fell by less than
                                   ///< one cell), sampled once per simulated second.
    double region_radius = 0.0;    ///< Its arrival region's radius now (cost to go; 0 without one).
    // Formations (the group marches in one: Order::formation).
    bool formation = false;
    double formation_error = 0.0;               ///< Mean distance of its units to their slots now, cells.
    double formation_in_slot = 0.0;             ///< Fraction of its units within 0.5 cells of their slots now.
    double formation_marching_error = -1;       ///< Mean of the per-second errors from when it first formed
                                                ///< (error under 0.3) until its anchor arrived; -1: never formed.
    double formation_marching_max = -1;         ///< The largest of those (a turn, a gap).
    double formation_formed_s = -1;             ///< When it first formed.
    double formation_arrived_s = -1;            ///< When its anchor stood at the goal and 95% of its units within
                                                ///< 0.5 cells of their slots; -1: not yet.
    double formation_regroup_s = -1;            ///< Scenario runs with a passage: seconds from its anchor leaving the
                                                ///< passage to the error back under 0.3; -1: not yet.
    double formation_turns = 0;                 ///< Its heading's turning while marching, in right angles.
    std::uint64_t formation_reassignments = 0;  ///< Times its slots were handed out.
    std::uint64_t formation_units_reassigned = 0;  ///< Units whose slot changed then (the first handing out included).
};

/// One unit at the end of a run (SimulationReport::units).
struct SimulationUnit {
    Vec2 start;                ///< Where it spawned (detail runs only; else {0, 0}).
    Vec2 end;                  ///< Where it is now.
    double path_length = 0.0;  ///< Cells walked, summed over the steps (detail runs only).
    double arrival_s = -1.0;   ///< Simulated time it first arrived; -1 when it has not.
    AgentState state = AgentState::moving;
    bool stuck = false;  ///< Moving and flagged stuck (Crowd::stuck).
};

/// The figures of a run so far. Fractions 0..1; distances in cells.
struct SimulationReport {
    std::size_t agents = 0;                  ///< Units spawned (at the start, and by spawners since).
    double seconds = 0.0;                    ///< Simulated time so far.
    double dt = 0.0;                         ///< The step.
    int threads = 0;                         ///< The job system's max_concurrency().
    double arrived_fraction = 0.0;           ///< Arrived at the last per-second sample.
    std::vector<double> arrived_by_second;   ///< Arrived fraction once per simulated second (and at the end).
    std::vector<double> step_ms_by_second;   ///< Mean step (ms) over each simulated second (and the rest at the end).
    double mean_arrival_s = 0.0;             ///< Mean first-arrival time of the units that arrived.
    double max_arrival_s = 0.0;              ///< Latest first-arrival time.
    double arrived_50_s = -1.0;              ///< First step time with half the units arrived; -1: not yet.
    double arrived_90_s = -1.0;              ///< The same for 90% of them.
    std::uint64_t congestion_refreshes = 0;  ///< World::stats().congestion_refreshes (congestion-aware runs).
    CrowdStats crowd;                        ///< Counters of the last step (no_path, stuck, sidestepping).
    std::size_t wall_penetrations = 0;       ///< Unit-steps with the centre in a wall or the disc 5% into one.
    bool nan = false;                        ///< A position became NaN or infinite.
    double max_overlap = 0.0;                ///< Deepest pair overlap at the samples (10 per simulated s), in radii.
    Vec2 max_overlap_at{};                   ///< Midpoint of that pair (cells).
    std::size_t deep_overlap_pairs = 0;      ///< Most pairs deeper than half a radius at one sample.
    double mean_step_ms = 0.0;               ///< World::stats().step_ms, mean over the steps.
    double max_step_ms = 0.0;                ///< Largest step time.
    std::uint64_t state_hash = 0;            ///< Crowd::state_hash(): equal runs give equal hashes.
    bool hierarchical = false;               ///< The map planned hierarchically.
    double graph_ms = 0.0;                   ///< Hierarchical: sector graph build time.
    std::size_t sector_fields = 0;           ///< Hierarchical: sector fields built.
    std::size_t sector_field_bytes = 0;      ///< Hierarchical: their bytes.
    WallMargin wall_margin;                  ///< The margin the groups planned with.
    double danger_distance_mean_start = 0;   ///< Flee: mean distance to the nearest danger at the start.
    double danger_distance_mean_end = 0;     ///< Flee: the same now.
    double danger_distance_min_end = 0;      ///< Flee: the least distance now.
    std::vector<SimulationUnit> units;       ///< Per unit still in the world, in roster order.
    // Groups, exits and arrival regions.
    std::vector<SimulationGroup> groups;  ///< Per group that held units (by id).
    double done_95_s = -1.0;              ///< First step with 95% of all units arrived or gone; -1: not yet.
    std::size_t exited = 0;               ///< Units gone through exits.
    double empty_s = -1.0;                ///< When the last unit left (runs with exits); -1: not yet.
    double exit_rate = 0.0;               ///< Units per second through the exits between the 25% and 75% of
                                          ///< them (0 with fewer than 8 gone).
    std::size_t region_leaks = 0;         ///< Most arrived units at one sample (once per simulated second)
                                          ///< farther from their goal (cost to go) than their region's
                                          ///< radius plus one cell.
    std::size_t passage_arrived = 0;      ///< Scenario runs: most arrived units at one sample in the
                                          ///< scenario's passage while a unit not arrived stood in its
                                          ///< approach (Scenario::passage).
    std::size_t stuck_blocked = 0;        ///< Most units at one sample (once per simulated second) flagged
                                          ///< stuck with another unit within 1.2 (ri + rj) ahead, within 60
                                          ///< degrees of the way they want to go (stuck means wedged with
                                          ///< room ahead: such units are waiting, so this should be 0).
    std::string scenario;                 ///< The scenario run (empty for a plain run).
    std::size_t refused = 0;              ///< Scenario commands refused that may be (TimedCommand::may_refuse).
    std::vector<SpawnerInfo> spawners;    ///< The world's spawners now: emissions, units spawned, skipped, sunk.
    std::uint64_t world_hash = 0;         ///< World::state_hash() now (crowd, terrain, groups, spawners).
};

/// Overlap of a set of equal discs at one moment.
struct OverlapSample {
    float deepest = 0.0f;  ///< Largest (2r - distance) over all pairs, in radii (0 when none touch).
    Vec2 at{};             ///< Midpoint of that pair.
    std::size_t deep = 0;  ///< Pairs overlapping by more than `deep_radii` radii.
};

/// Overlaps of discs of `radius` at `positions` (pairs found through a uniform grid of 2r cells).
TIDE_WORLD_API OverlapSample measure_overlap(std::span<const Vec2> positions, float radius, float deep_radii = 0.5f);

/// True when a disc of radius r at p counts as a wall penetration: p is not finite, its cell is a
/// wall or off the map, or a wall or off-map cell among the 3 x 3 around it is within 0.95 r of p.
TIDE_WORLD_API bool penetrates_wall(const CostField& cost, Vec2 p, float r);

/// A scripted run on its own World (see the file comment). Not thread-safe; the world steps on
/// the job system given to create().
class TIDE_WORLD_API Simulation {
public:
    /// Loads `cost` (named `name` in messages) into a world on `jobs` (which must outlive the
    /// simulation), spawns the units and gives the order. Errors: settings out of range
    /// (invalid_argument, too_large), targets off the map or on walls, no room to spawn.
    static Result<std::unique_ptr<Simulation>> create(JobSystem& jobs, std::string name, CostField cost,
                                                      const SimulationSettings& settings);
    /// Loads `scenario` into a world on `jobs` and runs its script at its times. Of `settings`,
    /// only seconds (0: the scenario's own), dt, detail and world are read.
    static Result<std::unique_ptr<Simulation>> create(JobSystem& jobs, const Scenario& scenario,
                                                      const SimulationSettings& settings);
    ~Simulation();
    Simulation(const Simulation&) = delete;
    Simulation& operator=(const Simulation&) = delete;

    /// Advances one step of settings.dt and measures it; error from World::tick.
    Result<void> step();
    /// Steps until steps_done() == step_count(); error from World::tick.
    Result<void> run();
    /// Steps taken.
    std::int64_t steps_done() const noexcept { return steps_done_; }
    /// Steps of the whole run: ceil(seconds / dt).
    std::int64_t step_count() const noexcept { return step_count_; }
    /// True when the last step took a per-second sample (arrived fraction, overlap).
    bool sampled() const noexcept { return sampled_; }
    /// Arrived fraction at the last sample (0 before the first).
    double arrived_fraction() const noexcept { return arrived_by_second_.empty() ? 0.0 : arrived_by_second_.back(); }
    /// The world (its crowd, units and stats).
    const World& world() const noexcept { return *world_; }
    /// The figures so far.
    SimulationReport report() const;

private:
    Simulation(JobSystem& jobs, const SimulationSettings& settings);
    void start();
    double danger_distance(bool least) const;
    Result<void> read_units();
    std::size_t adopt(AgentId id, Vec2 at);
    std::size_t index_of(AgentId id);
    void measure_overlap();
    void count_stuck_blocked();
    void sample_groups();
    void sample_formations(bool second);
    double in_slot_share(UnitGroupId group, const FormationState& f) const;
    std::vector<SimulationGroup> group_figures() const;
    float cost_to_go(UnitGroupId group, Vec2 p, int size) const;

    SimulationSettings settings_;
    JobSystem* jobs_;
    std::unique_ptr<World> world_;
    std::vector<AgentId> ids_;          // the units spawned (roster order at the start)
    std::optional<Scenario> scenario_;  // scenario runs
    std::size_t next_command_ = 0;      // the script's next command
    // By slot (AgentId::index) of the units spawned: k into ids_ (-1: none), first arrival or exit
    // time, the last group seen, gone through an exit.
    std::vector<std::int32_t> slot_k_;
    std::vector<UnitGroupId> last_group_;
    std::vector<std::uint8_t> exited_;
    std::vector<double> exit_times_;
    std::vector<AgentId> live_;  // this step's live units (slot order)
    struct GroupTrack {
        double done_50 = -1, done_90 = -1, done_95 = -1, done_100 = -1;
        // Formations: per-second errors since it formed, when it formed and arrived in shape, the
        // anchor in the scenario's passage, and when it regrouped after it.
        double formed = -1, arrived = -1, left_passage = -1, regroup = -1, error_sum = 0, error_max = -1;
        std::size_t error_samples = 0;
        bool in_passage = false;
        double last_progress = 0, longest_stall = 0, ref_to_go = -1;
        std::size_t ref_done = 0, ref_units = 0;
    };
    std::vector<GroupTrack> tracks_;  // by UnitGroupId
    double done_95_s_ = -1.0, empty_s_ = -1.0;
    std::size_t leaks_ = 0, passage_arrived_ = 0, stuck_blocked_ = 0;
    std::int64_t step_count_ = 0, steps_done_ = 0;
    int per_second_ = 1;
    bool sampled_ = false;
    std::vector<double> arrival_, walked_;
    std::vector<Vec2> start_at_, last_at_;
    std::vector<double> arrived_by_second_;
    std::vector<double> step_ms_by_second_;
    std::size_t penetrations_ = 0;
    bool nan_ = false;
    Vec2 max_overlap_at_{};
    std::vector<Vec2> pos_;          // this step's positions, in ids_ order (read_units)
    std::vector<AgentState> state_;  // this step's states, in ids_ order
    float radius_ = 0.0f;            // the units' radius (World's, for their size)
    std::size_t deep_pairs_ = 0;
    std::size_t refused_ = 0;  // scenario commands refused that may be
    double max_overlap_ = 0.0, sum_ms_ = 0.0, max_ms_ = 0.0, second_ms_ = 0.0, danger_mean_start_ = 0.0;
    double arrived_50_s_ = -1.0, arrived_90_s_ = -1.0;  // simulated time half and 90% of the units had arrived
};

}  // namespace tide
