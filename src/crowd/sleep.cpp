// Sleeping (CrowdParams::sleep; the rules are with the constants, phases.hpp): an agent at rest
// skips the agent phases (phase 2, stays_asleep), rest counts after the contact passes
// (rest_and_held), and queued sleepers looking again on the regions' schedule.

#include <algorithm>
#include <cmath>

#include "../grid/float_to_int.hpp"
#include "agent_phases.hpp"
#include "stuck.hpp"

namespace tide::crowd_detail {

// Before the agent phases: a queued sleeper waits on others, so it looks again every
// kRegionSubsteps sub-steps (the pack it queues at may have grown to take it), without waking its
// neighbours.
void recheck_queued_sleepers(const std::uint8_t* state, std::uint8_t* rest, std::size_t n) {
    for (std::size_t e = 0; e < n; ++e) {
        if (state[e] == static_cast<std::uint8_t>(AgentState::queued) && rest[e] >= kSleepSubsteps) rest[e] = 1;
    }
}

// 2. Asleep (so arrived, or queued), still with a path, and no wall was painted onto it (an agent
// at rest against a wall may touch it): it stays as it was where it is, without a neighbour scan;
// only its stuck clock runs on. Deep in a big pack the cost to go can exceed the settle radius:
// awake, such an agent stays arrived by touching the arrived mates around it, which have not moved
// either. A new field wakes the group (restart_stuck_windows); a queue wakes as the unit ahead
// moves on. Returns true when it stayed (its entries written, counted); a sleeper a wall's push
// would move goes on as awake, from the state it slept in (st).
template <class GroupField>
bool AgentPhases<GroupField>::stays_asleep(std::size_t k, const FieldSample& s, AgentState& st,
                                           AgentCounts& counts) const {
    if (st == AgentState::no_path || s.cell == kCostWall || !view.asleep(static_cast<std::uint32_t>(k)) ||
        (s.places && s.to_go > s.settle + 1.0f)) {
        return false;
    }
    const bool waiting = view.state[k] == static_cast<std::uint8_t>(AgentState::queued);
    st = waiting ? AgentState::queued : AgentState::arrived;
    const float x = s.x, y = s.y;
    float wx = x, wy = y, wvx = 0.0f, wvy = 0.0f;
    push_out_of_walls(cost, s.r, x, y, wx, wy, wvx, wvy);
    if (!(std::fabs(wx - x) < 1e-3f && std::fabs(wy - y) < 1e-3f)) return false;
    float clock = a_.progress_clock[k], ref = a_.progress_ref[k], sidestep = a_.sidestep[k];
    std::uint8_t stuck = a_.stuck[k];
    update_stuck(P, st, s.to_go, s.terrain, a_.speed[k], dt, true, clock, ref, stuck, sidestep);
    a_.progress_clock[k] = clock;
    a_.progress_ref[k] = ref;
    a_.sidestep[k] = sidestep;
    a_.stuck[k] = stuck;
    a_.vx[k] = a_.vy[k] = 0.0f;
    nx_[k] = x;
    ny_[k] = y;
    dvx_[k] = dvy_[k] = 0.0f;
    nstate_[k] = static_cast<std::uint8_t>(st);
    nhx_[k] = waiting ? a_.hx[k] : std::int8_t{0};  // a queue still faces its way
    nhy_[k] = waiting ? a_.hy[k] : std::int8_t{0};
    wall_hit_[k] = 0;
    n_contacts_[k] = 0;  // the contact passes leave it where it is
    quiet_[k] = 2;
    counts.arrived += !waiting;
    counts.queued += waiting;
    ++counts.asleep;
    counts.stuck += (stuck & kStuckFlag) != 0 && (a_.held[k] & kHeldAhead) == 0;
    return true;
}

// After the contact passes: rest counts, one more if the agent was at rest through the contact
// passes too; 0 if it moved; 1 (awake, not moved) if a mover woke it. Then the held-slow bit, and
// an arrived unit pushed out of its region's reach (cost to go beyond its radius + 1) walks back
// from the next sub-step.
template <class GroupField>
void AgentPhases<GroupField>::rest_and_held(std::size_t begin, std::size_t end, const float* nx_,
                                            const float* ny_) const {
    for (std::size_t k = begin; k < end; ++k) {
        const float dx = nx_[k] - a_.rest_x[k], dy = ny_[k] - a_.rest_y[k];
        const bool still =
            quiet_[k] == 2 && view.wake[k] == 0 && a_.rest[k] > 0 && dx * dx + dy * dy < kSleepRadius * kSleepRadius;
        std::uint8_t rest = 0;
        if (still) {
            rest = static_cast<std::uint8_t>(std::min(255, a_.rest[k] + 1));
        } else if (quiet_[k] != 0) {
            rest = 1;  // a rest (re)starts here: calm, but drifted or woken
            a_.rest_x[k] = nx_[k];
            a_.rest_y[k] = ny_[k];
        }
        a_.rest[k] = rest;
        {
            // Held: moved slower than the slow speed over the whole sub-step (a_.px is still
            // where it started).
            const float mx = nx_[k] - a_.px[k], my = ny_[k] - a_.py[k];
            const int cx = detail::clamped_int(a_.px[k], 0, W - 1);
            const int cy = detail::clamped_int(a_.py[k], 0, H - 1);
            const Cost c = cells[static_cast<std::size_t>(cy) * W + cx];
            const float terrain = c == kCostWall ? 1.0f : static_cast<float>(c);
            const float slow = kBlockedSpeed * a_.speed[k] * dt / terrain;
            a_.held[k] = static_cast<std::uint8_t>((a_.held[k] & kHeldAhead) |
                                                   (mx * mx + my * my < slow * slow ? kHeldSlow : 0));
        }
        const std::uint32_t g = a_.group[k];
        if (nstate_[k] == static_cast<std::uint8_t>(AgentState::arrived) && regions.active(g)) {
            const float lift = 0.5f * static_cast<float>(group_unit_[g] - 1);
            const int cx = std::clamp(floor_to_int(nx_[k] - lift), 0, W - 1);
            const int cy = std::clamp(floor_to_int(ny_[k] - lift), 0, H - 1);
            const float to_go = groups_[g].field.to_go(cx, cy);
            if (to_go > kRegionKeep * regions.radius(g) + 1.0f) {
                nstate_[k] = static_cast<std::uint8_t>(AgentState::moving);
                a_.rest[k] = 0;
            }
        }
    }
}

// The one instance (Crowd::substep() makes it; an explicit instantiation may name the
// crowd's private group record).
template bool AgentPhases<Crowd::GroupField>::stays_asleep(std::size_t, const FieldSample&, AgentState&,
                                                           AgentCounts&) const;
template void AgentPhases<Crowd::GroupField>::rest_and_held(std::size_t, std::size_t, const float*, const float*) const;

}  // namespace tide::crowd_detail
