#pragma once
// An ORCA crowd (optimal reciprocal collision avoidance: van den Berg, Guy, Lin, Manocha,
// "Reciprocal n-body collision avoidance", Robotics Research, 2011), the algorithm of RVO2, the
// crowd library many games use: the reference `tide bench crowd` sets beside Tide's crowd. Agents
// only (the benchmark map is open, so there are no static obstacles). Positions in cell units,
// velocities in cells/s, time in seconds; the ORCA plane has no map bounds.
//
// Each step: a uniform grid of the agents (serial), then per agent in parallel its closest
// neighbours within the neighbour distance, one ORCA half-plane per neighbour, and the new velocity
// from the paper's incremental 2D linear program (the 3D program when the half-planes have no
// common point inside the speed disc); then in parallel every agent takes its new velocity and moves.
// Results do not depend on the job system or thread count (each agent writes only its own slot).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tide/simulation.hpp"  // measure_overlap

#include "tide/flow_field.hpp"
#include "tide/jobs.hpp"
#include "tide/result.hpp"

namespace tide::bench {

/// ORCA settings, as an RVO2 user would set them for Tide's default agents (CrowdParams): the same
/// radius and top speed, a time horizon of 2 s (avoid anything that would touch within 2 s) and a
/// neighbour distance of 1.5 cells (about 9 radii, the ratio of RVO2's own examples) with at most
/// 10 neighbours (RVO2's usual value). Plain data.
struct OrcaParams {
    float radius = 0.16f;            ///< Agent radius, cells, (0, 10].
    float max_speed = 3.0f;          ///< Top speed, cells/s, (0, 100].
    float time_horizon = 2.0f;       ///< Seconds ahead the ORCA half-planes keep agents apart, (0, 100].
    float neighbor_distance = 1.5f;  ///< Centre distance within which agents are neighbours, cells, (0, 100].
    int max_neighbors = 10;          ///< Closest neighbours considered per agent, 0..kOrcaMaxNeighbors.
};

/// Largest OrcaParams::max_neighbors (the per-agent scratch lives on the stack).
inline constexpr int kOrcaMaxNeighbors = 64;

/// An ORCA crowd of equal agents. Not thread-safe: one thread calls its methods; step() spreads its
/// own work over the job system.
class OrcaCrowd {
public:
    /// An empty crowd; error (invalid_argument) for a setting out of range.
    static Result<OrcaCrowd> create(const OrcaParams& params = {});

    /// Adds an agent at rest at `position`; returns its index (indices are 0, 1, 2, ... in order).
    /// Error (invalid_argument) for a NaN or infinite position.
    Result<std::size_t> add_agent(Vec2 position);
    /// Sets the velocity an agent would take without neighbours, cells/s (longer than max_speed is
    /// cut to max_speed by the linear program). Error: index out of range (not_found), NaN or infinite.
    Result<void> set_preferred_velocity(std::size_t agent, Vec2 velocity);
    /// Makes every step derive the preferred velocities from `field`: its direction at the agent's
    /// position (FlowField::sample) times max_speed, sampled in the parallel part of the step.
    /// Null: use the velocities set by set_preferred_velocity() again. Shared, immutable.
    void set_goal_field(std::shared_ptr<const FlowField> field) { field_ = std::move(field); }

    /// Advances by `dt` seconds (one ORCA step: new velocities, then positions += velocity * dt).
    /// Error (invalid_argument) for dt <= 0, NaN, infinite or over 10 s.
    Result<void> step(float dt, JobSystem& jobs);

    /// Number of agents.
    std::size_t size() const noexcept { return px_.size(); }
    /// Position of agent `i` (i < size()), cells.
    Vec2 position(std::size_t i) const { return {px_[i], py_[i]}; }
    /// Velocity of agent `i` (i < size()), cells/s.
    Vec2 velocity(std::size_t i) const { return {vx_[i], vy_[i]}; }
    /// Writes every position into `out` (out.size() >= size()).
    void read_positions(std::span<Vec2> out) const;
    /// The settings.
    const OrcaParams& params() const noexcept { return params_; }

private:
    explicit OrcaCrowd(const OrcaParams& params) : params_(params) {}
    void build_grid();

    OrcaParams params_;
    std::shared_ptr<const FlowField> field_;
    std::vector<float> px_, py_, vx_, vy_, pref_x_, pref_y_, new_vx_, new_vy_;
    // The uniform grid of the agents, rebuilt every step: cells of at least the neighbour distance
    // over the agents' bounding box; agents of cell c are grid_agents_[grid_start_[c] .. grid_start_[c+1]).
    float grid_x0_ = 0.0f, grid_y0_ = 0.0f, grid_cell_ = 1.0f;
    int grid_w_ = 0, grid_h_ = 0;
    std::vector<std::uint32_t> grid_start_, grid_agents_, agent_cell_, grid_fill_;
};

// Overlaps are measured by tide::measure_overlap (tide/simulation.hpp), as tide sim does.

}  // namespace tide::bench
