#pragma once
// The agent phases of a sub-step (AgentPhases), run by Crowd::substep() over ranges of agents,
// and what they hand each other. Defined in agent_phases.cpp (run(), the field sample, arrive or
// queue, integration), sleep.cpp, neighbours.cpp, desired_velocity.cpp, walls.cpp and stuck.cpp.

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "arrival.hpp"
#include "formation.hpp"
#include "phases.hpp"
#include "spatial_hash.hpp"
#include "tide/cost_field.hpp"
#include "tide/crowd.hpp"

namespace tide::crowd_detail {

// What the agent phases count in one range of agents: integer sums, so the totals are the same
// for any split.
struct AgentCounts {
    std::size_t arrived = 0, no_path = 0, queued = 0, stuck = 0, sidestepping = 0, walls = 0, asleep = 0;
};

// The sums of every range's AgentCounts.
struct AgentTotals {
    std::atomic<std::size_t> arrived{0}, no_path{0}, queued{0}, stuck{0}, sidestepping{0}, walls{0}, asleep{0};
    void add(const AgentCounts& c) {
        asleep.fetch_add(c.asleep, std::memory_order_relaxed);
        arrived.fetch_add(c.arrived, std::memory_order_relaxed);
        no_path.fetch_add(c.no_path, std::memory_order_relaxed);
        queued.fetch_add(c.queued, std::memory_order_relaxed);
        stuck.fetch_add(c.stuck, std::memory_order_relaxed);
        sidestepping.fetch_add(c.sidestepping, std::memory_order_relaxed);
        walls.fetch_add(c.walls, std::memory_order_relaxed);
    }
};

// Where an agent stands on its field at the start of the sub-step (phase 1); the later phases read it.
struct FieldSample {
    std::uint32_t group;
    const FieldView* steer;              // what it steers by: its group's field, or a congestion-aware one to its goals
    float x, y, r;                       // position and radius
    Cost cell;                           // cost of the cell under its centre
    float terrain;                       // ... as a slowdown (1 on a wall)
    float fx, fy;                        // where the field is read: for a big unit, its top-left cell's centre
    int fcx, fcy;                        // the cell there
    float to_go;                         // cost to go from there
    bool off_block;                      // a big unit on a top-left cell closed to its size: heads off it
    float block_dx, block_dy;            // ... this way
    bool places;                         // its group has an arrival region
    bool filling;                        // ... and the unit is within its fill field (`fill`; sample_fill)
    detail::ArrivalRegions::Steer fill;  // the fill field there (with `filling`)
    float to_pack;                       // what it follows and measures its progress on
    float settle;                        // how far from the goal an arrived unit stays arrived
};

// Where an agent wants to go (phase 5): its desired velocity, cells/s, and the unit heading it
// faces (also while queued; zero when standing).
struct Desired {
    float dvx = 0.0f, dvy = 0.0f;
    float head_x = 0.0f, head_y = 0.0f;
};

// The crowd's per-agent arrays (Crowd::Agents) the agent phases read or update in place, by entry.
// Pointers, not the vectors: a pointer each is one load, a vector through a reference two.
struct AgentArrays {
    const float* px;  // the positions the sub-step started from (nothing writes them before it ends)
    const float* py;
    float* vx;
    float* vy;
    const float* speed;
    float* progress_ref;
    float* progress_clock;
    float* sidestep;
    float* rest_x;
    float* rest_y;
    const std::uint32_t* group;
    std::uint32_t* sight;
    std::uint32_t* sight_from;
    float* aim_x;
    float* aim_y;
    std::uint8_t* stuck;
    std::uint8_t* rest;
    std::uint8_t* held;
    const std::int8_t* hx;
    const std::int8_t* hy;
};

// (A template only because Crowd::Agents is private: Crowd::substep calls it.)
template <class Agents>
AgentArrays agent_arrays(Agents& a) {
    return {.px = a.px.data(),
            .py = a.py.data(),
            .vx = a.vx.data(),
            .vy = a.vy.data(),
            .speed = a.speed.data(),
            .progress_ref = a.progress_ref.data(),
            .progress_clock = a.progress_clock.data(),
            .sidestep = a.sidestep.data(),
            .rest_x = a.rest_x.data(),
            .rest_y = a.rest_y.data(),
            .group = a.group.data(),
            .sight = a.sight.data(),
            .sight_from = a.sight_from.data(),
            .aim_x = a.aim_x.data(),
            .aim_y = a.aim_y.data(),
            .stuck = a.stuck.data(),
            .rest = a.rest.data(),
            .held = a.held.data(),
            .hx = a.hx.data(),
            .hy = a.hy.data()};
}

// The agent phases of a sub-step, run for each agent of a range in order (run()), as
// dtCrowd::update runs its phases: the field where it stands, asleep or not, neighbours, arrive or
// queue, desired velocity, integration (with overlaps and walls), stuck windows, and the writes.
// After the contact passes, rest_and_held() counts rest. Entries are in bucket order, so an
// agent's neighbours are a few runs next to its own entry. Every agent reads the previous state
// (a_: nothing writes positions or states there) and writes only its own entries, so the result
// is the same for any split into ranges.
// The members are the crowd's (the data of its vectors), under their names there. A template only
// so that it can hold the crowd's private GroupField type: Crowd::substep makes the one instance,
// and the file that defines a member called from another file instantiates it explicitly (an
// explicit instantiation may name a private type).
template <class GroupField>
struct AgentPhases {
    AgentArrays a_;
    const GroupField* groups_;  // by group
    const std::uint8_t* group_unit_;
    const float* settle_;
    const std::uint32_t* arrived_in_;
    const LaneSum* lanes_;       // by cell
    std::uint32_t sole_walker_;  // the group of every walking agent (kNoWalkers, kMixedWalkers)
    // What the agent loop writes besides a_, by entry.
    float* nx_;
    float* ny_;
    float* dvx_;
    float* dvy_;
    std::uint8_t* nstate_;
    std::uint8_t* wall_hit_;
    std::int8_t* nhx_;
    std::int8_t* nhy_;
    std::uint8_t* quiet_;
    std::uint8_t* leaving_;
    std::uint32_t* contacts_;
    std::uint8_t* n_contacts_;
    StepView view;
    const detail::SpatialHash& hash;
    const detail::ArrivalRegions& regions;
    const CostField& cost;
    const CrowdParams& P;
    const Cost* cells;
    int W, H;
    float dt;
    const detail::Formations* formations;  // groups marching in formation

    // A formation unit's slot (nullptr: not one).
    struct SlotTarget {
        const detail::GroupFormation* form = nullptr;
        std::size_t slot = 0;
    };
    SlotTarget slot_target(std::size_t k, std::uint32_t group) const;
    AgentState formation_state(std::size_t k, const FieldSample& s, const SlotTarget& t, AgentState st) const;
    Desired formation_velocity(std::size_t k, const FieldSample& s, const Neighbourhood& nb, const SlotTarget& t,
                               AgentState st, std::uint8_t stuck, float sidestep) const;

    AgentCounts run(std::size_t begin, std::size_t end) const;
    FieldSample sample_field(std::size_t k) const;
    void sample_fill(FieldSample& s) const;
    bool stays_asleep(std::size_t k, const FieldSample& s, AgentState& st, AgentCounts& counts) const;
    AgentState arrive_or_queue(std::size_t k, const FieldSample& s, const Neighbourhood& nb, AgentState st,
                               bool& rejoin) const;
    bool in_passage(const FieldSample& s) const;
    Desired desired_velocity(std::size_t k, const FieldSample& s, const Neighbourhood& nb, AgentState st,
                             std::uint8_t stuck, float sidestep) const;
    bool aim_by_sight(std::size_t k, const FieldSample& s, const Neighbourhood& nb, Vec2& f) const;
    Vec2 keep_right(Vec2 f, float oncoming, float x, float y, std::uint32_t group) const;
    bool update_stuck_windows(std::size_t k, const FieldSample& s, const Neighbourhood& nb, AgentState st,
                              const Desired& want, std::uint8_t& stuck, float& sidestep) const;
    void rest_and_held(std::size_t begin, std::size_t end, const float* nx_, const float* ny_) const;
};

// Before the agent phases, on the regions' schedule: queued sleepers look again (sleep.cpp).
void recheck_queued_sleepers(const std::uint8_t* state, std::uint8_t* rest, std::size_t n);

}  // namespace tide::crowd_detail
