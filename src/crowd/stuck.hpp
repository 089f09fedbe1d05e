#pragma once
// One agent's stuck window, run by the stuck phase (stuck.cpp) and by sleepers (sleep.cpp).

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "phases.hpp"
#include "tide/crowd.hpp"

namespace tide::crowd_detail {

// Stuck windows: at the end of each, a moving unit that gained less than stuck_progress of
// cost-to-go is stuck. Cost-to-go is per cell, so a unit gains nothing until it leaves its cell:
// the window lasts at least the time to cross kStuckCells cells at the unit's own speed on this
// terrain (4 s in swamp, cost 6, for a unit of 3 cells/s), never less than stuck_seconds. A unit found
// stuck sidesteps for stuck_sidestep seconds (doubled for each check in a row that finds it stuck,
// up to 8x), to the other side than last time; units faster than kSidestepSpeed on their terrain
// for proportionally less time, so the sidestep covers the same distance.
inline void update_stuck(const CrowdParams& P, AgentState st, float to_go, float terrain, float speed, float dt,
                         bool room, float& clock, float& ref, std::uint8_t& stuck, float& sidestep) {
    sidestep = st == AgentState::moving ? std::max(0.0f, sidestep - dt) : 0.0f;
    if (sidestep > 0.0f) {  // the next window starts when the sidestep is over
        clock = 0.0f;
        ref = to_go;
        return;
    }
    clock += dt;
    const float window = std::max(P.stuck_seconds, kStuckCells * terrain / speed);
    if (clock < window && std::isfinite(ref)) return;
    const bool walking = st == AgentState::moving || st == AgentState::queued;
    const bool no_progress = walking && std::isfinite(ref) && ref - to_go < P.stuck_progress;
    // Queued for part of the window: waiting its turn, not stuck; but a wait on another group's
    // units counts toward the run that lets a unit squeeze past them (crowd.md, "Two-way traffic").
    // Stuck is wedged: no progress with room ahead (`room`: nobody within reach ahead of it now).
    const bool now_stuck = no_progress && st == AgentState::moving && (stuck & kStuckQueued) == 0 && room;
    const bool waits_on_others = no_progress && (stuck & kStuckOthers) != 0;
    int run = (stuck >> kStuckRunShift) & 3;
    if (now_stuck && P.stuck_sidestep > 0.0f) {
        // Alternating sides, twice as long each time: a way out a few cells along a wall is found
        // whichever side it is on.
        // Measured in the distance a unit of kSidestepSpeed covers: faster units step aside for
        // less time (a unit of 20 cells/s would otherwise leave 30 cells behind, and orbit).
        const float pace = std::min(1.0f, kSidestepSpeed * terrain / std::max(speed, 1e-3f));
        sidestep = P.stuck_sidestep * pace * static_cast<float>(1 << run);
        stuck ^= kStuckSide;
    }
    run = no_progress ? std::min(run + 1, 3) : 0;
    stuck = static_cast<std::uint8_t>((run << kStuckRunShift) | (stuck & (kStuckSide | kStuckOnFill)) |
                                      (now_stuck ? kStuckFlag : 0) | (waits_on_others ? kWaitedOnOthers : 0));
    ref = to_go;
    clock = 0.0f;
}

}  // namespace tide::crowd_detail
