#pragma once
// What the crowd step's files share (src/crowd, not installed): the tuning constants, the view of
// the previous state the per-agent phases read (StepView), what one agent's neighbour scan finds
// (Neighbourhood), and the helpers more than one phase calls.
//
// Each phase works on one agent and reads only the previous state (the sorted entries of
// Crowd::a_) and the agent's own intermediate values, so the parallel loop over agents in
// Crowd::substep() is bit-identical for any split.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include "tide/detail/compat.hpp"

#include "../fields/flow_sample.hpp"
#include "arrival.hpp"
#include "look_ahead.hpp"
#include "spatial_hash.hpp"
#include "tide/cost_field.hpp"
#include "tide/crowd.hpp"

namespace tide::crowd_detail {

using detail::floor_to_int;  // floor() for positions, without the libm call
// How often line of sight looks again (look_ahead.hpp).
using detail::kGoalSightRecheck;
using detail::kSightNear;
using detail::kSightRecheck;

inline constexpr float kOverlapShare = 0.5f;   // of a pair's overlap depth each agent resolves per sub-step
inline constexpr float kDeepFlag = 0.625f;     // a contact deeper than this x pack_overlap: deep pass (deep_pass)
inline constexpr int kMaxContacts = 8;         // touching candidates an agent keeps for the contact passes (nearest)
inline constexpr float kContactReach = 1.25f;  // candidates: centres nearer than this many times (ri + rj)
inline constexpr float kStayReach =
    1.2f;  // an arrived unit of a region's pack stays within this many times (ri + rj) of it
inline constexpr float kSteerRate = 8.0f;  // 1/s: how fast velocity closes on the desired one, before the force bound
inline constexpr std::uint8_t kStuckFlag = 1;  // Agents::stuck bit 0: flagged stuck
inline constexpr float kSidestepSpeed = 3.0f;  // a sidestep of stuck_sidestep s covers what a unit of this speed does
inline constexpr std::uint8_t kStuckSide = 2;  // Agents::stuck bit 1: the next sidestep goes to the left
inline constexpr int kStuckRunShift = 2;       // Agents::stuck bits 2-3: windows in a row without progress (to 3)
inline constexpr std::uint8_t kStuckQueued =
    16;  // Agents::stuck bit 4: queued during the current window (so not stuck)
inline constexpr std::uint8_t kStuckOthers =
    32;  // Agents::stuck bit 5: held up by another group's units in this window
inline constexpr std::uint8_t kStuckOnFill =
    128;  // Agents::stuck bit 7: the window measures progress on the fill field
inline constexpr std::uint8_t kWaitedOnOthers =
    64;  // Agents::stuck bit 6: the last window ended held up by other groups
inline constexpr std::uint8_t kHeldSlow =
    1;  // Agents::held bit 0: the last sub-step moved it slower than its slow speed
inline constexpr std::uint8_t kHeldAhead = 2;  // Agents::held bit 1: someone was right ahead of it (see stuck())
inline constexpr int kSqueezeRun = 1;          // windows in a row without progress after which a unit held up by
                                               // other groups squeezes past their standing units
inline constexpr float kStuckCells = 2.0f;     // a stuck window lasts at least the time to cross this many cells
inline constexpr int kLookAheadMoves = 1024;   // how far along its field's path a unit looks for a straight way
inline constexpr std::uint32_t kCornerCrowd =
    1;  // a unit with fewer agents in its interaction range (alone) aims off corners
inline constexpr float kPackDensity = 0.9f;  // of the disc an arrived group packs into (hexagonal packing: 0.907)
inline constexpr float kAccelSpeed = 3.0f;   // cells/s: faster agents get proportionally more than max_force
inline constexpr float kBlockedSpeed =
    0.2f;                                    // below this share of its terrain speed, a unit touching the pack joins it
inline constexpr float kSettleSlack = 1.1f;  // the settle radius over that disc's radius (then + settle_distance)
inline constexpr float kLaneGain = 1.0f;     // keep-right turn per unit of oncoming weight (to kLaneTan)
inline constexpr int kLaneLook = 5;          // cells ahead a unit looks for oncoming units of other groups
inline constexpr float kLaneTan = 1.5f;      // tangent of the largest keep-right turn (56 degrees)
inline constexpr std::uint32_t kNoWalkers = 0xffffffffu;     // a crowd nobody walks in
inline constexpr std::uint32_t kMixedWalkers = 0xfffffffeu;  // ... where units of several groups walk
// Per cell (Crowd::lanes_): the summed headings (x 127) of the agents walking in it, as one integer,
// the x sum plus 2^32 times the y sum, so that one atomic add sums both; lane_x() and lane_y() take
// it apart (exact while each sum stays inside 32 bits: 16 million units in a cell).
using LaneSum = std::int64_t;
inline LaneSum lane_of(int x, int y) noexcept {
    return static_cast<std::int64_t>(x) + static_cast<std::int64_t>(y) * (std::int64_t{1} << 32);
}
inline std::int32_t lane_x(LaneSum s) noexcept {  // the low 32 bits, signed
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(s)));
}
inline std::int32_t lane_y(LaneSum s) noexcept {
    return static_cast<std::int32_t>((s - lane_x(s)) / (std::int64_t{1} << 32));
}
inline constexpr float kAheadCos =
    0.3f;  // a unit within the interaction range and 72 degrees of a unit's heading holds it up
inline constexpr std::uint64_t kRegionSubsteps = 24;  // arrival regions are made again every this many sub-steps
inline constexpr float kRegionKeep =
    1.0f;  // arrived units stay arrived within this many times their region's radius (+1 cell)
// Sleeping (CrowdParams::sleep), as physics engines put resting bodies to sleep.
//  - At rest: an arrived or queued agent that ends a sub-step slower than kSleepSpeed, within
//    kSleepRadius of where its rest began. After kSleepSubsteps such sub-steps in a row it sleeps:
//    it keeps its place, state and heading without a neighbour scan, integration or contact pass.
//  - Why not "touching nobody" or "not moved at all": a packed crowd is held in place by small
//    overlaps that balance out, and the overlap passes keep nudging its agents by thousandths of
//    a cell; neither would ever hold in a pack.
//  - A pack still being joined must give way as a whole to grow round. It does: an agent pressed
//    by a newcomer moves faster than kSleepSpeed and wakes its neighbours in turn (the default
//    map's pack is 0.81 of the ideal disc with sleeping, as without). Waiting instead until no
//    mover is within 8 to 16 cells lets nobody sleep in a crowd that arrives for a minute, and
//    the waiting buys nothing measurable.
//  - Woken by: an awake agent that left its rest in the last sub-step (rest count 0) coming
//    within the interaction range or overlapping it in a contact pass, a new field for its group,
//    a wall painted onto it, the host moving it or changing its radius. A woken agent starts again
//    at rest count 1, so waking runs through a pack only as far as agents actually move. A queued
//    sleeper also wakes every kRegionSubsteps sub-steps to look again (the pack may take it now).
inline constexpr std::uint8_t kSleepSubsteps = 15;
inline constexpr float kSleepSpeed = 0.05f;   // cells/s
inline constexpr float kSleepRadius = 0.05f;  // cells
// A sidestep turns the flow by 1.2 radians (about 70 degrees). Literals, not std::cos: a libm call
// may round differently from the compiler's folding, and results must not depend on the build.
inline constexpr float kSidestepCos = 0.36235775f, kSidestepSin = 0.93203909f;

// Pushes a disc of radius r at (x, y) out of the wall and off-map cells around it, removing the
// velocity component into them. Returns true when it touched a wall. (ox, oy) is the last safe
// centre, used if the centre itself ended inside a wall.
bool push_out_of_walls(const CostField& cost, float r, float ox, float oy, float& x, float& y, float& vx, float& vy);

// What the previous state shows around one agent.
struct Neighbourhood {
    float sx = 0.0f, sy = 0.0f;          // separation within the interaction range
    float ox = 0.0f, oy = 0.0f;          // real overlaps only (what still moves a standing agent)
    float px_fix = 0.0f, py_fix = 0.0f;  // overlap depth along the pair directions, cells
    float vx_fix = 0.0f, vy_fix = 0.0f;  // velocity change: less walking into the agents it overlaps
    bool touches_arrived_mate = false;   // touching (within 5%) an arrived agent of its own group
    bool touches_arrived = false;        // ... of any group
    std::uint32_t near = 0;              // agents within the interaction range
    float gx = 0.0f, gy = 0.0f;          // separation from other groups' units on their way (an arrived unit gives way)
    float oncoming = 0.0f;               // closeness-weighted units of other groups ahead, heading the other way
    bool blocked_ahead = false;          // someone within the interaction range, within 72 degrees of its heading
    bool blocked_by_others = false;      // ... a unit of another group
    bool touches_leaving_mate = false;   // touching a mate that left the pack in the last sub-step
    bool near_arrived = false;           // within kStayReach x (ri + rj) of an arrived agent of any group
};

// The previous state the phases read, and the step's constants.
struct StepView {
    const float* px;
    const float* py;
    const float* vx;  // velocities: only the agent's own is read (the sub-step updates them in place)
    const float* vy;
    const float* radius;
    const std::uint32_t* slot;
    const std::uint32_t* group;
    const std::uint8_t* state;
    float separation_range;
    float yield;                            // CrowdParams::yield_overlap
    const detail::ArrivalRegions* regions;  // which groups share a pack (they do not give way to each other)
    const std::uint8_t* stuck;              // Agents::stuck bits
    const std::int8_t* hx;                  // heading of the last desired velocity (x 127), 0 when not moving
    const std::int8_t* hy;
    const std::uint8_t* rest;  // sub-steps at rest in a row; at kSleepSubsteps (with `sleep`), asleep
    std::uint8_t* wake;        // sleepers an active agent came near: set (only ever to 1) by other agents
    bool sleep;                // CrowdParams::sleep
    float max_radius;          // the largest radius (the hash's buckets are at least 2 x that x separation_range)

    bool asleep(std::uint32_t k) const { return sleep && rest[k] >= kSleepSubsteps; }
    bool walking(std::uint32_t k) const { return state[k] == static_cast<std::uint8_t>(AgentState::moving); }
    // Held up by other groups for kSqueezeRun windows in a row: it squeezes past their standing units.
    bool squeezes(std::uint32_t k) const {
        return ((stuck[k] >> kStuckRunShift) & 3) >= kSqueezeRun && (stuck[k] & kWaitedOnOthers) != 0 &&
               (state[k] == static_cast<std::uint8_t>(AgentState::moving) ||
                state[k] == static_cast<std::uint8_t>(AgentState::queued));
    }
};

// Wakes sleeping entry k at the end of the sub-step. Any number of agents may set it at once, and
// only ever to 1, so the result does not depend on their order.
inline void wake_up(std::uint8_t* wake, std::uint32_t k) {
    tide::detail::relaxed_store(wake[k], 1);
}

// Overlap resolution on positions (velocity untouched: the yield in gather_neighbours takes care of
// walking into mates): each agent of an overlapping pair moves away by a share of the depth, at
// most half a radius per sub-step or contact pass, so a crowd squeezed by its own steering cannot
// pile up on one spot. Jacobi-style (from the previous positions only).
// Moves (x, y) by (fx, fy), shortened to at most half the radius r.
inline void move_at_most_half_radius(float fx, float fy, float r, float& x, float& y) {
    const float f2 = fx * fx + fy * fy, cap = 0.5f * r;
    if (f2 > cap * cap) {
        const float k = cap / std::sqrt(f2);
        fx *= k;
        fy *= k;
    }
    x += fx;
    y += fy;
}

inline void resolve_overlap(const Neighbourhood& nb, float r, float& x, float& y) {
    move_at_most_half_radius(nb.px_fix * kOverlapShare, nb.py_fix * kOverlapShare, r, x, y);
}

// Neighbours: sums over the agents within the interaction range, in sorted order. A run of
// candidates is filtered without branches (most fail the range test, which a branch would
// mispredict), then the hits are summed in run order. The sums live in locals, not in the result
// or through references: the byte stores (wake flags) may alias anything, and sums kept in memory
// made every hit wait for the store of the last one.
//
// A unit that is not moving uses only its contacts, overlaps and arrived mates, all nearer than
// kContactReach x (ri + rj) (`moving` false): unless it wakes sleepers this sub-step, its scan
// keeps only the agents that near and skips the separation sums (Neighbourhood::sx, sy, near stay 0).
Neighbourhood gather_neighbours(const StepView& v, const detail::SpatialHash& hash, std::uint32_t k, bool moving,
                                std::uint32_t* contacts, std::uint8_t& n_contacts_out);

}  // namespace tide::crowd_detail
