// Crowd step. Each sub-step: (1) counting-sort live agents into a uniform spatial hash; (2) in
// parallel, every agent reads the previous state (its own and its neighbours') and writes its new
// state into separate buffers; (3) swap. Because (2) never reads what it writes and sums its
// neighbours in a fixed order, results are bit-identical for any thread count.

#include "tide/crowd.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <utility>

#include "arrival.hpp"
#include "look_ahead.hpp"
#include "spatial_hash.hpp"
#include "tide/assert.hpp"

namespace tide {
namespace {

std::string vec_text(Vec2 p) {
    return "(" + std::to_string(p.x) + ", " + std::to_string(p.y) + ")";
}

// floor() for values well inside the int range (positions), without the libm call that x86-64
// needs before SSE4.1; exactly static_cast<int>(std::floor(v)) there.
inline int floor_to_int(float v) {
    const int i = static_cast<int>(v);
    return i - (static_cast<float>(i) > v ? 1 : 0);
}

constexpr float kOverlapShare = 0.5f;   // of a pair's overlap depth each agent resolves per sub-step
constexpr float kDeepFlag = 0.625f;     // a contact deeper than this x pack_overlap: deep pass (deep_pass)
constexpr int kMaxContacts = 8;         // touching candidates an agent keeps for the contact passes (nearest)
constexpr float kContactReach = 1.25f;  // candidates: centres nearer than this many times (ri + rj)
constexpr float kStayReach = 1.2f;  // an arrived unit of a region's pack stays within this many times (ri + rj) of it
constexpr float kSteerRate = 8.0f;  // 1/s: how fast velocity closes on the desired one, before the force bound
constexpr std::uint8_t kStuckFlag = 1;        // Agents::stuck bit 0: flagged stuck
constexpr float kSidestepSpeed = 3.0f;        // a sidestep of stuck_sidestep s covers what a unit of this speed does
constexpr std::uint8_t kStuckSide = 2;        // Agents::stuck bit 1: the next sidestep goes to the left
constexpr int kStuckRunShift = 2;             // Agents::stuck bits 2-3: windows in a row without progress (to 3)
constexpr std::uint8_t kStuckQueued = 16;     // Agents::stuck bit 4: queued during the current window (so not stuck)
constexpr std::uint8_t kStuckOthers = 32;     // Agents::stuck bit 5: held up by another group's units in this window
constexpr std::uint8_t kStuckOnFill = 128;    // Agents::stuck bit 7: the window measures progress on the fill field
constexpr std::uint8_t kWaitedOnOthers = 64;  // Agents::stuck bit 6: the last window ended held up by other groups
constexpr std::uint8_t kHeldSlow = 1;      // Agents::held bit 0: the last sub-step moved it slower than its slow speed
constexpr std::uint8_t kHeldAhead = 2;     // Agents::held bit 1: someone was right ahead of it (see stuck())
constexpr int kSqueezeRun = 1;             // windows in a row without progress after which a unit held up by
                                           // other groups squeezes past their standing units
constexpr float kStuckCells = 2.0f;        // a stuck window lasts at least the time to cross this many cells
constexpr int kLookAheadMoves = 1024;      // how far along its field's path a unit looks for a straight way
constexpr int kGoalSightRecheck = 4;       // cells a unit that sees its goal walks before it looks again
constexpr int kSightRecheck = 2;           // the same for a unit that sees a point further along its field's path
constexpr int kSightNear = 3;              // ... or until that point is this close (cells, Chebyshev)
constexpr std::uint32_t kCornerCrowd = 1;  // a unit with fewer agents in its interaction range (alone) aims off corners
constexpr float kPackDensity = 0.9f;       // of the disc an arrived group packs into (hexagonal packing: 0.907)
constexpr float kAccelSpeed = 3.0f;        // cells/s: faster agents get proportionally more than max_force
constexpr float kBlockedSpeed = 0.2f;      // below this share of its terrain speed, a unit touching the pack joins it
constexpr float kSettleSlack = 1.1f;       // the settle radius over that disc's radius (then + settle_distance)
constexpr float kLaneGain = 1.0f;          // keep-right turn per unit of oncoming weight (to kLaneTan)
constexpr int kLaneLook = 5;               // cells ahead a unit looks for oncoming units of other groups
constexpr float kLaneTan = 1.5f;           // tangent of the largest keep-right turn (56 degrees)
constexpr float kAheadCos = 0.3f;  // a unit within the interaction range and 72 degrees of a unit's heading holds it up
constexpr std::uint64_t kRegionSubsteps = 24;  // arrival regions are made again every this many sub-steps
constexpr float kRegionKeep =
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
constexpr std::uint8_t kSleepSubsteps = 15;
constexpr float kSleepSpeed = 0.05f;   // cells/s
constexpr float kSleepRadius = 0.05f;  // cells
// A sidestep turns the flow by 1.2 radians (about 70 degrees). Literals, not std::cos: a libm call
// may round differently from the compiler's folding, and results must not depend on the build.
constexpr float kSidestepCos = 0.36235775f, kSidestepSin = 0.93203909f;

// Pushes a disc of radius r at (x, y) out of the wall and off-map cells around it, removing the
// velocity component into them. Returns true when it touched a wall. (ox, oy) is the last safe
// centre, used if the centre itself ended inside a wall.
bool push_out_of_walls(const CostField& cost, float r, float ox, float oy, float& x, float& y, float& vx, float& vy) {
    {
        // Most discs touch only open cells: one look at the (at most 2 x 2) cells of the disc's
        // bounding box, inside the map, settles it without the passes below.
        const int x0 = floor_to_int(x - r), x1 = floor_to_int(x + r);
        const int y0 = floor_to_int(y - r), y1 = floor_to_int(y + r);
        if (x0 >= 0 && y0 >= 0 && x1 < cost.width() && y1 < cost.height() && x1 - x0 <= 1 && y1 - y0 <= 1) {
            const Cost* const row0 = cost.cells().data() + static_cast<std::size_t>(y0) * cost.width();
            const Cost* const row1 = row0 + static_cast<std::size_t>(y1 - y0) * cost.width();
            if (row0[x0] != kCostWall && row0[x1] != kCostWall && row1[x0] != kCostWall && row1[x1] != kCostWall)
                return false;
        }
    }
    bool hit = false;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1 && !hit) break;  // nothing moved: a second pass would find the same
        // Only the cells the disc's bounding box touches (usually one, at most four: r <= 0.5).
        const int x0 = floor_to_int(x - r), x1 = floor_to_int(x + r);
        const int y0 = floor_to_int(y - r), y1 = floor_to_int(y + r);
        for (int wy = y0; wy <= y1; ++wy) {
            for (int wx = x0; wx <= x1; ++wx) {
                if (cost.passable(wx, wy)) continue;
                const float qx = std::clamp(x, static_cast<float>(wx), static_cast<float>(wx + 1));
                const float qy = std::clamp(y, static_cast<float>(wy), static_cast<float>(wy + 1));
                float nxv = x - qx, nyv = y - qy;
                const float d2 = nxv * nxv + nyv * nyv;
                if (d2 >= r * r) continue;
                hit = true;
                if (d2 < 1e-12f) {
                    if (!cost.passable(floor_to_int(x), floor_to_int(y))) {
                        x = ox;  // centre inside the wall: back to the last safe point
                        y = oy;
                        vx = vy = 0.0f;
                        continue;
                    }
                    // Centre exactly on the wall's edge: push straight away from the wall cell.
                    const float cx = x - (static_cast<float>(wx) + 0.5f), cy = y - (static_cast<float>(wy) + 0.5f);
                    if (std::fabs(cx) >= std::fabs(cy)) {
                        x = (cx > 0.0f ? static_cast<float>(wx + 1) + r : static_cast<float>(wx) - r);
                        if (vx * cx < 0.0f) vx = 0.0f;
                    } else {
                        y = (cy > 0.0f ? static_cast<float>(wy + 1) + r : static_cast<float>(wy) - r);
                        if (vy * cy < 0.0f) vy = 0.0f;
                    }
                    continue;
                }
                const float d = std::sqrt(d2);
                nxv /= d;
                nyv /= d;
                x = qx + nxv * r;
                y = qy + nyv * r;
                const float into = vx * nxv + vy * nyv;
                if (into < 0.0f) {
                    vx -= into * nxv;
                    vy -= into * nyv;
                }
            }
        }
    }
    return hit;
}

}  // namespace

Crowd::Crowd(const CostField& cost, const CrowdParams& params, std::pmr::memory_resource* memory)
    : cost_(&cost),
      params_(params),
      generation_(memory),
      index_(memory),
      free_(memory),
      alive_(memory),
      user_tag_(memory),
      movement_class_(memory),
      a_(memory),
      sorted_(memory),
      nx_(memory),
      ny_(memory),
      dvx_(memory),
      dvy_(memory),
      nstate_(memory),
      wall_hit_(memory),
      nhx_(memory),
      nhy_(memory),
      quiet_(memory),
      wake_(memory),
      contacts_(memory),
      n_contacts_(memory),
      cx_(memory),
      cy_(memory),
      deep_(memory),
      deep_list_(memory),
      deep_x_(memory),
      deep_y_(memory),
      leaving_(memory),
      hash_(std::make_unique<detail::SpatialHash>(memory)),
      regions_(std::make_unique<detail::ArrivalRegions>()),
      arrived_mark_(memory) {}

Crowd::~Crowd() = default;
Crowd::Crowd(Crowd&&) noexcept = default;
Crowd& Crowd::operator=(Crowd&&) noexcept = default;

namespace {

Result<void> check_unit_size(int unit_size) {
    if (unit_size < 1 || unit_size > kMaxUnitSize) {
        return Error{"unit size " + std::to_string(unit_size) + " is outside 1.." + std::to_string(kMaxUnitSize)};
    }
    return {};
}

}  // namespace

Result<GroupId> Crowd::add_group(std::shared_ptr<const FlowField> field, int unit_size, std::uint8_t movement_class) {
    if (!field || field->width() != cost_->width() || field->height() != cost_->height()) {
        return Error{"group field must be built on the crowd's " + std::to_string(cost_->width()) + "x" +
                     std::to_string(cost_->height()) + " map"};
    }
    if (auto r = check_unit_size(unit_size); !r) return r.error();
    const bool sight = sees_along(*field, unit_size);
    return add_group_field(GroupField{FieldView(std::move(field)), sight, {}, {}, false}, unit_size, movement_class);
}

Result<GroupId> Crowd::add_group(std::shared_ptr<const HierarchicalField> field, int unit_size,
                                 std::uint8_t movement_class) {
    if (!field || field->graph().width() != cost_->width() || field->graph().height() != cost_->height()) {
        return Error{"group plan must be made on the crowd's " + std::to_string(cost_->width()) + "x" +
                     std::to_string(cost_->height()) + " map"};
    }
    const bool sight = detail::plans_on(*field);
    return add_group_field(GroupField{FieldView(std::move(field)), sight, {}, {}, false}, unit_size, movement_class);
}

Result<GroupId> Crowd::add_group(FieldView view, int unit_size, std::uint8_t movement_class) {
    if (view.flat()) return add_group(view.flat(), unit_size, movement_class);
    if (view.plan()) return add_group(view.plan(), unit_size, movement_class);
    return Error{"an empty field view: the group needs a field or a plan"};
}

FieldView Crowd::group_field(GroupId group) const {
    return has_group(group) ? groups_[group].field : FieldView{};
}

Result<void> Crowd::set_terrain(const CostField& cost) {
    if (cost.width() != cost_->width() || cost.height() != cost_->height()) {
        return Error{"the crowd's terrain is " + std::to_string(cost_->width()) + "x" +
                     std::to_string(cost_->height()) + ", not " + std::to_string(cost.width()) + "x" +
                     std::to_string(cost.height())};
    }
    cost_ = &cost;
    return {};
}

// The goal cells of a goal field or plan, for the arrival regions (none for flee fields).
std::vector<std::uint32_t> Crowd::goal_cells(const GroupField& f) {
    std::vector<std::uint32_t> out;
    if (f.field.flat() && f.field.kind() == FieldKind::goal) {
        const auto dirs = f.field.flat()->directions();
        for (std::size_t i = 0; i < dirs.size(); ++i)
            if (dirs[i] == Direction::goal) out.push_back(static_cast<std::uint32_t>(i));
    } else if (const auto& plan = f.field.plan()) {
        const auto w = static_cast<std::uint32_t>(plan->graph().width());
        for (const Cell c : plan->goals())
            out.push_back(static_cast<std::uint32_t>(c.y) * w + static_cast<std::uint32_t>(c.x));
    }
    return out;
}

Result<GroupId> Crowd::add_group_field(GroupField field, int unit_size, std::uint8_t movement_class) {
    if (auto r = check_unit_size(unit_size); !r) return r.error();
    field.goals = goal_cells(field);
    regions_stale_ = true;
    if (!free_groups_.empty()) {
        const GroupId g = free_groups_.back();
        free_groups_.pop_back();
        groups_[g] = std::move(field);
        group_unit_[g] = static_cast<std::uint8_t>(unit_size);
        group_class_[g] = movement_class;
        group_members_[g] = 0;
        return g;
    }
    groups_.push_back(std::move(field));
    group_unit_.push_back(static_cast<std::uint8_t>(unit_size));
    group_class_.push_back(movement_class);
    group_members_.push_back(0);
    return static_cast<GroupId>(groups_.size() - 1);
}

// Line of sight may overrule a flat field built on the terrain itself, or for units of size s on
// the terrain's sized costs (sized_cost_field): kept per size with the terrain they were made from,
// and made again when the terrain's cells differ (compared byte for byte: a host may write them
// through CostField::cells(), which does not change the version).
bool Crowd::sees_along(const FlowField& field, int unit_size) {
    if (unit_size == 1) return detail::built_on(field, *cost_);
    const std::size_t k = static_cast<std::size_t>(unit_size);
    if (sized_terrain_.size() <= k) sized_terrain_.resize(k + 1);
    SizedTerrain& sized = sized_terrain_[k];
    const std::span<const Cost> now = cost_->cells();
    if (!sized.cost || sized.source.size() != now.size() || sized.source.width() != cost_->width() ||
        !std::equal(now.begin(), now.end(), sized.source.cells().begin())) {
        sized.cost = std::make_unique<CostField>(sized_cost_field(*cost_, unit_size).value());  // size checked
        sized.source = *cost_;
    }
    return detail::built_on(field, *sized.cost);
}

int Crowd::unit_size(GroupId group) const noexcept {
    return has_group(group) ? group_unit_[group] : 0;
}

std::uint8_t Crowd::movement_class(GroupId group) const noexcept {
    return has_group(group) ? group_class_[group] : 0;
}

Result<void> Crowd::set_group_movement_class(GroupId group, std::uint8_t movement_class) {
    if (!has_group(group)) return Error{ErrorCode::not_found, "unknown group " + std::to_string(group)};
    for (std::size_t e = 0; e < live_; ++e) {
        const std::uint8_t own = movement_class_[a_.slot[e]];
        if (a_.group[e] == group && own != movement_class) {
            return Error{ErrorCode::invalid_argument,
                         "group " + std::to_string(group) + " cannot become movement class " +
                             std::to_string(movement_class) + ": agent " + std::to_string(a_.slot[e]) +
                             " in it is of movement class " + std::to_string(own)};
        }
    }
    group_class_[group] = movement_class;
    return {};
}

// An agent of `movement_class` may be in `group` only when the classes agree: the group's field
// was planned for its class's costs and size, and another class would walk where it cannot.
Result<void> Crowd::check_class(GroupId group, std::uint8_t movement_class, const char* what) const {
    if (group_class_[group] == movement_class) return {};
    return Error{ErrorCode::invalid_argument,
                 std::string(what) + " of movement class " + std::to_string(movement_class) + " cannot join group " +
                     std::to_string(group) + " of movement class " + std::to_string(group_class_[group])};
}

bool Crowd::has_group(GroupId group) const noexcept {
    return group < groups_.size() && static_cast<bool>(groups_[group]);
}

std::size_t Crowd::group_size(GroupId group) const noexcept {
    return has_group(group) ? group_members_[group] : 0;
}

Result<void> Crowd::remove_group(GroupId group) {
    if (!has_group(group)) return Error{ErrorCode::not_found, "unknown group " + std::to_string(group)};
    if (group_members_[group] > 0) {
        return Error{"group " + std::to_string(group) + " still has " + std::to_string(group_members_[group]) +
                     " agents"};
    }
    groups_[group] = GroupField{};
    free_groups_.push_back(group);
    return {};
}

Result<void> Crowd::set_agent_group(AgentId id, GroupId group) {
    if (!valid(id)) return Error{ErrorCode::not_found, "agent " + std::to_string(id.index) + " is not a live agent"};
    if (!has_group(group)) return Error{ErrorCode::not_found, "unknown group " + std::to_string(group)};
    const std::string agent = "agent " + std::to_string(id.index);
    if (auto r = check_class(group, movement_class_[id.index], agent.c_str()); !r) return r;
    const std::size_t e = index_[id.index];
    if (a_.group[e] == group) return {};
    --group_members_[a_.group[e]];
    ++group_members_[group];
    a_.group[e] = group;
    a_.state[e] = static_cast<std::uint8_t>(AgentState::moving);
    a_.progress_ref[e] = std::numeric_limits<float>::infinity();
    a_.progress_clock[e] = 0.0f;
    a_.sidestep[e] = 0.0f;
    a_.stuck[e] = 0;
    a_.sight_from[e] = detail::kNoCell;
    a_.rest[e] = 0;
    return {};
}

Result<void> Crowd::set_agent_group(AgentId id, GroupId group, const AgentParams& params) {
    if (!valid(id)) return Error{ErrorCode::not_found, "agent " + std::to_string(id.index) + " is not a live agent"};
    if (!has_group(group)) return Error{ErrorCode::not_found, "unknown group " + std::to_string(group)};
    if (auto r = check_agent_params(params); !r) return r;
    const std::string agent = "agent " + std::to_string(id.index);
    if (auto r = check_class(group, params.movement_class, agent.c_str()); !r) return r;
    movement_class_[id.index] = params.movement_class;  // first: set_agent_group checks it
    if (auto r = set_agent_group(id, group); !r) return r;
    return set_agent_params(id, params);
}

GroupId Crowd::group(AgentId id) const {
    return a_.group[index_of(id)];
}

Result<void> Crowd::set_group_field(GroupId group, std::shared_ptr<const FlowField> field) {
    if (!field || field->width() != cost_->width() || field->height() != cost_->height()) {
        return Error{"group field must be built on the crowd's map"};
    }
    if (!has_group(group)) return Error{ErrorCode::not_found, "unknown group " + std::to_string(group)};
    const bool sight = sees_along(*field, group_unit_[group]);
    return set_group_field_to(group, GroupField{FieldView(std::move(field)), sight, {}, {}, false});
}

Result<void> Crowd::set_group_field(GroupId group, std::shared_ptr<const HierarchicalField> field) {
    if (!field || field->graph().width() != cost_->width() || field->graph().height() != cost_->height()) {
        return Error{"group plan must be made on the crowd's map"};
    }
    const bool sight = detail::plans_on(*field);
    return set_group_field_to(group, GroupField{FieldView(std::move(field)), sight, {}, {}, false});
}

Result<void> Crowd::set_group_field(GroupId group, FieldView view) {
    if (view.flat()) return set_group_field(group, view.flat());
    if (view.plan()) return set_group_field(group, view.plan());
    return Error{"an empty field view: the group needs a field or a plan"};
}

Result<void> Crowd::set_group_steering(GroupId group, std::shared_ptr<const FlowField> steer) {
    if (!has_group(group)) return Error{ErrorCode::not_found, "unknown group " + std::to_string(group)};
    if (!groups_[group].field.flat()) return Error{"group " + std::to_string(group) + " follows a hierarchical plan"};
    if (steer &&
        (steer->width() != cost_->width() || steer->height() != cost_->height() || steer->kind() != FieldKind::goal)) {
        return Error{"a steering field must be a goal field built on the crowd's map"};
    }
    groups_[group].steer = FieldView(std::move(steer));
    // The members look ahead again along the new field's path (their progress windows go on).
    for (std::size_t e = 0; e < live_; ++e) {
        if (a_.group[e] == group) a_.sight_from[e] = detail::kNoCell;
    }
    return {};
}

std::shared_ptr<const FlowField> Crowd::group_steering(GroupId group) const {
    return has_group(group) ? groups_[group].steer.flat() : nullptr;
}

Result<void> Crowd::set_group_exit(GroupId group, bool exit, bool remove) {
    if (!has_group(group)) return Error{ErrorCode::not_found, "unknown group " + std::to_string(group)};
    if (exit && groups_[group].field.kind() != FieldKind::goal) {
        return Error{"group " + std::to_string(group) + " flees: its field has no goals to leave by"};
    }
    groups_[group].exit = exit;
    groups_[group].exit_keeps = exit && !remove;
    regions_stale_ = true;
    return {};
}

ArrivalRegion Crowd::arrival_region(GroupId group) const {
    ArrivalRegion out;
    if (!has_group(group) || !regions_->active(group)) return out;
    out.active = true;
    out.radius = regions_->radius(group);
    out.cells = regions_->cells(group);
    const std::uint32_t a = regions_->anchor(group);
    if (a != detail::ArrivalRegions::kNoAnchor) {
        const auto w = static_cast<std::uint32_t>(cost_->width());
        out.anchor = {static_cast<int>(a % w), static_cast<int>(a / w)};
    }
    return out;
}

bool Crowd::in_arrival_region(GroupId group, int x, int y) const noexcept {
    return regions_->allows(group, x, y);
}

bool Crowd::group_exit(GroupId group) const noexcept {
    return has_group(group) && groups_[group].exit;
}

Result<void> Crowd::set_group_field_to(GroupId group, GroupField field) {
    if (!has_group(group)) return Error{ErrorCode::not_found, "unknown group " + std::to_string(group)};
    field.goals = goal_cells(field);
    field.exit = groups_[group].exit;
    regions_stale_ = true;
    groups_[group] = std::move(field);
    restart_stuck_windows(group);
    return {};
}

// Progress toward the old goal means nothing now: restart every member's stuck window.
void Crowd::restart_stuck_windows(GroupId group) {
    for (std::size_t e = 0; e < live_; ++e) {
        if (a_.group[e] == group) {
            a_.progress_ref[e] = std::numeric_limits<float>::infinity();
            a_.progress_clock[e] = 0.0f;
            a_.sidestep[e] = 0.0f;
            a_.stuck[e] = 0;
            a_.sight_from[e] = detail::kNoCell;
            a_.rest[e] = 0;  // a new field wakes the group (a sleeper stays arrived, whatever its cost to go)
        }
    }
}

Result<void> Crowd::check_position(Vec2 p) const {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return Error{"agent position " + vec_text(p) + " is not finite"};
    if (p.x < 0.0f || p.y < 0.0f || p.x >= static_cast<float>(cost_->width()) ||
        p.y >= static_cast<float>(cost_->height())) {
        return Error{ErrorCode::off_map, "agent position " + vec_text(p) + " is outside the " +
                                             std::to_string(cost_->width()) + "x" + std::to_string(cost_->height()) +
                                             " map"};
    }
    if (!cost_->passable(static_cast<int>(p.x), static_cast<int>(p.y))) {
        return Error{ErrorCode::on_wall, "agent position " + vec_text(p) + " is inside a wall"};
    }
    return {};
}

Result<AgentId> Crowd::add_agent(Vec2 position, GroupId group, const AgentParams& params) {
    if (auto r = check_position(position); !r) return r.error();
    if (!has_group(group)) return Error{ErrorCode::not_found, "unknown group " + std::to_string(group)};
    if (auto r = check_agent_params(params); !r) return r.error();
    if (auto r = check_class(group, params.movement_class, "an agent"); !r) return r.error();
    const float radius = params.radius, max_speed = params.max_speed;
    std::uint32_t slot;
    if (!free_.empty()) {
        slot = free_.back();
        free_.pop_back();
    } else {
        slot = static_cast<std::uint32_t>(alive_.size());
        generation_.push_back(0);
        index_.push_back(0);
        alive_.push_back(0);
        user_tag_.push_back(0);
        movement_class_.push_back(0);
    }
    user_tag_[slot] = params.user_tag;
    movement_class_[slot] = params.movement_class;
    // A disc overlapping a wall cell is nudged out, so agents start clear of walls.
    float vx0 = 0.0f, vy0 = 0.0f;
    push_out_of_walls(*cost_, radius, position.x, position.y, position.x, position.y, vx0, vy0);
    // New entries go last; the next sub-step sorts them into place.
    a_.px.push_back(position.x);
    a_.py.push_back(position.y);
    a_.vx.push_back(0.0f);
    a_.vy.push_back(0.0f);
    a_.radius.push_back(radius);
    a_.speed.push_back(max_speed);
    a_.progress_ref.push_back(std::numeric_limits<float>::infinity());
    a_.progress_clock.push_back(0.0f);
    a_.sidestep.push_back(0.0f);
    a_.group.push_back(group);
    a_.slot.push_back(slot);
    a_.sight.push_back(detail::kNoCell);
    a_.sight_from.push_back(detail::kNoCell);
    a_.aim_x.push_back(0.0f);
    a_.aim_y.push_back(0.0f);
    a_.state.push_back(static_cast<std::uint8_t>(AgentState::moving));
    a_.stuck.push_back(0);
    a_.rest.push_back(0);
    a_.held.push_back(0);
    a_.hx.push_back(0);
    a_.hy.push_back(0);
    a_.rest_x.push_back(position.x);
    a_.rest_y.push_back(position.y);
    dvx_.push_back(0.0f);
    dvy_.push_back(0.0f);
    wall_hit_.push_back(0);
    alive_[slot] = 1;
    ++group_members_[group];
    index_[slot] = static_cast<std::uint32_t>(live_);
    max_radius_ = std::max(max_radius_, radius);
    ++live_;
    return AgentId{slot, generation_[slot]};
}

bool Crowd::valid(AgentId id) const noexcept {
    return id.index < alive_.size() && alive_[id.index] && generation_[id.index] == id.generation;
}

std::size_t Crowd::index_of(AgentId id) const {
    TIDE_ASSERT(valid(id));
    return index_[id.index];
}

Result<void> Crowd::remove_agent(AgentId id) {
    if (!valid(id))
        return Error{ErrorCode::not_found, "agent " + std::to_string(id.index) + " (generation " +
                                               std::to_string(id.generation) + ") is not a live agent"};
    // The last entry moves into the hole (entry order never affects results: each sub-step
    // sorts by bucket and slot).
    const std::size_t e = index_[id.index], last = live_ - 1;
    --group_members_[a_.group[e]];
    if (e != last) {
        a_.each([&](auto& v) { v[e] = v[last]; });
        dvx_[e] = dvx_[last];
        dvy_[e] = dvy_[last];
        wall_hit_[e] = wall_hit_[last];
        index_[a_.slot[e]] = static_cast<std::uint32_t>(e);
    }
    a_.each([](auto& v) { v.pop_back(); });
    dvx_.pop_back();
    dvy_.pop_back();
    wall_hit_.pop_back();
    alive_[id.index] = 0;
    ++generation_[id.index];
    free_.push_back(id.index);
    --live_;
    max_radius_dirty_ = true;
    return {};
}

Result<void> Crowd::set_params(const CrowdParams& p) {
    auto finite_nonneg = [](float v) { return std::isfinite(v) && v >= 0.0f; };
    if (!(p.radius > 0.0f && p.radius <= kMaxAgentRadius))
        return Error{"radius " + std::to_string(p.radius) + " is outside (0, 4]"};
    if (!(p.max_speed > 0.0f && p.max_speed <= 100.0f)) {
        return Error{"max_speed " + std::to_string(p.max_speed) + " is outside (0, 100]"};
    }
    for (const auto& [name, v] :
         {std::pair{"max_force", p.max_force}, std::pair{"separation", p.separation},
          std::pair{"separation_range", p.separation_range}, std::pair{"arrival_distance", p.arrival_distance},
          std::pair{"settle_distance", p.settle_distance}, std::pair{"stuck_progress", p.stuck_progress},
          std::pair{"stuck_seconds", p.stuck_seconds}, std::pair{"stuck_sidestep", p.stuck_sidestep},
          std::pair{"yield_overlap", p.yield_overlap}, std::pair{"pack_overlap", p.pack_overlap}}) {
        if (!finite_nonneg(v)) return Error{std::string(name) + " " + std::to_string(v) + " must be finite and >= 0"};
    }
    if (!(p.max_substep > 0.0f && p.max_substep <= 0.1f)) {
        return Error{"max_substep " + std::to_string(p.max_substep) + " s is outside (0, 0.1]"};
    }
    if (p.yield_overlap > 1.0f) return Error{"yield_overlap " + std::to_string(p.yield_overlap) + " is above 1"};
    if (p.pack_overlap > 2.0f) return Error{"pack_overlap " + std::to_string(p.pack_overlap) + " is above 2"};
    if (p.contact_passes < 0 || p.contact_passes > 16) {
        return Error{"contact_passes " + std::to_string(p.contact_passes) + " is outside 0..16"};
    }
    if (p.arrival_regions != params_.arrival_regions) regions_stale_ = true;
    params_ = p;
    return {};
}

Result<void> Crowd::set_agent_params(AgentId id, const AgentParams& params) {
    if (!valid(id)) return Error{ErrorCode::not_found, "agent " + std::to_string(id.index) + " is not a live agent"};
    if (auto r = check_agent_params(params); !r) return r;
    const std::size_t e = index_[id.index];
    const std::string agent = "agent " + std::to_string(id.index);
    if (auto r = check_class(a_.group[e], params.movement_class, agent.c_str()); !r) return r;
    a_.radius[e] = params.radius;
    a_.speed[e] = params.max_speed;
    user_tag_[id.index] = params.user_tag;
    movement_class_[id.index] = params.movement_class;
    max_radius_dirty_ = true;
    a_.rest[e] = 0;  // a bigger disc may overlap sleepers: moving, it wakes them
    return {};
}

Result<void> Crowd::set_position(AgentId id, Vec2 position) {
    if (!valid(id)) return Error{ErrorCode::not_found, "agent " + std::to_string(id.index) + " is not a live agent"};
    if (auto r = check_position(position); !r) return r;
    const std::size_t e = index_[id.index];
    float vx0 = 0.0f, vy0 = 0.0f;
    push_out_of_walls(*cost_, a_.radius[e], position.x, position.y, position.x, position.y, vx0, vy0);
    a_.px[e] = position.x;
    a_.py[e] = position.y;
    a_.vx[e] = a_.vy[e] = 0.0f;
    a_.sight_from[e] = detail::kNoCell;
    a_.rest[e] = 0;
    return {};
}

Vec2 Crowd::position(AgentId id) const {
    const std::size_t e = index_of(id);
    return {a_.px[e], a_.py[e]};
}
Vec2 Crowd::velocity(AgentId id) const {
    const std::size_t e = index_of(id);
    return {a_.vx[e], a_.vy[e]};
}
Vec2 Crowd::desired_velocity(AgentId id) const {
    const std::size_t e = index_of(id);
    return {dvx_[e], dvy_[e]};
}
AgentState Crowd::state(AgentId id) const {
    return static_cast<AgentState>(a_.state[index_of(id)]);
}

bool Crowd::stuck(AgentId id) const {
    const std::size_t k = index_of(id);
    return (a_.stuck[k] & kStuckFlag) != 0 && (a_.held[k] & kHeldAhead) == 0;
}

Result<void> Crowd::check_agent_params(const AgentParams& p) const {
    if (!(p.radius > 0.0f && p.radius <= kMaxAgentRadius))
        return Error{"agent radius " + std::to_string(p.radius) + " is outside (0, 4]"};
    if (!(p.max_speed > 0.0f && p.max_speed <= 100.0f)) {
        return Error{"agent speed " + std::to_string(p.max_speed) + " is outside (0, 100]"};
    }
    return {};
}

AgentParams Crowd::default_agent_params() const noexcept {
    AgentParams p;
    p.radius = params_.radius;
    p.max_speed = params_.max_speed;
    return p;
}

AgentParams Crowd::agent_params(AgentId id) const {
    const std::size_t e = index_of(id);
    AgentParams p;
    p.radius = a_.radius[e];
    p.max_speed = a_.speed[e];
    p.movement_class = movement_class_[id.index];
    p.user_tag = user_tag_[id.index];
    return p;
}

Result<std::size_t> Crowd::read_agents(const AgentBuffers& out) const {
    for (std::size_t n : {out.ids.size(), out.positions.size(), out.velocities.size(), out.states.size(),
                          out.groups.size(), out.user_tags.size()}) {
        if (n != 0 && n < live_) {
            return Error{ErrorCode::too_large,
                         std::to_string(live_) + " agents do not fit a buffer of " + std::to_string(n)};
        }
    }
    std::size_t k = 0;
    for (std::size_t s = 0; s < alive_.size(); ++s) {
        if (!alive_[s]) continue;
        const std::size_t e = index_[s];
        if (!out.ids.empty()) out.ids[k] = {static_cast<std::uint32_t>(s), generation_[s]};
        if (!out.positions.empty()) out.positions[k] = {a_.px[e], a_.py[e]};
        if (!out.velocities.empty()) out.velocities[k] = {a_.vx[e], a_.vy[e]};
        if (!out.states.empty()) out.states[k] = static_cast<AgentState>(a_.state[e]);
        if (!out.groups.empty()) out.groups[k] = a_.group[e];
        if (!out.user_tags.empty()) out.user_tags[k] = user_tag_[s];
        ++k;
    }
    return k;
}

std::vector<AgentId> Crowd::agents() const {
    std::vector<AgentId> out;
    out.reserve(live_);
    for (std::size_t i = 0; i < alive_.size(); ++i) {
        if (alive_[i]) out.push_back({static_cast<std::uint32_t>(i), generation_[i]});
    }
    return out;
}

std::uint64_t Crowd::state_hash() const {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&h](const void* data, std::size_t n) {
        const auto* b = static_cast<const unsigned char*>(data);
        for (std::size_t k = 0; k < n; ++k) h = (h ^ b[k]) * 1099511628211ull;
    };
    for (std::size_t i = 0; i < alive_.size(); ++i) {
        if (!alive_[i]) continue;
        const std::uint32_t idx = static_cast<std::uint32_t>(i);
        const std::size_t e = index_[i];
        mix(&idx, sizeof idx);
        mix(&a_.px[e], sizeof(float));
        mix(&a_.py[e], sizeof(float));
        mix(&a_.vx[e], sizeof(float));
        mix(&a_.vy[e], sizeof(float));
        mix(&a_.state[e], 1);
    }
    return h;
}

Result<void> Crowd::step(float dt) {
    SerialJobSystem serial;
    return step(dt, serial);
}

Result<void> Crowd::step(float dt, JobSystem& jobs) {
    if (!(dt > 0.0f) || !std::isfinite(dt) || dt > 10.0f) {
        return Error{"time step " + std::to_string(dt) + " s is not in (0, 10]"};
    }
    const int n = std::max(1, static_cast<int>(std::ceil(dt / params_.max_substep)));
    const float sub = dt / static_cast<float>(n);
    stats_ = {};
    exited_.clear();
    for (int k = 0; k < n; ++k) substep(sub, jobs, k == n - 1);
    time_ += dt;
    stats_.agents = live_;
    stats_.exited = exited_.size();
    return {};
}

void Crowd::sort_agents(JobSystem& jobs) {
    const std::size_t n = live_;
    if (max_radius_dirty_) {
        max_radius_ = 0.0f;
        for (std::size_t e = 0; e < n; ++e) max_radius_ = std::max(max_radius_, a_.radius[e]);
        max_radius_dirty_ = false;
    }
    // Buckets at least as wide as the largest interaction range, so 3x3 buckets cover it.
    hash_->configure(cost_->width(), cost_->height(), 2.0f * max_radius_ * params_.separation_range, n);
    hash_->sort(a_.px.data(), a_.py.data(), a_.slot.data(), n, jobs);

    // The arrived agents' areas per group (for settle_), summed in slot order as always: their
    // slots are marked in a sequential pass over the entries, then read in slot order (a sort of
    // the arrived slots took 4% of a sub-step once thousands had arrived).
    settle_.assign(groups_.size(), 0.0f);
    arrived_in_.assign(groups_.size(), 0);
    arrived_mark_.assign(generation_.size(), 0);
    std::size_t arrived_count = 0;
    const int W = cost_->width(), H = cost_->height();
    {
        const std::size_t cells = static_cast<std::size_t>(cost_->width()) * cost_->height();
        if (lane_x_.size() != cells) {
            lane_x_.assign(cells, 0);
            lane_y_.assign(cells, 0);
            lane_cells_.clear();
        }
        for (std::uint32_t c : lane_cells_) lane_x_[c] = lane_y_[c] = 0;
        lane_cells_.clear();
        for (std::size_t e = 0; e < n; ++e) {
            if (a_.hx[e] == 0 && a_.hy[e] == 0) continue;
            const int cx = std::clamp(static_cast<int>(a_.px[e]), 0, W - 1),
                      cy = std::clamp(static_cast<int>(a_.py[e]), 0, H - 1);
            const std::uint32_t c = static_cast<std::uint32_t>(cy * W + cx);
            if (lane_x_[c] == 0 && lane_y_[c] == 0) lane_cells_.push_back(c);
            lane_x_[c] += a_.hx[e];
            lane_y_[c] += a_.hy[e];
        }
    }
    for (std::size_t e = 0; e < n; ++e) {
        const auto st = static_cast<AgentState>(a_.state[e]);
        // The pack's area: its arrived units, and with an arrival region the units queued at its
        // edge inside the region (they are where the pack grows next).
        bool packed = st == AgentState::arrived;
        if (st == AgentState::queued && regions_->active(a_.group[e])) {
            const float lift = 0.5f * static_cast<float>(group_unit_[a_.group[e]] - 1);
            packed = regions_->allows(a_.group[e], std::clamp(floor_to_int(a_.px[e] - lift), 0, W - 1),
                                      std::clamp(floor_to_int(a_.py[e] - lift), 0, H - 1));
        }
        if (packed) {
            arrived_mark_[a_.slot[e]] = 1;
            ++arrived_count;
        }
        if (st == AgentState::arrived) ++arrived_in_[a_.group[e]];
    }
    for (std::size_t i = 0; arrived_count > 0 && i < arrived_mark_.size(); ++i) {
        if (!arrived_mark_[i]) continue;
        const std::size_t e = index_[i];
        settle_[a_.group[e]] += a_.radius[e] * a_.radius[e];
        --arrived_count;
    }

    // Move every entry to its sorted place (sorted_ <- a_ permuted), then swap.
    const std::uint32_t* const order = hash_->order();
    sorted_.each([n](auto& v) { v.resize(n); });
    // One array at a time, through local pointers: a loop over all twenty at once reloaded every
    // vector's data pointer for every element (the stores might alias them), twice the loads.
    auto gather = [&](std::size_t begin, std::size_t end) {
        a_.each_with(sorted_, [&](const auto& from, auto& to) {
            const auto* const src = from.data();
            auto* const dst = to.data();
            const std::uint32_t* const ord = order;  // locals: byte stores could alias the captures
            for (std::size_t k = begin, stop = end; k < stop; ++k) dst[k] = src[ord[k]];
        });
        const std::uint32_t* const slot = sorted_.slot.data();
        std::uint32_t* const index = index_.data();
        for (std::size_t k = begin; k < end; ++k) index[slot[k]] = static_cast<std::uint32_t>(k);
    };
    parallel_for(jobs, n, 4096, gather);
    std::swap(a_, sorted_);
}

// ---- The sub-step's phases ---------------------------------------------------------------------
// Each phase works on one agent and reads only the previous state (the sorted entries of a_) and
// the agent's own intermediate values, so the parallel loop over agents in substep() is
// bit-identical for any split.

namespace {

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
void wake_up(std::uint8_t* wake, std::uint32_t k) {
    std::atomic_ref<std::uint8_t>(wake[k]).store(1, std::memory_order_relaxed);
}

// The entries in [from, stop) other than k whose centres are nearer to (x, y) than (r + their
// radius) x factor, into hits in entry order; returns how many. Without branches: most candidates
// fail the test, which a branch would mispredict.
inline std::uint32_t in_range(const StepView& v, std::uint32_t k, float x, float y, float r, float factor,
                              std::uint32_t from, std::uint32_t stop, std::uint32_t* hits) {
    std::uint32_t n_hits = 0;
    for (std::uint32_t k2 = from; k2 < stop; ++k2) {
        const float dx = x - v.px[k2], dy = y - v.py[k2];
        const float range = (r + v.radius[k2]) * factor;
        hits[n_hits] = k2;
        n_hits += (dx * dx + dy * dy < range * range) & (k2 != k);
    }
    return n_hits;
}

// Keeps the kMaxContacts nearest contact candidates: adds entry k2 at distance d to the n kept
// (contacts, with their distances in contact_d), replacing the farthest once they are full (the
// first of equals). Returns the new count.
inline std::uint32_t keep_nearest(std::uint32_t* contacts, float* contact_d, std::uint32_t n, std::uint32_t k2,
                                  float d) {
    if (n < kMaxContacts) {
        contacts[n] = k2;
        contact_d[n] = d;
        return n + 1;
    }
    std::uint32_t far = 0;
    for (std::uint32_t c = 1; c < kMaxContacts; ++c)
        if (contact_d[c] > contact_d[far]) far = c;
    if (d < contact_d[far]) {
        contacts[far] = k2;
        contact_d[far] = d;
    }
    return n;
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
                                std::uint32_t* contacts, std::uint8_t& n_contacts_out) {
    struct Run {
        std::uint32_t from, to;
    };
    Run runs[16];  // at most 4 rows of at most 4 buckets (a reach of at most one bucket width)
    int n_runs = 0;
    const float x = v.px[k], y = v.py[k], r = v.radius[k];
    const bool wakes = v.sleep && v.rest[k] == 0;  // an active agent wakes the sleepers in its range
    const bool full = moving || wakes;
    // The kept range: the interaction range, or (not moving) a little more than the contact reach,
    // so that rounding never drops an agent the tests against kContactReach, 1.05 and 1 keep.
    const float factor = full ? v.separation_range : std::min(v.separation_range, kContactReach * 1.01f);
    // No agent beyond (r + max_radius) x factor on either axis can be in range.
    hash.for_each_near(x, y, (r + v.max_radius) * factor, [&](std::uint32_t from, std::uint32_t to) {
        runs[n_runs++] = {from, to};
    });
    float sx = 0.0f, sy = 0.0f, ox = 0.0f, oy = 0.0f, px_fix = 0.0f, py_fix = 0.0f, vx_fix = 0.0f, vy_fix = 0.0f;
    bool touches = false, touches_any = false, leaving = false, near_arrived = false;
    std::uint32_t near = 0;
    float oncoming = 0.0f, gx = 0.0f, gy = 0.0f;
    bool blocked = false, blocked_others = false;
    const bool squeezer = v.squeezes(k);
    const float hxi = v.hx[k], hyi = v.hy[k];
    float contact_d[kMaxContacts];
    std::uint32_t n_contacts = 0;
    const std::uint32_t i = v.slot[k], group = v.group[k];
    const float own_vx = v.vx[k], own_vy = v.vy[k];
    for (int q = 0; q < n_runs; ++q) {
        std::uint32_t from = runs[q].from;
        const std::uint32_t to = runs[q].to;
        constexpr std::uint32_t kBlock = 64;
        std::uint32_t hits[kBlock];
        while (from < to) {
            const std::uint32_t stop = std::min(to, from + kBlock);
            const std::uint32_t n_hits = in_range(v, k, x, y, r, factor, from, stop, hits);
            from = stop;
            for (std::uint32_t h = 0; h < n_hits; ++h) {
                const std::uint32_t k2 = hits[h];
                // A unit long held up by other groups squeezes past their standing units (and they
                // let it): neither sees the other.
                if (v.group[k2] != group && ((squeezer && !v.walking(k2)) || (v.squeezes(k2) && !v.walking(k))))
                    continue;
                float dx = x - v.px[k2], dy = y - v.py[k2];
                const float rr = r + v.radius[k2];
                const float range = rr * v.separation_range;
                float d2 = dx * dx + dy * dy;
                if (d2 < 1e-12f) {  // exactly on top of each other: split by slot order
                    dx = i < v.slot[k2] ? 1e-3f : -1e-3f;
                    dy = 0.0f;
                    d2 = dx * dx;
                }
                const float d = std::sqrt(d2);
                if (full) {
                    const float push = (range - d) / range;
                    ++near;
                    if (v.group[k2] != group) {
                        const float hxj = v.hx[k2], hyj = v.hy[k2];
                        const float facing = hxi * hxj + hyi * hyj;
                        const float ahead = -(dx * hxi + dy * hyi);
                        if (facing < -0.25f * 127.0f * 127.0f && ahead > 0.0f) oncoming += push;
                    }
                    sx += dx / d * push;
                    sy += dy / d * push;
                    if (wakes && v.asleep(k2)) wake_up(v.wake, k2);  // an active agent near: wakes
                }
                if (v.group[k2] != group && (v.hx[k2] != 0 || v.hy[k2] != 0) &&
                    !v.regions->shares(group, v.group[k2])) {  // another group's unit passing through
                    const float reach = rr * kContactReach;
                    if (d < reach) {
                        gx += dx / d * (reach - d) / reach;
                        gy += dy / d * (reach - d) / reach;
                    }
                }
                if (d < rr) {
                    ox += dx / d * (rr - d) / rr;
                    oy += dy / d * (rr - d) / rr;
                    px_fix += dx / d * (rr - d);
                    py_fix += dy / d * (rr - d);
                    // Walking into a mate: the velocity toward it drops, in proportion to the depth
                    // (from none at a touch to all of it at `yield` radii; arrived mates, which
                    // give way, from `yield` to twice that), applied in turn so that two mates ahead
                    // do not drop it twice. Units of other groups squeeze past (counter-flow in a
                    // corridor would otherwise stop both streams).
                    if (v.group[k2] == group && v.yield > 0.0f) {
                        const bool arrived = v.state[k2] == static_cast<std::uint8_t>(AgentState::arrived);
                        const float nx = dx / d, ny = dy / d;
                        const float start = arrived ? v.yield : 0.0f;
                        const float w = std::clamp(((rr - d) / r - start) / v.yield, 0.0f, 1.0f);
                        const float closing = (own_vx + vx_fix) * nx + (own_vy + vy_fix) * ny;
                        if (closing < 0.0f) {
                            vx_fix -= w * closing * nx;
                            vy_fix -= w * closing * ny;
                        }
                    }
                }
                // A contact candidate (among the agents within the interaction range, 1.5 (ri + rj)
                // by default): keep the nearest kMaxContacts.
                if (d < rr * kContactReach) n_contacts = keep_nearest(contacts, contact_d, n_contacts, k2, d);
                const bool ahead = d < range && -(dx * hxi + dy * hyi) > kAheadCos * 127.0f * d;
                blocked |= ahead;
                blocked_others |= ahead && v.group[k2] != group;
                near_arrived |= d < rr * kStayReach && v.state[k2] == static_cast<std::uint8_t>(AgentState::arrived);
                if (d < rr * 1.05f) {
                    if (v.state[k2] == static_cast<std::uint8_t>(AgentState::arrived)) {
                        touches_any = true;
                        touches |= v.group[k2] == group;
                    } else if (v.group[k2] == group && v.hx[k2] == 0 && v.hy[k2] == 0 && v.walking(k2)) {
                        leaving = true;  // a mate that left the pack last sub-step (it has not walked yet)
                    }
                }
            }
        }
    }
    n_contacts_out = static_cast<std::uint8_t>(n_contacts);
    return Neighbourhood{sx,          sy,   ox, oy, px_fix,   py_fix,  vx_fix,         vy_fix,  touches,
                         touches_any, near, gx, gy, oncoming, blocked, blocked_others, leaving, near_arrived};
}

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

// Overlap resolution on positions (velocity untouched: the yield in gather_neighbours takes care of
// walking into mates): each agent of an overlapping pair moves away by a share of the depth, at
// most half a radius per sub-step or contact pass, so a crowd squeezed by its own steering cannot
// pile up on one spot. Jacobi-style (from the previous positions only).
// Moves (x, y) by (fx, fy), shortened to at most half the radius r.
void move_at_most_half_radius(float fx, float fy, float r, float& x, float& y) {
    const float f2 = fx * fx + fy * fy, cap = 0.5f * r;
    if (f2 > cap * cap) {
        const float k = cap / std::sqrt(f2);
        fx *= k;
        fy *= k;
    }
    x += fx;
    y += fy;
}

void resolve_overlap(const Neighbourhood& nb, float r, float& x, float& y) {
    move_at_most_half_radius(nb.px_fix * kOverlapShare, nb.py_fix * kOverlapShare, r, x, y);
}

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

// Stuck windows: at the end of each, a moving unit that gained less than stuck_progress of
// cost-to-go is stuck. Cost-to-go is per cell, so a unit gains nothing until it leaves its cell:
// the window lasts at least the time to cross kStuckCells cells at the unit's own speed on this
// terrain (4 s in swamp, cost 6, for a unit of 3 cells/s), never less than stuck_seconds. A unit found
// stuck sidesteps for stuck_sidestep seconds (doubled for each check in a row that finds it stuck,
// up to 8x), to the other side than last time; units faster than kSidestepSpeed on their terrain
// for proportionally less time, so the sidestep covers the same distance.
void update_stuck(const CrowdParams& P, AgentState st, float to_go, float terrain, float speed, float dt, bool room,
                  float& clock, float& ref, std::uint8_t& stuck, float& sidestep) {
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

// Before the agent phases: a queued sleeper waits on others, so it looks again every
// kRegionSubsteps sub-steps (the pack it queues at may have grown to take it), without waking its
// neighbours.
void recheck_queued_sleepers(const std::uint8_t* state, std::uint8_t* rest, std::size_t n) {
    for (std::size_t e = 0; e < n; ++e) {
        if (state[e] == static_cast<std::uint8_t>(AgentState::queued) && rest[e] >= kSleepSubsteps) rest[e] = 1;
    }
}

// Before the agent phases: settle radii, from each group's arrived area (settle_ on entry, from
// sort_agents). The blob of arrived agents grows with the group: a unit stops against an arrived
// mate within settle_distance plus a little more than the radius of a disc densely packed with the
// group's arrived agents. A unit that touches the pack further out keeps going round it toward the
// goal: stopping at the first touch grows the pack along the lanes units come in by (an X along
// the field's diagonals), as diffusion-limited aggregation does.
// With an arrival region the radius is measured along the ground from the pack's anchor, over the
// region's cells: the pack grows as walls and the region let it.
void update_settle_radii(const CrowdParams& P, const detail::ArrivalRegions& regions, std::vector<float>& settle) {
    for (std::size_t g = 0; g < settle.size(); ++g) {
        const float r2 = settle[g];
        settle[g] =
            regions.active(static_cast<std::uint32_t>(g))
                ? P.settle_distance + regions.pack_key(static_cast<std::uint32_t>(g),
                                                       kSettleSlack * kSettleSlack *
                                                           (std::numbers::pi_v<float> * r2 +
                                                            regions.foreign_area(static_cast<std::uint32_t>(g))) /
                                                           kPackDensity)
                : P.settle_distance + kSettleSlack * std::sqrt(r2 / kPackDensity);
    }
}

// ---- The agent phases of a sub-step ------------------------------------------------------------

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
    bool filling;                        // ... and the unit is within its fill field (`fill`)
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
// so that it can hold the crowd's private GroupField type: Crowd::substep makes the one instance.
template <class GroupField>
struct AgentPhases {
    AgentArrays a_;
    const GroupField* groups_;  // by group
    const std::uint8_t* group_unit_;
    const float* settle_;
    const std::uint32_t* arrived_in_;
    const std::int32_t* lane_x_;  // by cell
    const std::int32_t* lane_y_;
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

    AgentCounts run(std::size_t begin, std::size_t end) const;
    FieldSample sample_field(std::size_t k) const;
    bool stays_asleep(std::size_t k, const FieldSample& s, AgentState& st, AgentCounts& counts) const;
    AgentState arrive_or_queue(std::size_t k, const FieldSample& s, const Neighbourhood& nb, AgentState st,
                               bool& rejoin) const;
    bool in_passage(const FieldSample& s) const;
    Desired desired_velocity(std::size_t k, const FieldSample& s, const Neighbourhood& nb, AgentState st,
                             std::uint8_t stuck, float sidestep) const;
    bool aim_by_sight(std::size_t k, const FieldSample& s, const Neighbourhood& nb, Vec2& f) const;
    Vec2 keep_right(Vec2 f, float oncoming, float x, float y) const;
    bool update_stuck_windows(std::size_t k, const FieldSample& s, const Neighbourhood& nb, AgentState st,
                              const Desired& want, std::uint8_t& stuck, float& sidestep) const;
    void rest_and_held(std::size_t begin, std::size_t end, const float* nx_, const float* ny_) const;
};

template <class GroupField>
AgentCounts AgentPhases<GroupField>::run(std::size_t begin, std::size_t end) const {
    AgentCounts counts;  // a local: the byte stores may alias anything in memory
    for (std::size_t k = begin; k < end; ++k) {
        // 1. The field where the agent stands.
        const FieldSample s = sample_field(k);
        // An exit: a unit whose (top-left) cell is one leaves (remove_leavers(), after the sub-step).
        leaving_[k] = groups_[s.group].exit && s.to_go <= 0.0f &&
                      view.state[k] != static_cast<std::uint8_t>(AgentState::arrived);  // (kept: once)
        // States from the field, neighbours, then the stopping chain reaction near the goal.
        AgentState st = state_from_field(static_cast<AgentState>(view.state[k]), s.to_go, s.settle, P.arrival_distance,
                                         s.places || groups_[s.group].exit);
        // 2. Asleep: it stays as it was, where it is.
        if (stays_asleep(k, s, st, counts)) continue;
        // 3. Neighbours.
        const Neighbourhood nb = gather_neighbours(view, hash, static_cast<std::uint32_t>(k), st == AgentState::moving,
                                                   &contacts_[k * kMaxContacts], n_contacts_[k]);
        // 4. Arrive, queue, or rejoin the walkers.
        bool rejoin = false;
        st = arrive_or_queue(k, s, nb, st, rejoin);
        // 5. Desired velocity.
        std::uint8_t stuck = a_.stuck[k];
        float sidestep = a_.sidestep[k];
        const Desired want = desired_velocity(k, s, nb, st, stuck, sidestep);

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
        const bool someone_ahead = update_stuck_windows(k, s, nb, st, want, stuck, sidestep);

        // 8. The agent's new entries (a_ keeps the old positions and states until the sub-step ends).
        nx_[k] = x;
        ny_[k] = y;
        a_.vx[k] = vx;  // only this agent reads its velocity
        a_.vy[k] = vy;
        dvx_[k] = want.dvx;
        dvy_[k] = want.dvy;
        nstate_[k] = static_cast<std::uint8_t>(rejoin ? AgentState::moving : st);  // (see rejoin)
        wall_hit_[k] = hit;
        nhx_[k] = static_cast<std::int8_t>(std::lround(want.head_x * 127.0f));
        nhy_[k] = static_cast<std::int8_t>(std::lround(want.head_y * 127.0f));
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
    const int cx = std::clamp(static_cast<int>(x), 0, W - 1), cy = std::clamp(static_cast<int>(y), 0, H - 1);
    s.cell = cells[static_cast<std::size_t>(cy) * W + cx];
    s.terrain = s.cell == kCostWall ? 1.0f : static_cast<float>(s.cell);
    // A unit of size s follows the field with its top-left cell: the field is read at its
    // centre moved (s - 1) / 2 cells up and left.
    const float lift = 0.5f * static_cast<float>(group_unit_[group] - 1);
    const float fx = x - lift, fy = y - lift;
    const int fcx = std::clamp(static_cast<int>(fx), 0, W - 1), fcy = std::clamp(static_cast<int>(fy), 0, H - 1);
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
    s.places = regions.active(group);
    s.filling = s.places && !s.off_block && regions.steer(group, fx, fy, s.fill);
    // What the unit follows, and measures its progress on: near the region once the pack
    // has started (or is anchored away from the goal) the fill field, else its field.
    s.to_pack = s.filling && s.fill.guide ? s.fill.value : to_go;
    // How far from the goal an arrived unit stays arrived: with places, well beyond the
    // region (a region made again as traffic comes and goes must not wake its pack).
    s.settle = s.places ? kRegionKeep * regions.radius(group) : settle_[group];
    return s;
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

// 4. Touching the pack near the goal, or blocked against it for a whole window: the unit arrives
// where its group's arrival region lets it stand, and otherwise waits its turn (queued), as does a
// unit held up by anyone right ahead of it.
// An arrived unit of a region's pack that stands apart from every arrived unit (farther than
// kStayReach: the pack's own pressure drifts a unit off its edge by a few hundredths of a cell,
// which must not send it walking round the pack) is not part of the pack (unless it touches a mate
// that left the pack just now: two units touching each other and nobody else took turns, one
// arriving by the other as that one left), and one pushed into a passage units still come through
// must leave it: from the next sub-step it walks on (`rejoin`; this one it was looked at as a
// standing unit, whose neighbour scan leaves out what a walking unit reads).
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
    const bool passage = s.places && in_passage(s);
    // (Nor does one standing alone at the anchor while it is free, where it may arrive
    // touching nobody: see `arrives` below.)
    const detail::ArrivalRegions::Steer& fill = s.fill;
    const bool at_place = s.filling && fill.place && fill.anchor;
    rejoin = st == AgentState::arrived && s.places &&
             ((arrived_in_[group] > 1 && !nb.near_arrived && !nb.touches_leaving_mate && !at_place) || passage);
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
    // arrived a cell away (a small pond, a late rejoin) must not queue for ever.
    const bool arrives =
        s.places ? s.filling && !passage && regions.allows(group, s.fcx, s.fcy) &&
                       ((nb.touches_arrived &&
                         (fill.key <= settle_[group] || (fill.place && slow) || (a_.stuck[k] & kStuckFlag) != 0 ||
                          (slow && ((a_.stuck[k] >> kStuckRunShift) & 3) >= 2))) ||
                        (arrived_in_[group] == 0 && fill.place && fill.key <= settle_[group]) || (at_place && slow))
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
    f = keep_right(f, nb.oncoming, s.x, s.y);
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
    const std::uint32_t from = a_.sight_from[k], seen = a_.sight[k];
    bool again = from != fcell;
    if (again && from != detail::kNoCell && a_.sight[k] != detail::kNoCell) {
        // Walking a clear line: look again only after kSightRecheck cells, or when the
        // point seen is near (past it, the way bends), unless it is the goal.
        const int mx = std::abs(static_cast<int>(from % static_cast<std::uint32_t>(W)) - fcx);
        const int my = std::abs(static_cast<int>(from / static_cast<std::uint32_t>(W)) - fcy);
        const int sx = std::abs(static_cast<int>(seen % static_cast<std::uint32_t>(W)) - fcx);
        const int sy = std::abs(static_cast<int>(seen / static_cast<std::uint32_t>(W)) - fcy);
        const bool goal = steer.direction(static_cast<int>(seen % static_cast<std::uint32_t>(W)),
                                          static_cast<int>(seen / static_cast<std::uint32_t>(W))) == Direction::goal;
        again =
            std::max(mx, my) >= (goal ? kGoalSightRecheck : kSightRecheck) || (!goal && std::max(sx, sy) <= kSightNear);
    }
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

// Keep right of oncoming units of other groups: those in its neighbourhood (`oncoming`) and the
// headings summed in the cells ahead (lane_x_, lane_y_).
template <class GroupField>
Vec2 AgentPhases<GroupField>::keep_right(Vec2 f, float oncoming, float x, float y) const {
    for (int d = 1; d <= kLaneLook; ++d) {
        const int ax = floor_to_int(x + f.x * d), ay = floor_to_int(y + f.y * d);
        if (ax < 0 || ay < 0 || ax >= W || ay >= H) break;
        const std::size_t c = static_cast<std::size_t>(ay) * W + ax;
        const float o = -(lane_x_[c] * f.x + lane_y_[c] * f.y) / 127.0f;
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
            const int cx = std::clamp(static_cast<int>(a_.px[k]), 0, W - 1);
            const int cy = std::clamp(static_cast<int>(a_.py[k]), 0, H - 1);
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

}  // namespace

// Arrival regions (src/crowd/arrival.*), from the state this sub-step starts from: serial, so the
// same for any job system.
void Crowd::refresh_regions() {
    std::vector<detail::RegionGroup> groups(groups_.size());
    for (std::size_t g = 0; g < groups_.size(); ++g) {
        const GroupField& f = groups_[g];
        if (f.exit) continue;  // its units leave: no pack
        if (f.field && f.field.kind() == FieldKind::goal) groups[g].field = {&f.field, f.goals};
    }
    std::vector<detail::RegionAgent> agents(live_);
    const int W = cost_->width(), H = cost_->height();
    for (std::size_t e = 0; e < live_; ++e) {
        const std::uint32_t g = a_.group[e];
        const float area = std::numbers::pi_v<float> * a_.radius[e] * a_.radius[e];
        groups[g].area += area;
        groups[g].max_radius = std::max(groups[g].max_radius, a_.radius[e]);
        const float lift = 0.5f * static_cast<float>(group_unit_[g] - 1);
        const auto st = static_cast<AgentState>(a_.state[e]);
        agents[e] = {g, std::clamp(floor_to_int(a_.px[e] - lift), 0, W - 1),
                     std::clamp(floor_to_int(a_.py[e] - lift), 0, H - 1), area,
                     st == AgentState::moving || st == AgentState::queued ? detail::RegionRole::moving
                     : st == AgentState::arrived                          ? detail::RegionRole::arrived
                                                                          : detail::RegionRole::other};
    }
    regions_->refresh(*cost_, groups, agents);
}

// One sub-step, as a list of phases in the order they run (the agent phases: AgentPhases).
void Crowd::substep(float dt, JobSystem& jobs, bool count_stats) {
    // Neighbours side by side: entries re-sorted by bucket; lanes; each group's arrived area.
    sort_agents(jobs);
    // Arrival regions on their schedule, and queued sleepers looking again on the same one.
    if (!params_.arrival_regions) {
        regions_->clear();
    } else if (regions_stale_ || substeps_ % kRegionSubsteps == 0) {
        refresh_regions();
        regions_stale_ = false;
    }
    if (params_.sleep && substeps_ % kRegionSubsteps == 0)
        recheck_queued_sleepers(a_.state.data(), a_.rest.data(), live_);
    ++substeps_;
    update_settle_radii(params_, *regions_, settle_);

    // The agent phases, in parallel over ranges of agents, into the sub-step's new entries.
    const std::size_t n = live_;
    nx_.resize(n);
    ny_.resize(n);
    nstate_.resize(n);
    nhx_.resize(n);
    nhy_.resize(n);
    leaving_.assign(n, 0);
    quiet_.resize(n);
    wake_.assign(n, 0);
    contacts_.resize(n * kMaxContacts);
    n_contacts_.resize(n);
    const CostField& cost = *cost_;
    const CrowdParams& P = params_;
    stuck_before_.assign(a_.stuck.begin(), a_.stuck.end());  // the phases write a_.stuck; neighbours read this
    const StepView view{
        a_.px.data(),    a_.py.data(),    a_.vx.data(),       a_.vy.data(),    a_.radius.data(), a_.slot.data(),
        a_.group.data(), a_.state.data(), P.separation_range, P.yield_overlap, regions_.get(),   stuck_before_.data(),
        a_.hx.data(),    a_.hy.data(),    a_.rest.data(),     wake_.data(),    P.sleep,          max_radius_};
    const AgentPhases<GroupField> agents{agent_arrays(a_),
                                         groups_.data(),
                                         group_unit_.data(),
                                         settle_.data(),
                                         arrived_in_.data(),
                                         lane_x_.data(),
                                         lane_y_.data(),
                                         nx_.data(),
                                         ny_.data(),
                                         dvx_.data(),
                                         dvy_.data(),
                                         nstate_.data(),
                                         wall_hit_.data(),
                                         nhx_.data(),
                                         nhy_.data(),
                                         quiet_.data(),
                                         leaving_.data(),
                                         contacts_.data(),
                                         n_contacts_.data(),
                                         view,
                                         *hash_,
                                         *regions_,
                                         cost,
                                         P,
                                         cost.cells().data(),
                                         cost.width(),
                                         cost.height(),
                                         dt};
    AgentTotals totals;
    auto agent_range = [&](std::size_t begin, std::size_t end) {
        const AgentCounts counts = agents.run(begin, end);
        if (count_stats) totals.add(counts);
    };
    parallel_for(jobs, n, 1024, agent_range);
    if (count_stats) {
        stats_.arrived = totals.arrived.load();
        stats_.no_path = totals.no_path.load();
        stats_.queued = totals.queued.load();
        stats_.stuck = totals.stuck.load();
        stats_.sidestepping = totals.sidestepping.load();
        stats_.wall_contacts = totals.walls.load();
        stats_.sleeping = totals.asleep.load();
    }

    // Touching agents pushed apart on the new positions.
    contact_passes(jobs);
    // Rest counts and held bits; arrived units pushed out of their region's reach walk back.
    // (The passes swap nx_ and ny_ with their own buffers: the new positions are where they are now.)
    auto rest_range = [&](std::size_t begin, std::size_t end) {
        agents.rest_and_held(begin, end, nx_.data(), ny_.data());
    };
    parallel_for(jobs, n, 4096, rest_range);
    // The new entries become the state; units at their exit leave.
    a_.px.swap(nx_);
    a_.py.swap(ny_);
    a_.state.swap(nstate_);
    a_.hx.swap(nhx_);
    a_.hy.swap(nhy_);
    remove_leavers();
}

// Units that reached their exit in this sub-step leave, in slot order (listed in exited_).
void Crowd::remove_leavers() {
    const std::size_t first = exited_.size();
    for (std::size_t e = 0; e < live_; ++e) {
        if (leaving_[e]) exited_.push_back({a_.slot[e], generation_[a_.slot[e]]});
    }
    std::sort(exited_.begin() + static_cast<std::ptrdiff_t>(first), exited_.end(),
              [](AgentId a, AgentId b) { return a.index < b.index; });
    for (std::size_t i = first; i < exited_.size(); ++i) {
        const std::size_t e = index_[exited_[i].index];
        if (groups_[a_.group[e]].exit_keeps) {
            a_.state[e] = static_cast<std::uint8_t>(AgentState::arrived);  // the host sends it on
        } else {
            (void)remove_agent(exited_[i]);
        }
    }
}

// Contact passes on the sub-step's new positions (nx_, ny_): every agent moves away from the
// candidates it still overlaps by kOverlapShare of each depth (at most half its radius per pass),
// then out of walls. Jacobi: each pass reads the last pass's positions and writes its own entry, so
// the result is the same for any split. A dense crowd pressed by its own steering spreads the
// push through several rows of agents per sub-step instead of one.
void Crowd::contact_passes(JobSystem& jobs) {
    const int passes = std::clamp(params_.contact_passes, 0, 16);
    const std::size_t n = live_;
    cx_.resize(n);
    cy_.resize(n);
    const CostField& cost = *cost_;
    const bool sleep = params_.sleep;
    // The deep pass follows the last pass, which flags every entry (pack_overlap 2: no bound).
    const bool bound = params_.pack_overlap < 2.0f;
    const float flag = kDeepFlag * params_.pack_overlap;
    deep_.resize(n);
    for (int pass = 0; pass < passes; ++pass) {
        const float* const px = nx_.data();
        const float* const py = ny_.data();
        const bool flagging = bound && pass + 1 == passes;
        // Local pointers: wake_up's byte stores could alias the vectors' own, which the loop over
        // contacts would otherwise reload for every candidate.
        const float* const radius = a_.radius.data();
        const std::uint8_t* const rest = a_.rest.data();
        const std::uint32_t* const slot = a_.slot.data();
        const std::uint32_t* const contacts = contacts_.data();
        const std::uint8_t* const n_contacts = n_contacts_.data();
        std::uint8_t* const wake = wake_.data();
        float* const out_x = cx_.data();
        float* const out_y = cy_.data();
        auto body = [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end; ++k) {
                const float x = px[k], y = py[k], r = radius[k];
                const bool moved = sleep && rest[k] == 0;  // it wakes the sleepers it presses
                bool deep = false;
                float fx = 0.0f, fy = 0.0f;
                const std::uint32_t* const c = &contacts[k * kMaxContacts];
                const std::uint8_t count = n_contacts[k];
                for (std::uint8_t h = 0; h < count; ++h) {
                    const std::uint32_t j = c[h];
                    float dx = x - px[j], dy = y - py[j];
                    const float rr = r + radius[j];
                    float d2 = dx * dx + dy * dy;
                    if (d2 >= rr * rr) continue;
                    if (moved && rest[j] >= kSleepSubsteps) wake_up(wake, j);
                    if (d2 < 1e-12f) {  // on top of each other: split by slot order
                        dx = slot[k] < slot[j] ? 1e-3f : -1e-3f;
                        dy = 0.0f;
                        d2 = dx * dx;
                    }
                    const float d = std::sqrt(d2);
                    fx += dx / d * (rr - d);
                    fy += dy / d * (rr - d);
                    if (flagging) deep |= (rr - d > flag * std::min(r, radius[j])) && packed_mates(k, j);
                }
                if (flagging) deep_[k] = deep;
                float x1 = x, y1 = y;
                if (fx != 0.0f || fy != 0.0f) {
                    Neighbourhood nb;
                    nb.px_fix = fx;
                    nb.py_fix = fy;
                    resolve_overlap(nb, r, x1, y1);
                    push_out_of_walls(cost, r, x, y, x1, y1, a_.vx[k], a_.vy[k]);
                }
                out_x[k] = x1;
                out_y[k] = y1;
            }
        };
        parallel_for(jobs, n, 1024, body);
        nx_.swap(cx_);
        ny_.swap(cy_);
    }
    if (bound && passes > 0) deep_pass(jobs);
}

// True when entries k and j are mates (same group) and one of them at least has arrived (after
// this sub-step): a pair of the pack, or a unit pressing into it; or when they are jammed_mates.
bool Crowd::packed_mates(std::size_t k, std::size_t j) const noexcept {
    constexpr auto arrived = static_cast<std::uint8_t>(AgentState::arrived);
    return ((a_.group[k] == a_.group[j]) & ((nstate_[k] == arrived) | (nstate_[j] == arrived))) | jammed_mates(k, j);
}

// True when entries k and j are mates and one of them at least is flagged stuck: a pair in a jam
// (the deep overlaps left on the benchmark map, 0.51-0.57 radii on some spawn seeds, were such pairs
// of moving units, in queues jammed 20 cells before the goal).
bool Crowd::jammed_mates(std::size_t k, std::size_t j) const noexcept {
    constexpr auto queued = static_cast<std::uint8_t>(AgentState::queued);
    return (a_.group[k] == a_.group[j]) &
           ((((a_.stuck[k] | a_.stuck[j]) & kStuckFlag) != 0) | (nstate_[k] == queued) | (nstate_[j] == queued));
}

// The deep pass: the agents the last contact pass found in a contact deeper than kDeepFlag x
// pack_overlap with a mate of the pack (packed_mates) move apart until no such pair overlaps by more
// than CrowdParams::pack_overlap (radii of the smaller agent), each taking half of the excess (all
// of it when the other is not in the pass). The contact passes above spread a pack's pressure a
// row per pass and leave a few pairs deep inside a pack pressed by arrivals (0.55 radii on the
// benchmark map); this bounds them and leaves every other agent where it is (with no deep contact
// the crowd is bit-identical with and without it). Pairs of moving units are left alone, so that
// they can squeeze past each other (a bound on every pair jams counter-flow in a corridor,
// Crowd.CounterFlowInAThreeCellCorridor: 86 of 200 arrived in 120 s; on every pair of mates, 3),
// unless one of them is flagged stuck (jammed_mates).
// Runs with the contact passes (none when CrowdParams::contact_passes is 0). Jacobi over the
// listed agents: the same for any split.
void Crowd::deep_pass(JobSystem& jobs) {
    // Units in a jam are pressed from all sides: the last pass itself can squeeze a pair of them
    // from apart to half a radius deep (each agent moves up to half its radius in a pass), so pairs
    // of jammed_mates are also flagged from where the passes left them. (Flagging every pair of
    // the pack so too loosened it: the 1,000-unit pack on the default map measured 0.79 of the
    // ideal disc instead of 0.86, below the 0.8 required.)
    const std::size_t n = live_;
    const float flag = kDeepFlag * params_.pack_overlap;
    // From the stuck unit's side: it and the mate it is deep with are flagged (only ever set to 1,
    // by any number of agents at once, so the flags do not depend on the order).
    auto flag_stuck = [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) {
            if ((a_.stuck[k] & kStuckFlag) == 0 && nstate_[k] != static_cast<std::uint8_t>(AgentState::queued))
                continue;
            const float x = nx_[k], y = ny_[k], r = a_.radius[k];
            const std::uint32_t* const c = &contacts_[k * kMaxContacts];
            for (std::uint8_t h = 0; h < n_contacts_[k]; ++h) {
                const std::uint32_t j = c[h];
                const float dx = x - nx_[j], dy = y - ny_[j];
                const float near = r + a_.radius[j] - flag * std::min(r, a_.radius[j]);
                if (dx * dx + dy * dy < near * near && jammed_mates(k, j)) {
                    std::atomic_ref<std::uint8_t>(deep_[k]).store(1, std::memory_order_relaxed);
                    std::atomic_ref<std::uint8_t>(deep_[j]).store(1, std::memory_order_relaxed);
                }
            }
        }
    };
    parallel_for(jobs, n, 1024, flag_stuck);
    deep_list_.clear();
    for (std::size_t k = 0; k < deep_.size(); ++k) {
        if (deep_[k]) deep_list_.push_back(static_cast<std::uint32_t>(k));
    }
    const std::size_t m = deep_list_.size();
    if (m == 0) return;
    deep_x_.resize(m);
    deep_y_.resize(m);
    const CostField& cost = *cost_;
    const float* const px = nx_.data();
    const float* const py = ny_.data();
    auto body = [&](std::size_t begin, std::size_t end) {
        for (std::size_t q = begin; q < end; ++q) {
            const std::uint32_t k = deep_list_[q];
            const float x = px[k], y = py[k], r = a_.radius[k];
            float fx = 0.0f, fy = 0.0f;
            const std::uint32_t* const c = &contacts_[k * kMaxContacts];
            for (std::uint8_t h = 0; h < n_contacts_[k]; ++h) {
                const std::uint32_t j = c[h];
                if (!packed_mates(k, j)) continue;
                const float dx = x - px[j], dy = y - py[j];
                const float limit = r + a_.radius[j] - params_.pack_overlap * std::min(r, a_.radius[j]);
                const float d2 = dx * dx + dy * dy;
                if (d2 >= limit * limit || d2 < 1e-12f) continue;  // (on top of each other: the passes split them)
                const float d = std::sqrt(d2);
                const float share = deep_[j] ? 0.5f : 1.0f;
                fx += dx / d * (limit - d) * share;
                fy += dy / d * (limit - d) * share;
            }
            float x1 = x, y1 = y;
            if (fx != 0.0f || fy != 0.0f) {
                move_at_most_half_radius(fx, fy, r, x1, y1);
                push_out_of_walls(cost, r, x, y, x1, y1, a_.vx[k], a_.vy[k]);
            }
            deep_x_[q] = x1;
            deep_y_[q] = y1;
        }
    };
    parallel_for(jobs, m, 256, body);
    for (std::size_t q = 0; q < m; ++q) {
        nx_[deep_list_[q]] = deep_x_[q];
        ny_[deep_list_[q]] = deep_y_[q];
    }
}

}  // namespace tide
