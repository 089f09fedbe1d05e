// Formations (Crowd::set_group_formation, formation.hpp): slot shapes, the crossing-free
// assignment, and the per-sub-step walk of each formation's anchor along its group's field.
//
// The anchor is the formation's centre. It follows the group's field (straightened by the same
// look-ahead the units use), at 0.8x the slowest member's speed over the terrain it stands on,
// slower while its units lag behind their slots (it waits for them) and while it turns; it turns at
// most as fast as its outermost slot can follow at 0.6x that speed. A slot is the anchor plus its
// offset turned to the heading; a slot a wall hides from the anchor (the formation meets a gap
// narrower than itself, or a wall beside the road) is pulled to the last open point on the way
// to it, and its unit follows the field instead until it shows again, so the formation files
// through the gap and re-forms behind it. Slots are handed out rank by rank, front first, each
// rank left to right by the units' own places, only when units join or leave: the frame turns
// with the heading, so a turn moves no unit past another.

#include "formation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "../grid/float_to_int.hpp"
#include "look_ahead.hpp"
#include "phases.hpp"

namespace tide {
namespace detail {
namespace {

Vec2 add(Vec2 a, Vec2 b) {
    return {a.x + b.x, a.y + b.y};
}
Vec2 sub(Vec2 a, Vec2 b) {
    return {a.x - b.x, a.y - b.y};
}
Vec2 scale(Vec2 a, float k) {
    return {a.x * k, a.y * k};
}
float dot(Vec2 a, Vec2 b) {
    return a.x * b.x + a.y * b.y;
}
float length(Vec2 a) {
    return std::sqrt(dot(a, a));
}

// Ranks of `count` slots `per_rank` wide, front first, centred.
void box_ranks(std::vector<Vec2>& out, std::size_t count, std::size_t per_rank, float d, float front) {
    const std::size_t ranks = (count + per_rank - 1) / per_rank;
    for (std::size_t r = 0; r < ranks; ++r) {
        const std::size_t in_rank = std::min(per_rank, count - r * per_rank);
        for (std::size_t c = 0; c < in_rank; ++c) {
            out.push_back({(static_cast<float>(c) - 0.5f * static_cast<float>(in_rank - 1)) * d,
                           front - static_cast<float>(r) * d});
        }
    }
}

}  // namespace

std::vector<Vec2> formation_offsets(const Formation& spec, std::size_t n) {
    std::vector<Vec2> out;
    out.reserve(n);
    const float d = spec.spacing;
    switch (spec.shape) {
        case FormationShape::none:
            break;
        case FormationShape::line:
            box_ranks(out, n, std::max<std::size_t>(n, 1), d, 0.0f);
            break;
        case FormationShape::column:
            box_ranks(out, n, 1, d, 0.5f * static_cast<float>(n > 0 ? n - 1 : 0) * d);
            break;
        case FormationShape::box: {
            const std::size_t cols = spec.columns > 0
                                         ? static_cast<std::size_t>(spec.columns)
                                         : std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(std::sqrt(n))));
            const std::size_t ranks = (n + cols - 1) / cols;
            box_ranks(out, n, cols, d, 0.5f * static_cast<float>(ranks > 0 ? ranks - 1 : 0) * d);
            break;
        }
        case FormationShape::wedge: {
            std::size_t ranks = 0;
            while (ranks * ranks < n) ++ranks;  // ranks of 1, 3, 5, ...: r ranks hold r^2 slots
            const float front = 0.5f * static_cast<float>(ranks > 0 ? ranks - 1 : 0) * d;
            for (std::size_t r = 0; r < ranks && out.size() < n; ++r) {
                const std::size_t in_rank = std::min(2 * r + 1, n - out.size());
                for (std::size_t c = 0; c < in_rank; ++c) {
                    out.push_back({(static_cast<float>(c) - 0.5f * static_cast<float>(in_rank - 1)) * d,
                                   front - static_cast<float>(r) * d});
                }
            }
            break;
        }
        case FormationShape::custom: {
            const std::size_t given = std::min(n, spec.offsets.size());
            out.assign(spec.offsets.begin(), spec.offsets.begin() + static_cast<std::ptrdiff_t>(given));
            if (n > given) {  // more units than slots: ranks behind the last slot
                float back = 0.0f;
                for (const Vec2& o : out) back = std::min(back, o.y);
                box_ranks(out, n - given,
                          std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(std::sqrt(n - given)))), d,
                          back - d);
            }
            break;
        }
    }
    return out;
}

bool open_line(const CostField& cost, Vec2 a, Vec2 b) {
    // The cells the segment crosses, in order (Amanatides and Woo's grid walk): each must be open;
    // where it passes a cell corner exactly, both cells beside the corner must be open too.
    int x = floor_to_int(a.x), y = floor_to_int(a.y);
    const int ex = floor_to_int(b.x), ey = floor_to_int(b.y);
    if (!cost.contains(x, y) || !cost.passable(x, y)) return false;
    const float dx = b.x - a.x, dy = b.y - a.y;
    const int sx = dx > 0.0f ? 1 : -1, sy = dy > 0.0f ? 1 : -1;
    constexpr float kFar = 1e30f;
    const float tdx = dx != 0.0f ? std::fabs(1.0f / dx) : kFar, tdy = dy != 0.0f ? std::fabs(1.0f / dy) : kFar;
    float tx = dx != 0.0f ? (dx > 0.0f ? static_cast<float>(x + 1) - a.x : a.x - static_cast<float>(x)) * tdx : kFar;
    float ty = dy != 0.0f ? (dy > 0.0f ? static_cast<float>(y + 1) - a.y : a.y - static_cast<float>(y)) * tdy : kFar;
    for (int guard = 0; (x != ex || y != ey) && guard < 1 << 20; ++guard) {
        if (tx > 1.0f && ty > 1.0f) break;  // (rounding at the end point)
        if (std::fabs(tx - ty) < 1e-6f) {   // through a corner: both cells beside it
            if (!cost.contains(x + sx, y) || !cost.passable(x + sx, y) || !cost.contains(x, y + sy) ||
                !cost.passable(x, y + sy))
                return false;
            x += sx, y += sy;
            tx += tdx, ty += tdy;
        } else if (tx < ty) {
            x += sx;
            tx += tdx;
        } else {
            y += sy;
            ty += tdy;
        }
        if (!cost.contains(x, y) || !cost.passable(x, y)) return false;
    }
    return true;
}

// The last point of the line from a toward b that open_line() reaches, drawn back 0.3 cells
// toward a (off the wall it met); a when none.
Vec2 last_open_point(const CostField& cost, Vec2 a, Vec2 b) {
    const Vec2 ab = sub(b, a);
    const float len = length(ab);
    if (len < 1e-6f) return a;
    float lo = 0.0f, hi = 1.0f;
    for (int i = 0; i < 10; ++i) {
        const float mid = 0.5f * (lo + hi);
        if (open_line(cost, a, add(a, scale(ab, mid)))) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    const float back = std::max(0.0f, lo * len - 0.3f) / len;
    return add(a, scale(ab, back));
}

// How far from p along unit vector d the line stays open, up to `reach` (cells).
float free_distance(const CostField& cost, Vec2 p, Vec2 d, float reach) {
    const Vec2 end = add(p, scale(d, reach));
    if (open_line(cost, p, end)) return reach;
    return length(sub(last_open_point(cost, p, end), p)) + 0.3f;
}

}  // namespace detail

using detail::GroupFormation;

Result<void> check_formation(const Formation& formation) {
    if (formation.shape != FormationShape::none) {
        if (!(formation.spacing >= 0.3f && formation.spacing <= 8.0f)) {
            return Error{"formation spacing " + std::to_string(formation.spacing) + " is outside 0.3..8 cells"};
        }
        if (formation.columns < 0 || formation.columns > 1000) {
            return Error{"formation columns " + std::to_string(formation.columns) + " is outside 0..1000"};
        }
        if (formation.offsets.size() > kMaxFormationSlots) {
            return Error{ErrorCode::too_large, std::to_string(formation.offsets.size()) +
                                                   " formation offsets: at most " + std::to_string(kMaxFormationSlots)};
        }
        for (const Vec2& o : formation.offsets) {
            if (!std::isfinite(o.x) || !std::isfinite(o.y) || std::fabs(o.x) > 1e5f || std::fabs(o.y) > 1e5f) {
                return Error{"a custom formation offset is not finite or beyond 100,000 cells"};
            }
        }
        if (formation.shape == FormationShape::custom && formation.offsets.empty()) {
            return Error{"a custom formation needs offsets"};
        }
        if (!std::isfinite(formation.facing.x) || !std::isfinite(formation.facing.y)) {
            return Error{"formation facing is not finite"};
        }
    }
    return {};
}

Result<void> Crowd::set_group_formation(GroupId group, const Formation& formation) {
    if (!has_group(group)) return unknown_group(group);
    const GroupField& f = groups_[group.index];
    if (formation.shape != FormationShape::none) {
        if (f.exit) return Error{"group " + std::to_string(group.index) + " leaves by exits: no formation"};
        if (f.field.kind() != FieldKind::goal) {
            return Error{"group " + std::to_string(group.index) + " flees: a formation needs goals"};
        }
    }
    if (auto r = check_formation(formation); !r) return r;
    auto& all = formations_->groups;
    if (all.size() <= group.index) all.resize(group.index + 1);
    GroupFormation& g = all[group.index];
    g = GroupFormation{};
    g.active = formation.shape != FormationShape::none;
    g.spec = formation;
    const float fl = std::sqrt(formation.facing.x * formation.facing.x + formation.facing.y * formation.facing.y);
    g.spec.facing = fl > 1e-6f ? Vec2{formation.facing.x / fl, formation.facing.y / fl} : Vec2{0.0f, 0.0f};
    return {};
}

FormationState Crowd::group_formation(GroupId group) const {
    FormationState out;
    if (!has_group(group)) return out;
    const GroupFormation* g = formations_->of(group.index);
    if (!g) return out;
    out.active = true;
    out.arrived = g->arrived;
    out.anchor = g->anchor;
    out.heading = g->heading;
    out.slots = g->place;
    out.hidden = g->hidden;
    out.error = g->error;
    out.reassignments = g->reassignments;
    out.units_reassigned = g->units_reassigned;
    out.turned = g->turned;
    return out;
}

int Crowd::formation_slot(AgentId id) const noexcept {
    if (!valid(id) || !formations_->of(a_.group[index_of(id)])) return -1;
    return formations_->slot(id.index);
}

namespace {

// Hands out the slots of `g` to the members (entries `members`, by slot order): ranks front
// first, each left to right by the units' places in the formation's frame.
void assign_slots(GroupFormation& g, const std::vector<std::uint32_t>& members, const float* px, const float* py,
                  const std::uint32_t* agent_slot, std::vector<std::int32_t>& slot_of) {
    g.offsets = detail::formation_offsets(g.spec, members.size());
    const Vec2 fwd = g.heading, right{-g.heading.y, g.heading.x};
    struct Unit {
        float lateral, ahead;
        std::uint32_t slot;
    };
    std::vector<Unit> units;
    units.reserve(members.size());
    for (const std::uint32_t e : members) {
        const Vec2 d{px[e] - g.anchor.x, py[e] - g.anchor.y};
        units.push_back({d.x * right.x + d.y * right.y, d.x * fwd.x + d.y * fwd.y, agent_slot[e]});
    }
    std::sort(units.begin(), units.end(),
              [](const Unit& a, const Unit& b) { return a.ahead != b.ahead ? a.ahead > b.ahead : a.slot < b.slot; });
    std::vector<std::uint32_t> order(g.offsets.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const Vec2 oa = g.offsets[a], ob = g.offsets[b];
        if (std::fabs(oa.y - ob.y) > 1e-4f) return oa.y > ob.y;
        return oa.x != ob.x ? oa.x < ob.x : a < b;
    });
    std::uint64_t changed = 0;
    for (std::size_t first = 0; first < order.size();) {
        std::size_t last = first + 1;  // the rank: slots of (about) the same y
        while (last < order.size() && std::fabs(g.offsets[order[last]].y - g.offsets[order[first]].y) <= 1e-4f) ++last;
        std::sort(units.begin() + static_cast<std::ptrdiff_t>(first), units.begin() + static_cast<std::ptrdiff_t>(last),
                  [](const Unit& a, const Unit& b) {
                      return a.lateral != b.lateral ? a.lateral < b.lateral : a.slot < b.slot;
                  });
        for (std::size_t i = first; i < last; ++i) {
            const std::int32_t s = static_cast<std::int32_t>(order[i]);
            std::int32_t& mine = slot_of[units[i].slot];
            changed += mine != s;
            mine = s;
        }
        first = last;
    }
    ++g.reassignments;
    g.units_reassigned += changed;
    g.members = members.size();
}

// Turns unit vector `from` toward unit vector `to` by at most `max_angle` radians.
Vec2 turn_toward(Vec2 from, Vec2 to, float max_angle) {
    const float c = std::clamp(from.x * to.x + from.y * to.y, -1.0f, 1.0f);
    const float angle = std::acos(c);
    if (angle <= max_angle) return to;
    const float side = from.x * to.y - from.y * to.x >= 0.0f ? 1.0f : -1.0f;
    const float a = max_angle * side, ca = std::cos(a), sa = std::sin(a);
    return {from.x * ca - from.y * sa, from.x * sa + from.y * ca};
}

}  // namespace

namespace {

// The members' arrays the update reads (by entry).
struct Members {
    const std::vector<std::uint32_t>& entries;  // the group's entries, by slot
    const float* px;
    const float* py;
    const std::uint32_t* slot;
};

// The anchor at the members' centre (or the member nearest it when that is no place to stand),
// facing the field's way there.
void start_anchor(GroupFormation& g, const Members& m, const CostField& cost, const FieldView& field) {
    double sx = 0.0, sy = 0.0;
    for (const std::uint32_t e : m.entries) sx += m.px[e], sy += m.py[e];
    const double n = static_cast<double>(m.entries.size());
    Vec2 c{static_cast<float>(sx / n), static_cast<float>(sy / n)};
    const int cx = detail::clamped_int(c.x, 0, cost.width() - 1), cy = detail::clamped_int(c.y, 0, cost.height() - 1);
    if (!cost.passable(cx, cy) || !(field.to_go(cx, cy) < kUnreachable)) {
        float best = std::numeric_limits<float>::infinity();
        Vec2 at = c;
        for (const std::uint32_t e : m.entries) {
            const float d = (m.px[e] - c.x) * (m.px[e] - c.x) + (m.py[e] - c.y) * (m.py[e] - c.y);
            if (d < best) best = d, at = {m.px[e], m.py[e]};
        }
        c = at;
    }
    g.anchor = c;
    const Vec2 dir = field.sample(c);
    const float l = std::sqrt(dir.x * dir.x + dir.y * dir.y);
    g.heading = l > 1e-6f ? Vec2{dir.x / l, dir.y / l} : Vec2{1.0f, 0.0f};
    g.arrived = false;
    g.started = true;
    g.members = 0;
}

// True when the slots must be handed out again: units joined or left, or one holds none or a slot
// another holds.
bool needs_slots(const GroupFormation& g, const Members& m, const std::vector<std::int32_t>& slot_of,
                 std::vector<std::uint8_t>& taken) {
    if (m.entries.size() != g.members) return true;
    taken.assign(g.offsets.size(), 0);
    for (const std::uint32_t e : m.entries) {
        const std::int32_t s = slot_of[m.slot[e]];
        if (s < 0 || static_cast<std::size_t>(s) >= taken.size() || taken[static_cast<std::size_t>(s)]++) return true;
    }
    return false;
}

// The units' mean distance to their slots (the places of the last update), and the share of them
// whose slot a wall hides.
void measure(GroupFormation& g, const Members& m, const std::vector<std::int32_t>& slot_of, float& hidden_share) {
    float err = 0.0f;
    hidden_share = 0.0f;
    if (g.place.size() != g.offsets.size()) {
        g.error = 0.0f;
        return;
    }
    std::size_t hidden = 0;
    for (const std::uint32_t e : m.entries) {
        const auto s = static_cast<std::size_t>(slot_of[m.slot[e]]);
        const Vec2 t = g.place[s];
        err += std::sqrt((m.px[e] - t.x) * (m.px[e] - t.x) + (m.py[e] - t.y) * (m.py[e] - t.y));
        hidden += g.hidden[s];
    }
    const auto n = static_cast<float>(m.entries.size());
    g.error = err / n;
    hidden_share = static_cast<float>(hidden) / n;
}

// The anchor walks on along the field (see the file comment): slower while its units lag and
// while walls hide their slots, turning no faster than its outer slots can follow, moved across
// toward the side with more room; at the goal it settles on the goal cell's centre and turns to
// the order's facing.
void walk_anchor(GroupFormation& g, const CostField& cost, const FieldView& field, float slowest, float hidden_share,
                 float dt) {
    const int W = cost.width(), H = cost.height();
    float reach = 1.0f, half_width = 0.5f;
    for (const Vec2& o : g.offsets) {
        reach = std::max(reach, std::sqrt(o.x * o.x + o.y * o.y));
        half_width = std::max(half_width, std::fabs(o.x) + 0.5f);
    }
    const int ax = detail::clamped_int(g.anchor.x, 0, W - 1), ay = detail::clamped_int(g.anchor.y, 0, H - 1);
    const Cost here = cost.at(ax, ay);
    const float base = 0.8f * slowest / (here == kCostWall ? 1.0f : static_cast<float>(here));
    const float max_turn = 0.6f * base / reach * dt;
    g.anchor_to_go = field.to_go(ax, ay);
    g.velocity = {0.0f, 0.0f};
    if (!g.arrived && g.anchor_to_go <= 0.0f) g.arrived = true;
    if (g.arrived) {
        const Vec2 centre{static_cast<float>(ax) + 0.5f, static_cast<float>(ay) + 0.5f};
        const Vec2 to = {centre.x - g.anchor.x, centre.y - g.anchor.y};
        const float l = std::sqrt(to.x * to.x + to.y * to.y);
        const float step = std::min(l, base * dt);
        if (l > 1e-6f) g.anchor = {g.anchor.x + to.x / l * step, g.anchor.y + to.y / l * step};
        if (g.spec.facing.x != 0.0f || g.spec.facing.y != 0.0f)
            g.heading = turn_toward(g.heading, g.spec.facing, max_turn);
        return;
    }
    Vec2 dir{0.0f, 0.0f};
    const detail::Sight sight = detail::look_ahead(
        field, detail::SightCosts{&cost, 1, nullptr}, g.anchor, 0.35f,
        static_cast<std::uint32_t>(ay) * static_cast<std::uint32_t>(W) + static_cast<std::uint32_t>(ax),
        crowd_detail::kLookAheadMoves, false);
    if (sight.cell != detail::kNoCell) dir = {sight.aim.x - g.anchor.x, sight.aim.y - g.anchor.y};
    if (dir.x == 0.0f && dir.y == 0.0f) dir = field.sample(g.anchor);
    const float l = std::sqrt(dir.x * dir.x + dir.y * dir.y);
    if (l <= 1e-6f) return;
    dir = {dir.x / l, dir.y / l};
    const Vec2 before = g.heading;
    g.heading = turn_toward(g.heading, dir, max_turn);
    g.turned += std::acos(std::clamp(before.x * g.heading.x + before.y * g.heading.y, -1.0f, 1.0f));
    // Waits for units that lag, and more for those a wall still hides from their slots (they file
    // through a gap behind the others).
    const float lag =
        std::clamp(1.5f - 0.5f * g.error, 0.2f, 1.0f) * std::clamp(1.0f - 1.5f * hidden_share, 0.25f, 1.0f);
    const float align = std::max(0.0f, g.heading.x * dir.x + g.heading.y * dir.y);
    const float v = base * lag * (0.25f + 0.75f * align);
    // Centred in the free width: a wall nearer than half the formation's width on one side and
    // room on the other move the anchor across (up to half its pace), so the formation keeps off
    // walls and round corners instead of hugging them.
    const Vec2 side{-g.heading.y, g.heading.x};
    const float room_r = detail::free_distance(cost, g.anchor, side, half_width);
    const float room_l = detail::free_distance(cost, g.anchor, {-side.x, -side.y}, half_width);
    const float shift = std::clamp(0.5f * (room_r - room_l), -0.5f * v, 0.5f * v);
    const Vec2 next{g.anchor.x + (dir.x * v + side.x * shift) * dt, g.anchor.y + (dir.y * v + side.y * shift) * dt};
    const int nx = detail::clamped_int(next.x, 0, W - 1), ny = detail::clamped_int(next.y, 0, H - 1);
    if (cost.passable(nx, ny) && detail::open_line(cost, g.anchor, next)) {
        g.velocity = {dir.x * v + side.x * shift, dir.y * v + side.y * shift};
        g.anchor = next;
        if (field.to_go(nx, ny) <= 0.0f) g.arrived = true;
    }
}

// Each slot's place now: the anchor plus its offset turned to the heading, pulled to the last open
// point toward it when a wall hides it from the anchor.
void place_slots(GroupFormation& g, const CostField& cost) {
    const float W = static_cast<float>(cost.width()), H = static_cast<float>(cost.height());
    const Vec2 fwd = g.heading, right{-g.heading.y, g.heading.x};
    g.place.resize(g.offsets.size());
    g.hidden.resize(g.offsets.size());
    for (std::size_t i = 0; i < g.offsets.size(); ++i) {
        const Vec2 o = g.offsets[i];
        Vec2 p{g.anchor.x + right.x * o.x + fwd.x * o.y, g.anchor.y + right.y * o.x + fwd.y * o.y};
        p.x = std::clamp(p.x, 0.01f, W - 0.01f);
        p.y = std::clamp(p.y, 0.01f, H - 0.01f);
        const bool open = detail::open_line(cost, g.anchor, p);
        g.hidden[i] = open ? 0 : 1;
        g.place[i] = open ? p : detail::last_open_point(cost, g.anchor, p);
    }
}

}  // namespace

// Once per sub-step, in slot order on this thread: each formation's members, then its phases.
void Crowd::update_formations(float dt) {
    detail::Formations& F = *formations_;
    if (!F.any()) return;
    if (F.slot_of.size() < generation_.size()) F.slot_of.resize(generation_.size(), -1);
    auto& members = F.members;
    members.resize(F.groups.size());
    for (auto& list : members) list.clear();
    for (std::size_t e = 0; e < live_; ++e) {
        const std::uint32_t g = a_.group[e];
        if (F.of(g)) members[g].push_back(static_cast<std::uint32_t>(e));
    }
    for (std::size_t gi = 0; gi < F.groups.size(); ++gi) {
        GroupFormation& g = F.groups[gi];
        if (!g.active) continue;
        auto& entries = members[gi];
        if (entries.empty()) {
            g.started = false;
            continue;
        }
        std::sort(entries.begin(), entries.end(),
                  [&](std::uint32_t a, std::uint32_t b) { return a_.slot[a] < a_.slot[b]; });
        const Members m{entries, a_.px.data(), a_.py.data(), a_.slot.data()};
        const GroupField& gf = groups_[gi];
        const FieldView& field = gf.steer ? gf.steer : gf.field;
        float slowest = a_.speed[entries[0]];
        for (const std::uint32_t e : entries) slowest = std::min(slowest, a_.speed[e]);
        if (!g.started) start_anchor(g, m, *cost_, field);
        if (needs_slots(g, m, F.slot_of, F.taken)) assign_slots(g, entries, m.px, m.py, m.slot, F.slot_of);
        float hidden_share = 0.0f;
        measure(g, m, F.slot_of, hidden_share);
        walk_anchor(g, *cost_, field, slowest, hidden_share, dt);
        place_slots(g, *cost_);
    }
}

}  // namespace tide
