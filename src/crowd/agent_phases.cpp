// The agent phases of a sub-step (agent_phases.hpp), run() and the phases kept here: the field
// where an agent stands, arrive or queue, and integration. The others: sleep.cpp (asleep, rest
// counts), neighbours.cpp (the neighbour scan), desired_velocity.cpp, walls.cpp (wall push-out),
// stuck.cpp (stuck windows).

#include "agent_phases.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include "../grid/float_to_int.hpp"

namespace tide::crowd_detail {
namespace {

// States, first half: cut off, arrived (and re-activated when the goal moved away), moving.
// `settle` is how far from the goal an arrived unit stays arrived (the group's settle radius, or
// its arrival region's); with `places` (an arrival region, or exits: units walk on through them)
// arrival is not decided by the distance to the goal.
AgentState state_from_field(AgentState st, float to_go, float settle, float arrival_distance, bool places) {
    if (to_go == kUnreachable) return AgentState::no_path;
    if (st == AgentState::arrived) return to_go > settle + 1.0f ? AgentState::moving : st;
    return to_go <= arrival_distance && !places ? AgentState::arrived : AgentState::moving;
}

// Integration: acceleration toward the desired velocity (moving) or to a stop (otherwise; only a
// real overlap still pushes, so a pack spreads until nobody overlaps and then stands still),
// bounded by `accel` (max_force, more for fast agents); velocity bounded by the terrain's speed;
// then the position.
void integrate(const CrowdParams& P, AgentState st, const Neighbourhood& nb, float dvx, float dvy, float vmax,
               float accel, float dt, float& x, float& y, float& vx, float& vy) {
    float ax, ay;
    if (st == AgentState::moving || st == AgentState::queued) {
        ax = (dvx - vx) * kSteerRate + nb.sx * P.separation;
        ay = (dvy - vy) * kSteerRate + nb.sy * P.separation;
    } else {
        // Standing: only real overlaps push, and units of other groups on their way, for whom it
        // steps aside.
        ax = -vx * kSteerRate + nb.ox * P.separation * kSteerRate + nb.gx * P.separation;
        ay = -vy * kSteerRate + nb.oy * P.separation * kSteerRate + nb.gy * P.separation;
    }
    const float a = std::sqrt(ax * ax + ay * ay);
    if (a > accel) {
        ax *= accel / a;
        ay *= accel / a;
    }
    vx += ax * dt;
    vy += ay * dt;
    const float v = std::sqrt(vx * vx + vy * vy);
    if (v > vmax) {
        vx *= vmax / v;
        vy *= vmax / v;
    }
    if (st != AgentState::moving && st != AgentState::queued && v < 1e-3f && nb.ox * nb.ox + nb.oy * nb.oy < 1e-6f)
        vx = vy = 0.0f;  // settle
    x += vx * dt;
    y += vy * dt;
}

}  // namespace

template <class GroupField>
AgentCounts AgentPhases<GroupField>::run(std::size_t begin, std::size_t end) const {
    AgentCounts counts;  // a local: the byte stores may alias anything in memory
    for (std::size_t k = begin; k < end; ++k) {
        // 1. The field where the agent stands.
        FieldSample s = sample_field(k);
        // An exit: a unit whose (top-left) cell is one leaves (remove_leavers(), after the sub-step).
        leaving_[k] = groups_[s.group].exit && s.to_go <= 0.0f &&
                      view.state[k] != static_cast<std::uint8_t>(AgentState::arrived);  // (kept: once)
        // States from the field, neighbours, then the stopping chain reaction near the goal.
        AgentState st = state_from_field(static_cast<AgentState>(view.state[k]), s.to_go, s.settle, P.arrival_distance,
                                         s.places || groups_[s.group].exit);
        // 2. Asleep: it stays as it was, where it is.
        if (stays_asleep(k, s, st, counts)) continue;
        sample_fill(s);
        // 3. Neighbours.
        const Neighbourhood nb = gather_neighbours(view, hash, static_cast<std::uint32_t>(k), st == AgentState::moving,
                                                   &contacts_[k * kMaxContacts], n_contacts_[k]);
        // 4. Arrive, queue, or rejoin the walkers (in a formation: arrived on its slot, or moving).
        bool rejoin = false;
        const SlotTarget slot = slot_target(k, s.group);
        st = slot.form ? formation_state(k, s, slot, st) : arrive_or_queue(k, s, nb, st, rejoin);
        // 5. Desired velocity.
        std::uint8_t stuck = a_.stuck[k];
        float sidestep = a_.sidestep[k];
        const Desired want = slot.form ? formation_velocity(k, s, nb, slot, st, stuck, sidestep)
                                       : desired_velocity(k, s, nb, st, stuck, sidestep);

        // 6. Integrate, resolve overlaps, then push the disc out of walls and the map border,
        // dropping the velocity into them.
        float x = s.x, y = s.y, vx = a_.vx[k], vy = a_.vy[k];
        const float safe_x = x, safe_y = y;
        vx += nb.vx_fix;  // walk less into the agents it overlaps
        vy += nb.vy_fix;
        // Agents faster than kAccelSpeed accelerate (and brake) in proportion: the time to top
        // speed stays kAccelSpeed / max_force (a 20 cells/s unit at 12 cells/s^2 needed 17
        // cells to stop and overshot every pack).
        const float accel = P.max_force * std::max(1.0f, a_.speed[k] / kAccelSpeed);
        integrate(P, st, nb, want.dvx, want.dvy, a_.speed[k] / s.terrain, accel, dt, x, y, vx, vy);
        resolve_overlap(nb, s.r, x, y);
        const std::uint8_t hit = push_out_of_walls(cost, s.r, safe_x, safe_y, x, y, vx, vy) ? 1 : 0;

        // 7. Stuck windows; a stuck unit sidesteps.
        // (A formation's unit keeps its slot's pace, not its own: never stuck, no sidestep.)
        bool someone_ahead = false;
        if (slot.form) {
            stuck = 0;
            sidestep = 0.0f;
        } else {
            someone_ahead = update_stuck_windows(k, s, nb, st, want, stuck, sidestep);
        }

        // 8. The agent's new entries (a_ keeps the old positions and states until the sub-step ends).
        nx_[k] = x;
        ny_[k] = y;
        a_.vx[k] = vx;  // only this agent reads its velocity
        a_.vy[k] = vy;
        dvx_[k] = want.dvx;
        dvy_[k] = want.dvy;
        nstate_[k] = static_cast<std::uint8_t>(rejoin ? AgentState::moving : st);  // (see rejoin)
        wall_hit_[k] = hit;
        nhx_[k] = static_cast<std::int8_t>(detail::clamped_round(want.head_x * 127.0f, -127, 127));
        nhy_[k] = static_cast<std::int8_t>(detail::clamped_round(want.head_y * 127.0f, -127, 127));
        // 0 active (moving, or arrived or queued but not slow yet), 2 calm.
        quiet_[k] = (st != AgentState::arrived && st != AgentState::queued) || rejoin ||
                            vx * vx + vy * vy >= kSleepSpeed * kSleepSpeed
                        ? 0
                        : 2;
        a_.stuck[k] = stuck;
        a_.sidestep[k] = sidestep;
        if (rejoin) st = AgentState::moving;  // (counted as what it is from now on)
        counts.arrived += st == AgentState::arrived;
        counts.no_path += st == AgentState::no_path;
        counts.queued += st == AgentState::queued;
        counts.stuck += (stuck & kStuckFlag) != 0 && !someone_ahead;
        counts.sidestepping += sidestep > 0.0f;
        counts.walls += hit;
    }
    return counts;
}

// 1. The field where agent k stands: its cost to go, a big unit's way off a closed block, its
// arrival region's fill field, and how far from the goal it stays arrived.
template <class GroupField>
FieldSample AgentPhases<GroupField>::sample_field(std::size_t k) const {
    FieldSample s;
    const std::uint32_t group = view.group[k];
    s.group = group;
    // The group's field or plan (FieldView reads either), and the one the unit steers by:
    // its group's, or a congestion-aware field toward the same goals.
    const FieldView& field = groups_[group].field;
    s.steer = groups_[group].steer ? &groups_[group].steer : &field;
    const float x = view.px[k], y = view.py[k];
    s.x = x;
    s.y = y;
    s.r = view.radius[k];
    const int cx = detail::clamped_int(x, 0, W - 1), cy = detail::clamped_int(y, 0, H - 1);
    s.cell = cells[static_cast<std::size_t>(cy) * W + cx];
    s.terrain = s.cell == kCostWall ? 1.0f : static_cast<float>(s.cell);
    // A unit of size s follows the field with its top-left cell: the field is read at its
    // centre moved (s - 1) / 2 cells up and left.
    const float lift = 0.5f * static_cast<float>(group_unit_[group] - 1);
    const float fx = x - lift, fy = y - lift;
    const int fcx = detail::clamped_int(fx, 0, W - 1), fcy = detail::clamped_int(fy, 0, H - 1);
    s.fx = fx;
    s.fy = fy;
    s.fcx = fcx;
    s.fcy = fcy;
    float to_go = field.to_go(fcx, fcy);
    // A big unit beside a wall's corner can stand where its top-left cell is closed to its
    // size (the block's far corner cell is the wall, which its round body does not reach):
    // it heads for the nearest open top-left cell next to it instead of reporting no path.
    s.off_block = false;
    s.block_dx = s.block_dy = 0.0f;
    if (lift > 0.0f && !(to_go < kUnreachable)) {
        float best = std::numeric_limits<float>::infinity();
        for (int oy = -1; oy <= 1; ++oy) {
            for (int ox = -1; ox <= 1; ++ox) {
                const int tx = fcx + ox, ty = fcy + oy;
                if ((ox == 0 && oy == 0) || tx < 0 || ty < 0 || tx >= W || ty >= H) continue;
                const float v = field.to_go(tx, ty);
                if (!(v < kUnreachable)) continue;
                const float ddx = static_cast<float>(tx) + 0.5f - fx, ddy = static_cast<float>(ty) + 0.5f - fy;
                const float d = std::sqrt(ddx * ddx + ddy * ddy);
                if (d < best) {  // the nearest; ties: the first in row order
                    best = d;
                    to_go = v + d;
                    s.block_dx = ddx / d;
                    s.block_dy = ddy / d;
                    s.off_block = true;
                }
            }
        }
    }
    s.to_go = to_go;
    // Groups with an arrival region fill it: near it units follow its fill field to a free
    // place, and arrive there (src/crowd/arrival.*).
    // (The fill field itself is read by sample_fill, after the sleepers have stayed asleep.)
    s.places = regions.active(group);
    s.filling = false;
    s.to_pack = to_go;
    // How far from the goal an arrived unit stays arrived: with places, well beyond the
    // region (a region made again as traffic comes and goes must not wake its pack).
    s.settle = s.places ? kRegionKeep * regions.radius(group) : settle_[group];
    return s;
}

// 1b. The arrival region's fill field where an awake agent stands, and what it then follows and
// measures its progress on: near the region once the pack has started (or is anchored away from
// the goal) the fill field, else its field.
template <class GroupField>
void AgentPhases<GroupField>::sample_fill(FieldSample& s) const {
    s.filling = s.places && !s.off_block && regions.steer(s.group, s.fx, s.fy, s.fill);
    s.to_pack = s.filling && s.fill.guide ? s.fill.value : s.to_go;
}

// 4. Touching the pack near the goal, or blocked against it for a whole window: the unit arrives
// where its group's arrival region lets it stand, and otherwise waits its turn (queued), as does a
// unit held up by anyone right ahead of it.
// An arrived unit of a region's pack that stands apart from every arrived unit (farther than
// kStayReach: the pack's own pressure drifts a unit off its edge by a few hundredths of a cell,
// which must not send it walking round the pack) is not part of the pack (unless it touches a mate
// that left the pack just now: two units touching each other and nobody else took turns, one
// arriving by the other as that one left), and one pushed into a passage units still come through
// must leave it: from the next sub-step it walks on (`rejoin`; this one it was looked at as a
// standing unit, whose neighbour scan leaves out what a walking unit reads). One on a cell the
// pack covers stays: it arrived there without touching anyone (below).
template <class GroupField>
AgentState AgentPhases<GroupField>::arrive_or_queue(std::size_t k, const FieldSample& s, const Neighbourhood& nb,
                                                    AgentState st, bool& rejoin) const {
    const std::uint32_t group = s.group;
    const float vx = a_.vx[k], vy = a_.vy[k];
    // Slow against the pack counts only once a stuck window has run since the unit's field
    // last changed (restart_stuck_windows): a pack woken by a new field (a flee order, a
    // goal moved) starts from rest and would otherwise settle again where it stands.
    // Slow: its velocity, or what the last sub-step made good of it (a unit pressing into a
    // pack keeps its velocity while the contact passes hold it in place).
    const bool slow =
        std::isfinite(a_.progress_ref[k]) &&
        ((a_.held[k] & kHeldSlow) != 0 ||
         vx * vx + vy * vy < kBlockedSpeed * kBlockedSpeed * a_.speed[k] * a_.speed[k] / (s.terrain * s.terrain));
    // In a passage: looked up only where it decides something (an arrived unit of a region's
    // pack, or a walking one near its region), since most units are neither.
    const bool passage =
        s.places && (st == AgentState::arrived || (st == AgentState::moving && s.filling)) && in_passage(s);
    // (Nor does one standing alone at the anchor while it is free, where it may arrive
    // touching nobody: see `arrives` below.)
    const detail::ArrivalRegions::Steer& fill = s.fill;
    const bool at_place = s.filling && fill.place && fill.anchor;
    rejoin = st == AgentState::arrived && s.places &&
             ((arrived_in_[group] > 1 && !nb.near_arrived && !nb.touches_leaving_mate && !at_place && !fill.taken) ||
              passage);
    if (st != AgentState::moving) return st;
    const bool blocked = (a_.stuck[k] & kStuckFlag) != 0 || slow || ((a_.stuck[k] >> kStuckRunShift) & 3) != 0;
    // With a region, the pack gathers round its anchor as it would round the goal, and
    // only inside the region.
    // With a region: a unit arrives touching the pack within its key (the pack's radius
    // along the region, see arrival.hpp), at the free place it was led to and held up
    // there, wedged against the pack, or held up against it for two whole windows
    // without progress; the first one at the lowest place. Touching the pack further
    // out, it goes on round it (a pack that took every unit at its first touch would
    // grow in branches). A unit held up at the anchor while it is free arrives there
    // even touching no arrived mate: units crowding the anchor while a few mates stand
    // arrived a cell away (a small pond, a late rejoin) must not queue for ever. So does one
    // held up on a cell the pack covers (taken), touching or not: beside a free place the
    // fill field leads it from that cell to the place and the place leads it back toward the
    // anchor, and it went to and fro for minutes a few hundredths of a cell short of the
    // arrived units there (the gap swap ordered 3.9 s after the load, field builds late).
    const bool arrives = s.places
                             ? s.filling && !passage && regions.allows(group, s.fcx, s.fcy) &&
                                   ((nb.touches_arrived && (fill.key <= settle_[group] || (fill.place && slow) ||
                                                            (a_.stuck[k] & kStuckFlag) != 0 ||
                                                            (slow && ((a_.stuck[k] >> kStuckRunShift) & 3) >= 2))) ||
                                    (arrived_in_[group] == 0 && fill.place && fill.key <= settle_[group]) ||
                                    (at_place && slow) || (fill.taken && (slow || nb.blocked_ahead)))
                             : !groups_[group].exit && nb.touches_arrived_mate && (s.to_go <= s.settle || blocked);
    if (arrives) return AgentState::arrived;
    if (slow && (nb.touches_arrived_mate || nb.blocked_ahead)) return AgentState::queued;
    return st;
}

// A passage units of the region's group still come through, under any part of the unit's disc
// (the cells under its box).
template <class GroupField>
bool AgentPhases<GroupField>::in_passage(const FieldSample& s) const {
    const float reach = s.r - 0.5f * static_cast<float>(group_unit_[s.group] - 1);
    const int x0 = std::max(0, floor_to_int(s.fx - reach)), x1 = std::min(W - 1, floor_to_int(s.fx + reach));
    const int y0 = std::max(0, floor_to_int(s.fy - reach)), y1 = std::min(H - 1, floor_to_int(s.fy + reach));
    bool passage = false;
    for (int py = y0; py <= y1 && !passage; ++py)
        for (int px = x0; px <= x1 && !passage; ++px)
            passage = regions.keep_clear(s.group, static_cast<std::uint32_t>(py) * static_cast<std::uint32_t>(W) +
                                                      static_cast<std::uint32_t>(px));
    return passage;
}

// The one instance (Crowd::substep() makes it; an explicit instantiation may name the
// crowd's private group record).
template AgentCounts AgentPhases<Crowd::GroupField>::run(std::size_t, std::size_t) const;

}  // namespace tide::crowd_detail
