// Phase 5 of the agent phases (agent_phases.hpp): the velocity an agent steers toward, from its
// field, the fill field near its arrival region or a point in sight, turned aside by a sidestep and
// kept right of oncoming units.

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "agent_phases.hpp"

namespace tide::crowd_detail {
namespace {

// A stuck unit's way out: the flow turned by 1.2 radians to one side. The side the crowd
// already pushes it toward, else the side stored in the stuck bits (they alternate with every
// check that finds the unit still stuck); never the side with a wall right there.
Vec2 sidestep_direction(const CostField& cost, Vec2 f, const Neighbourhood& nb, float x, float y, std::uint8_t stuck) {
    const float cross = f.x * nb.sy - f.y * nb.sx;  // > 0: the push has a left-hand component
    bool left = std::fabs(cross) > 0.05f ? cross > 0.0f : (stuck & kStuckSide) != 0;
    const float c = kSidestepCos, s = kSidestepSin;
    auto turned = [&](bool to_left) {
        const float sn = to_left ? s : -s;
        return Vec2{f.x * c - f.y * sn, f.x * sn + f.y * c};
    };
    // A wall within 0.6 cells straight to that side: the other side.
    const float px = left ? -f.y : f.y, py = left ? f.x : -f.x;
    if (!cost.passable(floor_to_int(x + px * 0.6f), floor_to_int(y + py * 0.6f))) left = !left;
    return turned(left);
}

}  // namespace

// 5. Desired velocity: the flow at this point (or off a closed block, along the fill field, toward
// a point in sight; turned aside by a sidestep, kept right of oncoming units), at the speed the
// terrain allows; slowing down over the last cells before the goal. Zero when not moving or queued.
template <class GroupField>
Desired AgentPhases<GroupField>::desired_velocity(std::size_t k, const FieldSample& s, const Neighbourhood& nb,
                                                  AgentState st, std::uint8_t stuck, float sidestep) const {
    Desired out;
    if (st != AgentState::moving && st != AgentState::queued) return out;
    Vec2 f{0.0f, 0.0f};
    bool aimed = false;
    if (s.off_block) {
        f = {s.block_dx, s.block_dy};
        aimed = true;
    } else if (s.filling && s.fill.guide && (s.fill.dx != 0.0f || s.fill.dy != 0.0f)) {  // to the next places
        f = {s.fill.dx, s.fill.dy};
        aimed = true;
    } else if (P.line_of_sight && groups_[s.group].sight && sidestep <= 0.0f) {
        aimed = aim_by_sight(k, s, nb, f);
    }
    if (!aimed) f = s.steer->blend({s.fx, s.fy});
    if (sidestep > 0.0f && st == AgentState::moving) f = sidestep_direction(cost, f, nb, s.x, s.y, stuck);
    f = keep_right(f, nb.oncoming, s.x, s.y, s.group);
    out.head_x = f.x;
    out.head_y = f.y;
    const float ease = s.filling ? 1.0f : std::min(1.0f, (s.to_go + 0.25f) / 1.5f);  // slow down at the goal
    const float speed = a_.speed[k] / s.terrain * ease;
    out.dvx = f.x * speed;
    out.dvy = f.y * speed;
    return out;
}

// Line of sight, a function of the unit's own state only: looked for when it enters another cell
// (after a new field or a teleport, at once), but while it walks toward a point it saw, only every
// few cells. True, with the direction to that point in f, when it sees one.
template <class GroupField>
bool AgentPhases<GroupField>::aim_by_sight(std::size_t k, const FieldSample& s, const Neighbourhood& nb,
                                           Vec2& f) const {
    const FieldView& steer = *s.steer;
    const int fcx = s.fcx, fcy = s.fcy;
    const std::uint32_t fcell =
        static_cast<std::uint32_t>(fcy) * static_cast<std::uint32_t>(W) + static_cast<std::uint32_t>(fcx);
    // Walking a clear line: look again only after kSightRecheck cells, or when the point seen is
    // near (past it, the way bends), unless it is the goal (detail::look_again, as tide::Steering).
    const bool again = detail::look_again(steer, static_cast<std::uint32_t>(W), a_.sight_from[k], a_.sight[k], fcell);
    if (again) {
        // A plan made on other costs than the terrain (sized, a class's) is read too.
        const HierarchicalField* const plan = steer.plan().get();
        const detail::SightCosts costs{&cost, group_unit_[s.group],
                                       !plan || &plan->cost() == &cost ? nullptr : &plan->cost()};
        // Alone, a unit takes corners tight; among others it keeps to the cell
        // centres, half a cell off the walls (tight corners jam a crowd).
        const bool corners = nb.near < kCornerCrowd;
        const detail::Sight seen_now =
            detail::look_ahead(steer, costs, {s.fx, s.fy}, s.r, fcell, kLookAheadMoves, corners);
        a_.sight[k] = seen_now.cell;
        a_.aim_x[k] = seen_now.aim.x;
        a_.aim_y[k] = seen_now.aim.y;
        a_.sight_from[k] = fcell;
    }
    if (a_.sight[k] != detail::kNoCell) {
        const float tx = a_.aim_x[k] - s.fx, ty = a_.aim_y[k] - s.fy;
        const float len = std::sqrt(tx * tx + ty * ty);
        if (len > 1e-3f) {
            f = {tx / len, ty / len};
            return true;
        }
    }
    return false;
}

// Keep right of oncoming units of other groups: those in its neighbourhood (`oncoming`) and, while
// units of more than one group walk, the headings summed in the cells ahead (lanes_: all walkers,
// the unit's mates too, since a mate walking the other way in a shared lane is as much in the way).
// While its group alone walks there is no other group to keep right of, and no cell is read (mates
// heading the other way meet where a group converges on its goal, not in a lane: counting them
// there made a single group swirl round its goal).
template <class GroupField>
Vec2 AgentPhases<GroupField>::keep_right(Vec2 f, float oncoming, float x, float y, std::uint32_t group) const {
    const int look = sole_walker_ == group ? 0 : kLaneLook;
    for (int d = 1; d <= look; ++d) {
        const int ax = floor_to_int(x + f.x * d), ay = floor_to_int(y + f.y * d);
        if (ax < 0 || ay < 0 || ax >= W || ay >= H) break;
        const LaneSum lane = lanes_[static_cast<std::size_t>(ay) * W + ax];
        if (lane == 0) continue;
        const float o = -(static_cast<float>(lane_x(lane)) * f.x + static_cast<float>(lane_y(lane)) * f.y) / 127.0f;
        if (o > 0.0f) oncoming += o * 0.5f;
    }
    if (oncoming > 0.0f) {
        const float s = std::min(1.0f, oncoming * kLaneGain) * kLaneTan;
        const float gx = f.x - f.y * s, gy = f.y + f.x * s;
        const float gl = std::sqrt(gx * gx + gy * gy);
        f = {gx / gl, gy / gl};
    }
    return f;
}

// Formations (formation.hpp): the unit's slot, when its group marches in one.
template <class GroupField>
typename AgentPhases<GroupField>::SlotTarget AgentPhases<GroupField>::slot_target(std::size_t k,
                                                                                  std::uint32_t group) const {
    SlotTarget t;
    const detail::GroupFormation* form = formations ? formations->of(group) : nullptr;
    if (!form) return t;
    const std::int32_t slot = formations->slot(view.slot[k]);
    if (slot < 0 || static_cast<std::size_t>(slot) >= form->place.size()) return t;
    t.form = form;
    t.slot = static_cast<std::size_t>(slot);
    return t;
}

// 4, in a formation: arrived on its slot once the anchor stands at the goal (kept within
// kSlotKeep), else moving; cut off stays cut off.
template <class GroupField>
AgentState AgentPhases<GroupField>::formation_state(std::size_t k, const FieldSample& s, const SlotTarget& t,
                                                    AgentState st) const {
    if (st == AgentState::no_path) return st;
    const Vec2 p = t.form->place[t.slot];
    const float d = std::sqrt((s.x - p.x) * (s.x - p.x) + (s.y - p.y) * (s.y - p.y));
    const bool was = view.state[k] == static_cast<std::uint8_t>(AgentState::arrived);
    return t.form->arrived && (d < detail::kSlotArrive || (was && d < detail::kSlotKeep)) ? AgentState::arrived
                                                                                          : AgentState::moving;
}

// 5, in a formation: to its slot (the anchor's velocity plus kSlotGain times the way to it, up to
// the unit's speed) when it can walk there straight; else along its field like any unit (a slot
// hidden behind a wall, a unit cut off from its slot), no faster than the anchor once ahead of it.
template <class GroupField>
Desired AgentPhases<GroupField>::formation_velocity(std::size_t k, const FieldSample& s, const Neighbourhood& nb,
                                                    const SlotTarget& t, AgentState st, std::uint8_t stuck,
                                                    float sidestep) const {
    Desired out;
    if (st != AgentState::moving) return out;
    const detail::GroupFormation& f = *t.form;
    const Vec2 p = f.place[t.slot];
    const float tx = p.x - s.x, ty = p.y - s.y;
    const float d = std::sqrt(tx * tx + ty * ty);
    const float vmax = a_.speed[k] / s.terrain;
    if ((!f.hidden[t.slot] || f.arrived) && (d < 1.5f || detail::open_line(cost, {s.x, s.y}, p))) {
        float vx = f.velocity.x + tx * detail::kSlotGain, vy = f.velocity.y + ty * detail::kSlotGain;
        const float v = std::sqrt(vx * vx + vy * vy);
        if (v > vmax) vx *= vmax / v, vy *= vmax / v;
        out.dvx = vx;
        out.dvy = vy;
        const float h = std::sqrt(vx * vx + vy * vy);
        if (h > 1e-3f) out.head_x = vx / h, out.head_y = vy / h;
        return out;
    }
    out = desired_velocity(k, s, nb, st, stuck, sidestep);
    if (s.to_go < f.anchor_to_go) {  // ahead of the anchor: keep its pace
        const float cap = std::sqrt(f.velocity.x * f.velocity.x + f.velocity.y * f.velocity.y) * 1.2f + 0.2f;
        const float v = std::sqrt(out.dvx * out.dvx + out.dvy * out.dvy);
        if (v > cap) out.dvx *= cap / v, out.dvy *= cap / v;
    }
    return out;
}

// The one instance (Crowd::substep() makes it; an explicit instantiation may name the
// crowd's private group record).
template Desired AgentPhases<Crowd::GroupField>::desired_velocity(std::size_t, const FieldSample&, const Neighbourhood&,
                                                                  AgentState, std::uint8_t, float) const;
template AgentPhases<Crowd::GroupField>::SlotTarget AgentPhases<Crowd::GroupField>::slot_target(std::size_t,
                                                                                                std::uint32_t) const;
template AgentState AgentPhases<Crowd::GroupField>::formation_state(std::size_t, const FieldSample&, const SlotTarget&,
                                                                    AgentState) const;
template Desired AgentPhases<Crowd::GroupField>::formation_velocity(std::size_t, const FieldSample&,
                                                                    const Neighbourhood&, const SlotTarget&, AgentState,
                                                                    std::uint8_t, float) const;

}  // namespace tide::crowd_detail
