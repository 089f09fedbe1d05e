// Stuck windows (phase 7 of the agent phases, agent_phases.hpp): whether a moving unit made
// progress toward its goal, and the sidestep of one that did not.

#include <algorithm>
#include <cmath>
#include <limits>

#include "agent_phases.hpp"
#include "stuck.hpp"

namespace tide::crowd_detail {

// 7. Stuck: little progress toward the goal during the last window; a stuck unit sidesteps.
// Updates stuck, sidestep, the window (a_.progress_*) and the held-ahead bit; returns whether
// someone is right ahead of the unit.
template <class GroupField>
bool AgentPhases<GroupField>::update_stuck_windows(std::size_t k, const FieldSample& s, const Neighbourhood& nb,
                                                   AgentState st, const Desired& want, std::uint8_t& stuck,
                                                   float& sidestep) const {
    float clock = a_.progress_clock[k];
    float ref = a_.progress_ref[k];
    // Progress is measured on what the unit follows: the fill field near its region.
    // The window restarts when the measure changes (into or out of the fill field's box).
    const bool on_fill = s.filling && s.fill.guide;
    if (on_fill != ((stuck & kStuckOnFill) != 0)) {
        ref = std::numeric_limits<float>::infinity();
        clock = 0.0f;
        stuck = static_cast<std::uint8_t>(stuck ^ kStuckOnFill);
    }
    update_stuck(P, st, s.to_pack, s.terrain, a_.speed[k], dt, !nb.blocked_ahead, clock, ref, stuck, sidestep);
    if (st == AgentState::queued) stuck |= kStuckQueued;
    if (nb.blocked_by_others && (st == AgentState::queued || st == AgentState::moving)) stuck |= kStuckOthers;
    // A unit flagged stuck that has someone right ahead now waits behind it: it reads as
    // not stuck (stuck(), stats) until it has room again; the flag itself runs its window.
    // Ahead of its heading (the neighbour scan), or of the way it now wants to go (a
    // sidestep turns it): a contact candidate within 72 degrees of its desired velocity.
    bool someone_ahead = nb.blocked_ahead;
    const float dvx = want.dvx, dvy = want.dvy;
    const float want2 = dvx * dvx + dvy * dvy;
    if (!someone_ahead && (stuck & kStuckFlag) != 0 && want2 > 1e-12f) {
        const float speed = std::sqrt(want2), ox0 = view.px[k], oy0 = view.py[k];
        const std::uint32_t* const cs = &contacts_[k * kMaxContacts];
        for (std::uint8_t h = 0; h < n_contacts_[k] && !someone_ahead; ++h) {
            const float ddx = view.px[cs[h]] - ox0, ddy = view.py[cs[h]] - oy0;
            const float d = std::sqrt(ddx * ddx + ddy * ddy);
            someone_ahead =
                d < (s.r + view.radius[cs[h]]) * kContactReach && ddx * dvx + ddy * dvy > kAheadCos * d * speed;
        }
    }
    a_.held[k] = static_cast<std::uint8_t>((a_.held[k] & kHeldSlow) | (someone_ahead ? kHeldAhead : 0));
    a_.progress_ref[k] = ref;
    a_.progress_clock[k] = clock;
    return someone_ahead;
}

// The one instance (Crowd::substep() makes it; an explicit instantiation may name the
// crowd's private group record).
template bool AgentPhases<Crowd::GroupField>::update_stuck_windows(std::size_t, const FieldSample&,
                                                                   const Neighbourhood&, AgentState, const Desired&,
                                                                   std::uint8_t&, float&) const;

}  // namespace tide::crowd_detail
