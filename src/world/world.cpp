// The world; see include/tide/world.hpp.
//
// Two memberships per unit: the *order* (unit_group_: the group the player put it in, what the
// API reports) and the *crowd group* it physically follows. They differ only while a new group's
// first field is being built: the unit keeps following its old crowd group, and the new group
// lists it as pending. When the field is published, every pending unit moves over at once.
// A group with no ordered members is dropped from the view at once, but its crowd group (and
// field ticket) live on while units still physically follow it.
//
// Every map takes one path: the field service owns the terrain and plans every group, handing out
// a FieldView (a whole-map field, or on big maps a hierarchical plan) that the crowd follows
// without knowing which. Before each step the units' cells go to FieldService::route(), which
// grows a plan's sector fields where they stand (nothing to do for a whole-map field).

#include "tide/world.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../grid/cell_checks.hpp"
#include "tide/assert.hpp"

namespace tide {
namespace {

using Clock = std::chrono::steady_clock;
constexpr GroupId kNoCrowdGroup = 0xFFFFFFFFu;

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

int max_units(const CostField& cost, std::optional<CellRect> area) {
    int x0 = 0, y0 = 0, x1 = cost.width() - 1, y1 = cost.height() - 1;
    if (area) {
        x0 = std::max(x0, area->x0);
        y0 = std::max(y0, area->y0);
        x1 = std::min(x1, area->x1);
        y1 = std::min(y1, area->y1);
    }
    std::int64_t open = 0;
    for (int y = y0; y <= y1; ++y) {
        for (int x = x0; x <= x1; ++x) open += cost.passable(x, y);
    }
    return static_cast<int>(std::min<std::int64_t>(open * kMaxUnitsPerFreeCell, kMaxWorldUnits));
}

struct World::Group {
    UnitGroupId id = 0;
    std::vector<Cell> goals;
    int size = 1;  // of its units: movement class size - 1
    bool flee = false;
    bool exit = false;       // its goals are exits (Crowd::set_group_exit)
    std::size_t exited = 0;  // units that left through them
    FieldTicket ticket;
    GroupId crowd_group = kNoCrowdGroup;  // set when its first field is published
    FieldView applied;                    // the field or plan its crowd group follows
    std::vector<AgentId> pending;         // ordered here, still following another crowd group
    // Congestion: a second ticket for the field toward the same goals with the density term.
    FieldTicket steer_ticket;
    bool has_steer_ticket = false;
    bool steer_pending = false;                   // asked for at the last refresh, not handed over yet
    std::vector<Cell> steer_goals;                // the goals it was asked for
    std::shared_ptr<const FlowField> steer_next;  // published, handed to the crowd at the next refresh
    std::size_t members = 0;                      // ordered here
    bool dropped = false;                         // no members (kept while units still follow its crowd group)
    std::uint64_t field_serial = 0;
    Clock::time_point ordered;
    double order_to_field_ms = -1.0;
    double order_to_ready_ms = -1.0;
};

World::World(JobSystem& jobs, WorldConfig config)
    : jobs_(&jobs),
      config_(std::move(config)),
      rng_{config_.seed},
      terrain_(std::make_shared<const CostField>(CostField::create(1, 1).value())) {
    crowd_ = std::make_unique<Crowd>(*terrain_, config_.crowd);
    params_.speed = config_.crowd.max_speed;
    params_.separation = config_.crowd.separation;
    params_.radius = config_.crowd.radius;
    wall_margin_ = config_.wall_margin;
}

FieldOptions World::field_options(int size, bool flee) const {
    FieldOptions o;
    o.movement_class = world_movement_class(size);
    o.kind = flee ? FieldKind::flee : FieldKind::goal;
    o.flee = config_.flee;
    o.wall_margin = wall_margin_;
    return o;
}

Result<void> World::set_congestion(const CongestionParams& params) {
    if (auto r = check_congestion_params(params); !r) return r;
    if (params.enabled && service_) {
        FieldOptions probe = field_options(1, false);  // can the service plan with a density term?
        probe.congestion = std::make_shared<const CongestionLayer>();
        if (auto r = service_->check_options(probe); !r) return r.error();
    }
    const bool was = config_.congestion.enabled;
    config_.congestion = params;
    if (!params.enabled && was) {
        drop_steering();
        for (auto& g : groups_) {
            if (g->has_steer_ticket) (void)service_->release(g->steer_ticket);
            g->has_steer_ticket = g->steer_pending = false;
            g->steer_next = nullptr;
        }
    }
    if (params.enabled && !was) congestion_clock_ = 0.0;  // measure at the next tick
    return {};
}

// Every group steers by its own field again (until the next refresh).
void World::drop_steering() {
    for (auto& g : groups_) {
        // Plans have no steering field: the crowd refuses those, changing nothing.
        if (g->crowd_group != kNoCrowdGroup) (void)crowd_->set_group_steering(g->crowd_group, nullptr);
        g->steer_next = nullptr;
    }
}

// Congestion, before a step: the fields asked for at the last refresh become the groups' steering
// fields (waiting for their builds if they are not done: a fixed delay of one refresh keeps the
// result independent of the threads), then the density is measured and the next ones are asked for.
void World::refresh_congestion() {
    const auto t0 = Clock::now();
    bool waiting = false;
    for (const auto& g : groups_) waiting |= g->steer_pending && !g->steer_next;
    if (waiting) {
        service_->wait_idle();
        apply_fields();
    }
    const auto t1 = Clock::now();
    for (auto& g : groups_) {
        g->steer_pending = false;
        if (!g->steer_next) continue;
        // Only toward the goals the group's units follow now (not after a goal change or a flee order).
        if (g->crowd_group != kNoCrowdGroup && !g->flee && g->steer_goals == g->goals && g->applied &&
            service_->status(g->ticket).answers_request) {
            (void)crowd_->set_group_steering(g->crowd_group, g->steer_next);
        }
        g->steer_next = nullptr;
    }
    measure_density(*crowd_, *terrain_, density_);
    for (auto& g : groups_) {
        if (g->crowd_group == kNoCrowdGroup || g->flee || !g->applied.flat() ||
            crowd_->group_size(g->crowd_group) == 0 || !service_->status(g->ticket).answers_request) {
            continue;
        }
        const auto costs = service_->planning_costs(static_cast<MovementClass>(g->size - 1));
        auto layer = congestion_layer(density_, *costs, g->applied.flat().get(), params_.speed, config_.congestion);
        if (!layer) continue;  // cannot happen: the params were checked, the sizes are the map's
        FieldOptions options = field_options(g->size, false);
        options.congestion = std::make_shared<const CongestionLayer>(std::move(*layer));
        if (g->has_steer_ticket) {
            if (!service_->retarget(g->steer_ticket, g->goals, options)) continue;
        } else {
            auto t = service_->request(g->goals, options);
            if (!t) continue;
            g->steer_ticket = *t;
            g->has_steer_ticket = true;
        }
        g->steer_pending = true;
        g->steer_goals = g->goals;
    }
    ++stats_.congestion_refreshes;
    stats_.congestion_wait_ms = ms_between(t0, t1);
    stats_.congestion_ms = ms_between(t1, Clock::now());
}

Result<void> World::set_wall_margin(const WallMargin& margin) {
    if (auto r = wall_margin_cost_field(CostField::create(1, 1).value(), margin); !r) return r.error();
    if (margin == wall_margin_) return {};
    const WallMargin was = wall_margin_;
    wall_margin_ = margin;
    if (service_) {
        if (auto r = service_->check_options(field_options(1, false)); !r) {
            wall_margin_ = was;
            return r.error();
        }
    }
    for (auto& g : groups_) {
        if (g->dropped) continue;
        if (auto r = service_->retarget(g->ticket, g->goals, field_options(g->size, g->flee)); !r) return r.error();
    }
    return {};
}

World::~World() {
    // The crowd and the groups let go of the plans before the service (which owns the graphs
    // they read) goes; the service waits for its running builds.
    crowd_.reset();
    groups_.clear();
    service_.reset();
}

Result<std::vector<Cell>> World::check_goals(const std::vector<Cell>& goals) const {
    if (goals.empty()) return Error{"at least one goal is needed"};
    if (goals.size() > static_cast<std::size_t>(kMaxOrderGoals)) {
        return Error{ErrorCode::too_large,
                     std::to_string(goals.size()) + " goals: at most " + std::to_string(kMaxOrderGoals)};
    }
    std::vector<Cell> unique;
    for (const Cell& g : goals) {
        if (auto r = detail::check_open_cell(*terrain_, g, "goal"); !r) return r.error();
        if (std::find(unique.begin(), unique.end(), g) == unique.end()) unique.push_back(g);
    }
    std::sort(unique.begin(), unique.end(), [](Cell a, Cell b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    return unique;
}

World::Group* World::find(UnitGroupId id) {
    for (auto& g : groups_) {
        if (g->id == id && !g->dropped) return g.get();
    }
    return nullptr;
}

// A member leaves `g`. A group left empty is dropped, unless it is the last group: a world keeps
// its goals even with no units (to spawn more later).
void World::leave(Group& g) {
    --g.members;
    if (g.members > 0) return;
    for (const auto& other : groups_) {
        if (other.get() != &g && !other->dropped) {
            g.dropped = true;
            return;
        }
    }
}

const World::Group* World::find(UnitGroupId id) const {
    return const_cast<World*>(this)->find(id);
}

World::Group& World::new_group(std::vector<Cell> goals, FieldTicket ticket, int size) {
    auto g = std::make_unique<Group>();
    g->id = next_group_++;
    g->goals = std::move(goals);
    g->size = size;
    g->ticket = ticket;
    g->ordered = Clock::now();
    groups_.push_back(std::move(g));
    return *groups_.back();
}

void World::on_publish(const Publication& p) {
    if (p.repaired) {
        stats_.repair_ms = p.build_ms;
        ++stats_.repairs_published;
    } else {
        stats_.build_ms = p.build_ms;
    }
    published_.push_back(p);  // apply_fields() hands them to the groups
}

Result<void> World::load(std::string name, CostField cost, std::vector<Cell> goals, int units,
                         std::optional<CellRect> spawn_area) {
    if (units < 0 || units > kMaxWorldUnits) {
        return Error{"unit count " + std::to_string(units) + " is outside 0.." + std::to_string(kMaxWorldUnits)};
    }
    if (auto r = check_congestion_params(config_.congestion); !r) return r.error();
    auto next_terrain = std::make_shared<const CostField>(std::move(cost));
    std::swap(terrain_, next_terrain);  // check_goals reads terrain_
    auto checked = check_goals(goals);
    std::swap(terrain_, next_terrain);
    if (!checked) return checked.error();
    const CostField& next = *next_terrain;
    if (spawn_area && (spawn_area->empty() || spawn_area->x1 < 0 || spawn_area->y1 < 0 ||
                       spawn_area->x0 >= next.width() || spawn_area->y0 >= next.height())) {
        return Error{"spawn area [" + std::to_string(spawn_area->x0) + ", " + std::to_string(spawn_area->x1) + "] x [" +
                     std::to_string(spawn_area->y0) + ", " + std::to_string(spawn_area->y1) +
                     "] is empty or off the map"};
    }
    if (const int most = max_units(next, spawn_area); units > most) {  // refused before anything changes
        return Error{ErrorCode::too_large,
                     std::to_string(units) + " units do not fit: the map's free cells hold at most " +
                         std::to_string(most) + " (" + std::to_string(kMaxUnitsPerFreeCell) + " per free cell)"};
    }

    FieldServiceConfig sc;
    sc.budget_bytes = config_.field_budget_bytes;
    for (int size = 2; size <= kWorldUnitSizes; ++size) {
        sc.classes.push_back(UnitClass{"size " + std::to_string(size), size, std::nullopt});
    }
    sc.on_publish = [this](const Publication& p) { on_publish(p); };
    sc.hierarchy_cells = config_.hierarchy_cells;
    sc.sectors = config_.sectors;
    sc.routes = config_.routes;
    auto service = FieldService::create(next, *jobs_, std::move(sc), config_.field_memory);
    if (!service) return service.error();
    auto ticket = (*service)->request(*checked, field_options(1, false));
    if (!ticket) return ticket.error();

    // The old world goes: the crowd and the groups (their tickets die with the service), then the
    // service with its plans and graphs.
    crowd_.reset();
    groups_.clear();
    service_ = std::move(*service);
    terrain_ = service_->terrain();
    CrowdParams cp = config_.crowd;
    cp.max_speed = params_.speed;
    cp.separation = params_.separation;
    cp.radius = params_.radius;
    crowd_ = std::make_unique<Crowd>(*terrain_, cp);
    agents_.clear();
    unit_group_.clear();
    unit_size_.clear();
    name_ = std::move(name);
    spawn_area_ = spawn_area;
    ++terrain_version_;
    ++roster_version_;
    stats_ = {};
    stats_.hierarchical = service_->hierarchical();
    congestion_clock_ = 0.0;
    stats_.graph_build_ms = service_->stats().graph_build_ms;

    new_group(std::move(*checked), *ticket, 1);
    service_->wait_idle();
    apply_fields();
    Spawn s;
    s.count = units;
    if (auto r = spawn(s); !r) return r;
    refresh_view();
    return {};
}

// Every group whose view grows by routing (a hierarchical plan) gets sector fields for the cells
// its units stand on, and their routes (or only `only`'s). Only cells not yet in a routed sector
// field are handed to FieldService::route() (the cells it would work on), so a tick where nobody
// entered a new sector costs one pass over the units. Returns the time taken, ms.
double World::route_units(const Group* only) {
    if (!service_) return 0.0;
    const auto t0 = Clock::now();
    plan_of_.clear();
    for (const auto& g : groups_) {
        if (!g->applied.routes() || g->crowd_group == kNoCrowdGroup || (only && g.get() != only)) continue;
        if (plan_of_.size() <= g->crowd_group) plan_of_.resize(g->crowd_group + 1, nullptr);
        plan_of_[g->crowd_group] = g.get();
    }
    if (plan_of_.empty()) return 0.0;
    if (starts_.size() < plan_of_.size()) starts_.resize(plan_of_.size());
    for (auto& v : starts_) v.clear();
    const int w = terrain_->width(), h = terrain_->height();
    for (const AgentId id : agents_) {
        const GroupId cg = crowd_->group(id);
        if (cg >= plan_of_.size() || !plan_of_[cg]) continue;
        const Group& g = *plan_of_[cg];
        // The unit's top-left cell follows the field (as in the crowd step).
        const float lift = 0.5f * static_cast<float>(g.size - 1);
        const Vec2 p = crowd_->position(id);
        const Cell c{std::clamp(static_cast<int>(p.x - lift), 0, w - 1),
                     std::clamp(static_cast<int>(p.y - lift), 0, h - 1)};
        if (!g.applied.routed_at(c.x, c.y)) starts_[cg].push_back(c);
    }
    for (std::size_t cg = 0; cg < plan_of_.size(); ++cg) {
        if (!plan_of_[cg] || starts_[cg].empty()) continue;
        Group& g = *plan_of_[cg];
        auto r = service_->route(g.ticket, starts_[cg]);
        if (r && r->fields_built > 0) ++g.field_serial;  // the fields frame shows the new sectors
    }
    return ms_between(t0, Clock::now());
}

// After an order: what is ready goes out now (a plan always is, a field from the cache too), so
// its units turn at once rather than a tick later, and a plan's units are routed before the
// order returns (their sectors first, then the sectors on their routes).
void World::take_ready(Group& g) {
    apply_fields();
    stats_.route_ms = route_units(&g);
}

// The service's planning counters, in the world's stats.
void World::refresh_plan_stats() {
    if (!service_) return;
    const FieldServiceStats st = service_->stats();
    stats_.plans = st.plans;
    stats_.plans_shared = st.plans_shared;
    stats_.sector_fields = st.sector_fields;
    stats_.sector_field_bytes = st.sector_field_bytes;
    stats_.graph_update_ms = st.graph_update_ms;
}

Result<CommandOutcome> World::apply(const WorldCommand& command) {
    if (!service_) return Error{"no map loaded"};
    Result<CommandOutcome> out = CommandOutcome{};
    std::visit(
        [&](const auto& c) {
            using T = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<T, SetGoals>) {
                out = set_goals(c);
            } else if constexpr (std::is_same_v<T, Order>) {
                out = order(selection(c.select), c.goals, c.flee, c.exit);
            } else if constexpr (std::is_same_v<T, RemoveUnits>) {
                out = CommandOutcome{0, remove_units(selection(c.select))};
            } else if constexpr (std::is_same_v<T, Paint>) {
                if (auto r = paint(c); !r) out = r.error();
            } else if constexpr (std::is_same_v<T, Spawn>) {
                if (auto r = spawn(c); !r) {
                    out = r.error();
                } else {
                    // The spawned units' group (the only one left unless units were added).
                    const UnitGroupId g = agents_.empty() ? groups_.front()->id : unit_group_[agents_.back().index];
                    out = CommandOutcome{g, agents_.size()};
                }
            } else if constexpr (std::is_same_v<T, SetUnitParams>) {
                if (auto r = set_unit_params(c.params); !r) out = r.error();
            } else if constexpr (std::is_same_v<T, SetPaused>) {
                paused_ = c.paused;
            } else if constexpr (std::is_same_v<T, PlaceTower>) {
                if (auto r = place_tower(c); !r) out = r.error();
            } else if constexpr (std::is_same_v<T, SetWallMargin>) {
                if (auto r = set_wall_margin(c.margin); !r) out = r.error();
            } else if constexpr (std::is_same_v<T, SetCongestion>) {
                if (auto r = set_congestion(c.params); !r) out = r.error();
            }
        },
        command);
    refresh_plan_stats();
    refresh_view();
    return out;
}

std::vector<AgentId> World::select(const SelectBox& box) const {
    std::vector<AgentId> out;
    if (!(box.x0 < box.x1) || !(box.y0 < box.y1)) return out;  // NaN or empty
    for (const AgentId id : agents_) {
        const Vec2 p = crowd_->position(id);
        if (p.x >= box.x0 && p.x < box.x1 && p.y >= box.y0 && p.y < box.y1) out.push_back(id);
    }
    return out;
}

void World::move_unit(AgentId id, Group& to) {
    UnitGroupId& g = unit_group_[id.index];
    if (g == to.id) return;
    if (Group* from = find(g)) leave(*from);
    g = to.id;
    ++to.members;
    if (to.crowd_group != kNoCrowdGroup) {
        // Groups hold units of one size, so the classes agree and the move cannot be refused.
        const bool moved = crowd_->set_agent_group(id, to.crowd_group).ok();
        TIDE_ASSERT(moved);
    } else {
        to.pending.push_back(id);  // moves when the group's field is published
    }
}

// The goals as cells units of `size` can stand on: each moved to the nearest such cell (units
// of size s occupy the s x s block below and right of their cell), duplicates dropped.
std::vector<Cell> World::goals_for_size(const std::vector<Cell>& goals, int size) const {
    if (size == 1) return goals;
    const auto costs = service_->planning_costs(world_movement_class(size));
    std::vector<Cell> out;
    for (const Cell& g : goals) {
        const auto q = nearest_passable(*costs, g);
        if (q && std::find(out.begin(), out.end(), *q) == out.end()) out.push_back(*q);
    }
    std::sort(out.begin(), out.end(), [](Cell a, Cell b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    return out;
}

// Units of several sizes form one group per size (each size plans on its own field).
Result<CommandOutcome> World::order(std::vector<AgentId> units, std::vector<Cell> goals, bool flee, bool exit) {
    auto checked = check_goals(goals);
    if (!checked) return checked.error();
    if (flee && exit) return Error{ErrorCode::invalid_argument, "an order's cells are dangers or exits, not both"};
    if (auto r = service_->check_options(field_options(1, flee)); !r) return r.error();  // what the map cannot plan
    if (units.empty()) return Error{"the selection holds no units"};
    CommandOutcome out;
    for (int size = 1; size <= kWorldUnitSizes; ++size) {
        std::vector<AgentId> these;
        for (const AgentId id : units) {
            if (unit_size(id) == size) these.push_back(id);
        }
        if (these.empty()) continue;
        auto r = order_one_size(these, *checked, size, flee, exit);
        if (!r) return r.error();
        if (r->units > out.units) out.group = r->group;
        out.units += r->units;
    }
    drop_empty_groups();
    return out;
}

Result<CommandOutcome> World::order_one_size(const std::vector<AgentId>& units, const std::vector<Cell>& goals,
                                             int size, bool flee, bool exit) {
    std::vector<Cell> sized = goals_for_size(goals, size);
    if (sized.empty()) return Error{"no cell near the goals fits units of size " + std::to_string(size)};
    auto ticket = service_->request(sized, field_options(size, flee));
    if (!ticket) return ticket.error();
    Group& g = new_group(std::move(sized), *ticket, size);
    g.flee = flee;
    g.exit = exit;
    for (const AgentId id : units) move_unit(id, g);
    take_ready(g);
    return CommandOutcome{g.id, g.members};
}

Result<CommandOutcome> World::set_goals(const SetGoals& c) {
    auto checked = check_goals(c.goals);
    if (!checked) return checked.error();
    Group* target = nullptr;
    if (c.group != 0) {
        target = find(c.group);
        if (!target) return Error{ErrorCode::not_found, "no group " + std::to_string(c.group)};
    } else {
        // All units: when one group holds them all, it simply gets new goals (the units keep their
        // field until the new one is published); otherwise they form a new group.
        for (auto& g : groups_) {
            if (!g->dropped && g->members == agents_.size()) target = g.get();
        }
        if (!target) return order(agents_, c.goals, c.flee, c.exit);
    }
    if (c.flee && c.exit) return Error{ErrorCode::invalid_argument, "an order's cells are dangers or exits, not both"};
    if (auto r = service_->check_options(field_options(target->size, c.flee)); !r) return r.error();
    std::vector<Cell> sized = goals_for_size(*checked, target->size);
    if (sized.empty()) return Error{"no cell near the goals fits units of size " + std::to_string(target->size)};
    if (target->goals == sized && target->flee == c.flee && target->exit == c.exit)
        return CommandOutcome{target->id, target->members};
    if (target->exit != c.exit) {
        target->exit = c.exit;
        if (target->crowd_group != kNoCrowdGroup) (void)crowd_->set_group_exit(target->crowd_group, c.exit && !c.flee);
    }
    if (auto r = service_->retarget(target->ticket, sized, field_options(target->size, c.flee)); !r) return r.error();
    target->flee = c.flee;
    target->goals = std::move(sized);
    target->ordered = Clock::now();
    target->order_to_field_ms = -1.0;
    target->order_to_ready_ms = -1.0;
    take_ready(*target);
    return CommandOutcome{target->id, target->members};
}

std::vector<Cell> World::all_goals() const {
    std::vector<Cell> out;
    for (const auto& g : groups_) {
        if (!g->dropped) out.insert(out.end(), g->goals.begin(), g->goals.end());
    }
    return out;
}

Result<void> World::paint(const Paint& c) {
    const CostField& map = *terrain_;
    if (!map.contains(c.x, c.y)) return detail::outside_error("paint at", {c.x, c.y}, map.width(), map.height());
    if (c.radius < 0 || c.radius > kMaxBrushRadius) {
        return Error{"brush radius " + std::to_string(c.radius) + " is outside 0.." + std::to_string(kMaxBrushRadius)};
    }
    if (c.cost == 0) return Error{"terrain cost 0 is not a cost"};
    const std::vector<Cell> goals = all_goals();
    std::vector<Cell> cells;
    for (int py = c.y - c.radius; py <= c.y + c.radius; ++py) {
        for (int px = c.x - c.radius; px <= c.x + c.radius; ++px) {
            if (!map.contains(px, py)) continue;
            if ((px - c.x) * (px - c.x) + (py - c.y) * (py - c.y) > c.radius * c.radius + c.radius) continue;  // round
            if (c.cost == kCostWall && std::find(goals.begin(), goals.end(), Cell{px, py}) != goals.end()) continue;
            if (map.at(px, py) == c.cost) continue;
            cells.push_back({px, py});
        }
    }
    if (cells.empty()) return {};
    // The service repairs the fields (plans catch up at the next planning call, once for all the
    // strokes since; their goal blocks stay open).
    const std::uint64_t before = service_->terrain_version();
    if (auto r = service_->edit_cells(cells, c.cost); !r) return r;
    if (service_->terrain_version() == before) return {};
    terrain_changed();
    if (c.cost == kCostWall) evict_units_from_walls();
    return {};
}

// After an edit: the world and the crowd read the service's new terrain; steering fields planned
// on the old one are dropped.
void World::terrain_changed() {
    terrain_ = service_->terrain();
    (void)crowd_->set_terrain(*terrain_);  // same dimensions
    ++terrain_version_;
    drop_steering();
}

// Units whose block now holds a wall move to the nearest cell open to their size (or are removed
// when the map has none left).
void World::evict_units_from_walls() {
    bool removed = false;
    std::vector<AgentId> keep;
    keep.reserve(agents_.size());
    std::shared_ptr<const CostField> costs[kWorldUnitSizes];
    for (int size = 1; size <= kWorldUnitSizes; ++size) {
        costs[size - 1] = service_->planning_costs(world_movement_class(size));
    }
    for (const AgentId id : agents_) {
        const int size = unit_size(id);
        const float lift = 0.5f * static_cast<float>(size - 1);
        const CostField& open = *costs[size - 1];
        const Vec2 p = crowd_->position(id);
        const Cell at{static_cast<int>(p.x - lift), static_cast<int>(p.y - lift)};
        if (open.passable(at.x, at.y) && terrain_->passable(static_cast<int>(p.x), static_cast<int>(p.y))) {
            keep.push_back(id);
            continue;
        }
        const auto q = nearest_passable(open, at);
        const float half = 0.5f * static_cast<float>(size);
        if (q && crowd_->set_position(id, {static_cast<float>(q->x) + half, static_cast<float>(q->y) + half})) {
            keep.push_back(id);
        } else {
            if (Group* g = find(unit_group_[id.index])) leave(*g);
            unit_group_[id.index] = 0;
            (void)crowd_->remove_agent(id);
            removed = true;
        }
    }
    if (removed) {
        agents_ = std::move(keep);
        ++roster_version_;
        drop_empty_groups();
    }
}

Result<TowerCheck> World::check_tower(int x0, int y0, int x1, int y1) const {
    if (!service_) return Error{"no map loaded"};
    const int w = terrain_->width(), h = terrain_->height();
    if (x0 > x1 || y0 > y1 || x0 < 0 || y0 < 0 || x1 >= w || y1 >= h) {
        return Error{ErrorCode::off_map, "tower [" + std::to_string(x0) + ", " + std::to_string(x1) + "] x [" +
                                             std::to_string(y0) + ", " + std::to_string(y1) +
                                             "] is empty or not on the " + std::to_string(w) + "x" + std::to_string(h) +
                                             " map"};
    }
    if (x1 - x0 + 1 > kMaxTowerSide || y1 - y0 + 1 > kMaxTowerSide) {
        return Error{ErrorCode::too_large, "a tower is at most " + std::to_string(kMaxTowerSide) + " cells a side"};
    }
    TowerCheck out;
    for (const auto& g : groups_) {
        if (g->dropped || !g->applied) continue;
        if (g->flee) {
            // A flee group's "goals" are its dangers: it has nothing to be cut off from, but a wall
            // over a danger leaves the flee field without a source and every unit without a path
            // (a paint skips goal and danger cells alike).
            for (const Cell& danger : g->goals) {
                if (danger.x >= x0 && danger.x <= x1 && danger.y >= y0 && danger.y <= y1) out.covers_danger = true;
            }
            continue;
        }
        for (const Cell& goal : g->goals) {
            // A goal is covered when the tower walls a cell of its block.
            if (goal.x + g->size - 1 >= x0 && goal.x <= x1 && goal.y + g->size - 1 >= y0 && goal.y <= y1) {
                out.covers_goal = true;
            }
        }
        // The tower in the group's class: sized cells whose block overlaps it.
        std::vector<Cell> walls;
        const CellRect sized = sized_cells_touched(CellRect{x0, y0, x1, y1}, g->size, w, h);
        for (int y = sized.y0; y <= sized.y1; ++y)
            for (int x = sized.x0; x <= sized.x1; ++x) walls.push_back({x, y});
        std::vector<Cell> spawns;
        const float lift = 0.5f * static_cast<float>(g->size - 1);
        for (const AgentId id : agents_) {
            if (unit_group_[id.index] != g->id) continue;
            const Vec2 p = crowd_->position(id);
            spawns.push_back({std::clamp(static_cast<int>(p.x - lift), 0, w - 1),
                              std::clamp(static_cast<int>(p.y - lift), 0, h - 1)});
        }
        auto answer = service_->would_block(g->ticket, walls, spawns);
        if (!answer) return answer.error();
        out.units_cut_off += answer->cut_off_spawns;
        out.cells_cut_off += answer->cut_off_cells;
    }
    out.blocks = out.covers_goal || out.covers_danger || out.units_cut_off > 0;
    return out;
}

Result<void> World::place_tower(const PlaceTower& c) {
    auto check = check_tower(c.x0, c.y0, c.x1, c.y1);
    if (!check) return check.error();
    if (check->covers_goal) return Error{ErrorCode::on_wall, "a tower may not cover a goal"};
    if (check->covers_danger) return Error{ErrorCode::on_wall, "a tower may not cover a flee group's danger"};
    if (check->blocks) {
        return Error{"the tower would cut " + std::to_string(check->units_cut_off) + " units off from their goals"};
    }
    if (auto r = service_->edit_rect(c.x0, c.y0, c.x1, c.y1, kCostWall); !r) return r;
    terrain_changed();
    evict_units_from_walls();
    return {};
}

int World::unit_size(AgentId id) const noexcept {
    if (!crowd_->valid(id) || id.index >= unit_size_.size()) return 0;
    return unit_size_[id.index];
}

// Spawn, in phases: the request's checks, the cells open to the units, the group they join (or,
// without `add`, the one group left), then the units themselves.
Result<void> World::spawn(const Spawn& c) {
    if (auto r = check_spawn(c); !r) return r;
    auto free_cells = spawn_cells(c);
    if (!free_cells) return free_cells.error();
    auto target = spawn_group(c);
    if (!target) return target.error();
    place_units(c, *free_cells, **target);
    ++roster_version_;
    stats_.crowd.agents = agents_.size();
    stats_.route_ms = route_units(*target);  // plans: the new units' sectors and routes, before the first step
    refresh_plan_stats();
    return {};
}

Result<void> World::check_spawn(const Spawn& c) const {
    if (c.count < 0 || c.count > kMaxWorldUnits) {
        return Error{"unit count " + std::to_string(c.count) + " is outside 0.." + std::to_string(kMaxWorldUnits)};
    }
    if (c.size < 1 || c.size > kWorldUnitSizes) {
        return Error{"unit size " + std::to_string(c.size) + " is outside 1.." + std::to_string(kWorldUnitSizes)};
    }
    if (c.add && agents_.size() + static_cast<std::size_t>(c.count) > static_cast<std::size_t>(kMaxWorldUnits)) {
        return Error{ErrorCode::too_large, "adding " + std::to_string(c.count) + " units to " +
                                               std::to_string(agents_.size()) + " would pass the limit of " +
                                               std::to_string(kMaxWorldUnits)};
    }
    return {};
}

// The cells (y * width + x) a unit of the spawn's size can stand on in its area (its block below
// and right of the cell is open); errors when they cannot hold the units at once.
Result<std::vector<std::uint32_t>> World::spawn_cells(const Spawn& c) const {
    int x0 = 0, y0 = 0, x1 = terrain_->width() - 1, y1 = terrain_->height() - 1;
    if (c.in_area) {
        if (c.x0 > c.x1 || c.y0 > c.y1 || c.x1 < 0 || c.y1 < 0 || c.x0 >= terrain_->width() ||
            c.y0 >= terrain_->height()) {
            return Error{"spawn area [" + std::to_string(c.x0) + ", " + std::to_string(c.x1) + "] x [" +
                         std::to_string(c.y0) + ", " + std::to_string(c.y1) + "] is empty or off the map"};
        }
        x0 = std::max(x0, c.x0);
        y0 = std::max(y0, c.y0);
        x1 = std::min(x1, c.x1);
        y1 = std::min(y1, c.y1);
    } else if (spawn_area_) {
        x0 = std::max(x0, spawn_area_->x0);
        y0 = std::max(y0, spawn_area_->y0);
        x1 = std::min(x1, spawn_area_->x1);
        y1 = std::min(y1, spawn_area_->y1);
    }
    // Cells a unit of this size can stand on (its block below and right of the cell is open).
    const auto open = service_->planning_costs(world_movement_class(c.size));
    std::vector<std::uint32_t> free_cells;
    const int w = terrain_->width();
    for (int y = y0; y <= y1; ++y) {
        for (int x = x0; x <= x1; ++x) {
            if (open->passable(x, y)) free_cells.push_back(static_cast<std::uint32_t>(y) * w + x);
        }
    }
    if (free_cells.empty() && c.count > 0) {
        return Error{"the spawn area has no cell open to units of size " + std::to_string(c.size)};
    }
    // Refuse what cannot fit at once: a crowd packed tighter than discs touching never settles and
    // steps ever slower.
    const std::int64_t area = static_cast<std::int64_t>(c.size) * c.size;
    const std::int64_t fit = static_cast<std::int64_t>(free_cells.size()) * kMaxUnitsPerFreeCell / area;
    if (c.count > fit) {
        return Error{ErrorCode::too_large,
                     std::to_string(c.count) + " units of size " + std::to_string(c.size) +
                         " do not fit: the spawn area [" + std::to_string(x0) + ", " + std::to_string(x1) + "] x [" +
                         std::to_string(y0) + ", " + std::to_string(y1) + "] has " + std::to_string(free_cells.size()) +
                         " free cells, room for " + std::to_string(fit) + " (" + std::to_string(kMaxUnitsPerFreeCell) +
                         " per free cell, a unit of size s counting s x s)"};
    }
    if (c.add) {
        std::int64_t used = static_cast<std::int64_t>(c.count) * area;
        for (const AgentId id : agents_) used += static_cast<std::int64_t>(unit_size(id)) * unit_size(id);
        const std::int64_t room = static_cast<std::int64_t>(max_units(*terrain_));
        if (used > room) {
            return Error{ErrorCode::too_large, "adding " + std::to_string(c.count) + " units of size " +
                                                   std::to_string(c.size) + " to " + std::to_string(agents_.size()) +
                                                   " would pass the map's room for " + std::to_string(room) + " (" +
                                                   std::to_string(kMaxUnitsPerFreeCell) + " per free cell)"};
        }
    }
    return free_cells;
}

// The group the spawned units join: without `add`, the largest group is kept (planned for the
// units' size) and everything else goes; with it, a group of their size with those goals, or a
// new one. Its field is published before this returns.
Result<World::Group*> World::spawn_group(const Spawn& c) {
    Group* keep = nullptr;  // the largest group: its goals are the new units' goals
    for (auto& g : groups_) {
        if (g->dropped) continue;
        if (!keep || g->members > keep->members || (g->members == keep->members && g->id < keep->id)) keep = g.get();
    }
    if (!keep) return Error{"the world has no goals: load a map first"};
    std::vector<Cell> sized = goals_for_size(keep->goals, c.size);
    if (sized.empty()) return Error{"no cell near the goals fits units of size " + std::to_string(c.size)};
    const FieldOptions options = field_options(c.size, keep->flee);
    Group* target = nullptr;
    if (!c.add) {
        // Everyone goes; the largest group stays (for the new units' size) and the others go.
        if (keep->size != c.size || keep->goals != sized) {
            if (auto r = service_->retarget(keep->ticket, sized, options); !r) return r.error();
            keep->applied = {};
            keep->size = c.size;
            keep->goals = sized;
        }
        if (!keep->applied) {  // its field is still being built: wait for it
            service_->wait_idle();
            apply_fields();
        }
        const FieldView field = keep->applied;
        if (!field) return Error{"the field of the spawned units could not be built"};
        for (auto& g : groups_) {
            if (g.get() != keep) (void)service_->release(g->ticket);
            if (g.get() != keep && g->has_steer_ticket) (void)service_->release(g->steer_ticket);
        }
        std::erase_if(groups_, [&](const auto& g) { return g.get() != keep; });
        crowd_ = std::make_unique<Crowd>(*terrain_, crowd_->params());
        keep->crowd_group = crowd_->add_group(field, c.size, world_movement_class(c.size)).value();
        keep->pending.clear();
        keep->members = 0;
        keep->dropped = false;
        agents_.clear();
        unit_group_.clear();
        unit_size_.clear();
        stats_.crowd = {};
        target = keep;
    } else {
        // The new units join a group of their size with those goals, or form one.
        for (auto& g : groups_) {
            if (!g->dropped && g->size == c.size && g->goals == sized && g->flee == keep->flee) target = g.get();
        }
        if (!target) {
            auto ticket = service_->request(sized, options);
            if (!ticket) return ticket.error();
            target = &new_group(sized, *ticket, c.size);
            target->flee = keep->flee;
        }
        if (target->crowd_group == kNoCrowdGroup) {
            service_->wait_idle();
            apply_fields();
        }
        if (target->crowd_group == kNoCrowdGroup) return Error{"the field of the spawned units could not be built"};
        target->dropped = false;
    }
    return target;
}

// Adds the units at random open cells (the world's seeded generator) to `target`.
void World::place_units(const Spawn& c, const std::vector<std::uint32_t>& free_cells, Group& target) {
    const int w = terrain_->width();
    agents_.reserve(agents_.size() + static_cast<std::size_t>(c.count));
    // The centre of the unit's block, moved at most so far that the disc stays inside the block's
    // middle cell reach (a new unit never starts in a wall's reach).
    const float half = 0.5f * static_cast<float>(c.size);
    const float m = std::min(0.45f, params_.radius);
    AgentParams unit;
    unit.radius = radius_for(c.size);
    unit.max_speed = params_.speed;
    unit.movement_class = world_movement_class(c.size);
    for (int k = 0; k < c.count; ++k) {
        const std::uint32_t cell = free_cells[static_cast<std::size_t>(rng_.uniform() * free_cells.size())];
        const float fx = (static_cast<float>(rng_.uniform()) - 0.5f) * (1.0f - 2.0f * m);
        const float fy = (static_cast<float>(rng_.uniform()) - 0.5f) * (1.0f - 2.0f * m);
        const Vec2 p{static_cast<float>(cell % w) + half + fx, static_cast<float>(cell / w) + half + fy};
        auto id = crowd_->add_agent(p, target.crowd_group, unit);
        if (!id) continue;
        agents_.push_back(*id);
        if (unit_group_.size() <= id->index) {
            unit_group_.resize(id->index + 1, 0);
            unit_size_.resize(id->index + 1, 1);
        }
        unit_group_[id->index] = target.id;
        unit_size_[id->index] = static_cast<std::uint8_t>(c.size);
        ++target.members;
    }
}

void World::set_line_of_sight(bool on) {
    config_.crowd.line_of_sight = on;
    CrowdParams cp = crowd_->params();
    cp.line_of_sight = on;
    (void)crowd_->set_params(cp);  // the other values are the crowd's own, hence valid
}

Result<void> World::set_unit_params(const UnitParams& p) {
    if (!(p.speed >= 0.1f && p.speed <= 20.0f)) {
        return Error{"speed " + std::to_string(p.speed) + " is outside 0.1..20 cells/s"};
    }
    if (!(p.separation >= 0.0f && p.separation <= 20.0f)) {
        return Error{"separation " + std::to_string(p.separation) + " is outside 0..20"};
    }
    if (!(p.radius >= 0.05f && p.radius <= 0.5f)) {
        return Error{"radius " + std::to_string(p.radius) + " is outside 0.05..0.5 cells"};
    }
    CrowdParams cp = crowd_->params();
    cp.max_speed = p.speed;
    cp.separation = p.separation;
    cp.radius = p.radius;
    if (auto r = crowd_->set_params(cp); !r) return r;
    params_ = p;
    for (const AgentId id : agents_) {
        AgentParams unit = crowd_->agent_params(id);
        unit.radius = radius_for(unit_size(id));
        unit.max_speed = p.speed;
        (void)crowd_->set_agent_params(id, unit);
    }
    return {};
}

bool World::apply_fields() {
    if (!service_) return false;
    published_.clear();
    service_->publish();  // fills published_ through on_publish()
    const auto now = Clock::now();
    for (const Publication& p : published_) {
        const auto steer = std::find_if(groups_.begin(), groups_.end(), [&](const auto& g) {
            return g->has_steer_ticket && g->steer_ticket == p.ticket;
        });
        if (steer != groups_.end()) {  // kept for the next congestion refresh
            if (p.answers_request) (*steer)->steer_next = p.field;
            continue;
        }
        const auto it =
            std::find_if(groups_.begin(), groups_.end(), [&](const auto& g) { return g->ticket == p.ticket; });
        // A plan changed in place after an edit comes again: the crowd takes it anew (its units
        // forget what they saw along it, which may be behind the new wall).
        if (it == groups_.end() || !p.view || (p.view == (*it)->applied && !p.repaired)) continue;
        Group& g = **it;
        if (g.crowd_group == kNoCrowdGroup) {
            g.crowd_group = crowd_->add_group(p.view, g.size, world_movement_class(g.size)).value();
        } else {
            (void)crowd_->set_group_field(g.crowd_group, p.view);  // everyone in it turns at the next step
        }
        (void)crowd_->set_group_exit(g.crowd_group, g.exit && !g.flee);
        g.applied = p.view;
        ++g.field_serial;
        ++stats_.fields_published;
        if (g.order_to_field_ms < 0.0 && p.answers_request) {
            g.order_to_ready_ms = std::max(0.0, ms_between(g.ordered, p.ready));
            g.order_to_field_ms = ms_between(g.ordered, now);
            stats_.order_to_field_ms = g.order_to_field_ms;
        }
        for (const AgentId id : g.pending) {
            if (crowd_->valid(id) && unit_group_[id.index] == g.id) {
                const bool moved = crowd_->set_agent_group(id, g.crowd_group).ok();  // same size: same class
                TIDE_ASSERT(moved);
            }
        }
        g.pending.clear();
    }
    return !published_.empty();
}

bool World::drop_empty_groups() {
    // A group with no ordered members goes once nobody follows its crowd group any more.
    return std::erase_if(groups_, [&](const std::unique_ptr<Group>& g) {
               if (!g->dropped) return false;
               if (g->crowd_group != kNoCrowdGroup) {
                   if (crowd_->group_size(g->crowd_group) > 0) return false;
                   (void)crowd_->remove_group(g->crowd_group);
               }
               (void)service_->release(g->ticket);
               if (g->has_steer_ticket) (void)service_->release(g->steer_ticket);
               return true;
           }) > 0;
}

void World::refresh_view() {
    // groups_ is in id order: groups are appended with growing ids and erased in place.
    std::vector<UnitGroup> view;
    for (const auto& g : groups_) {
        if (g->dropped) continue;
        UnitGroup v;
        v.id = g->id;
        v.goals = g->goals;
        v.size = g->size;
        v.flee = g->flee;
        v.exit = g->exit;
        v.members = g->members;
        v.exited = g->exited;
        v.field_ready = g->crowd_group != kNoCrowdGroup && g->pending.empty();
        v.field_serial = g->field_serial;
        v.ordered = g->ordered;
        v.order_to_field_ms = g->order_to_field_ms;
        v.order_to_ready_ms = g->order_to_ready_ms;
        v.sector_fields = g->applied.plan() ? g->applied.plan()->built_sectors() : 0;
        view.push_back(std::move(v));
    }
    if (view == groups_view_) return;
    groups_view_ = std::move(view);
    ++groups_version_;
}

Result<void> World::tick(float dt, bool force) {
    if (!(dt > 0.0f) || !std::isfinite(dt) || dt > 10.0f) {
        return Error{"time step " + std::to_string(dt) + " s is not in (0, 10]"};
    }
    if (apply_fields() | drop_empty_groups()) refresh_view();
    // Units that entered sectors of a plan without a field get them (and their routes) before they
    // move on; after a paint, also while paused, so the fields shown are complete.
    stats_.tick_route_ms = route_units();
    refresh_plan_stats();
    refresh_view();
    exited_.clear();
    if (paused_ && !force) return {};
    if (config_.congestion.enabled) {
        if (congestion_clock_ <= 0.0) {
            refresh_congestion();
            congestion_clock_ += 1.0 / static_cast<double>(config_.congestion.refresh_hz);
        }
        congestion_clock_ -= static_cast<double>(dt);
    }
    const auto t0 = Clock::now();
    if (auto r = crowd_->step(dt, *jobs_); !r) return r;
    stats_.step_ms = ms_between(t0, Clock::now());
    stats_.crowd = crowd_->stats();
    ++stats_.tick;
    remove_exited();
    // Fields finished during the step go out now rather than at the next tick: the host draws
    // and sends them a tick sooner, and the crowd sees them at its next step either way.
    if (apply_fields()) refresh_view();
    return {};
}

// The live units a box (in roster order) or a list of handles (in slot order, each once) names.
std::vector<AgentId> World::selection(const std::variant<SelectBox, std::vector<AgentId>>& select) const {
    if (const auto* box = std::get_if<SelectBox>(&select)) return this->select(*box);
    std::vector<AgentId> units;
    for (const AgentId id : std::get<std::vector<AgentId>>(select)) {
        if (crowd_->valid(id)) units.push_back(id);
    }
    std::sort(units.begin(), units.end(), [](AgentId a, AgentId b) { return a.index < b.index; });
    units.erase(std::unique(units.begin(), units.end()), units.end());
    return units;
}

// Removes live units from the crowd, the roster and their groups; returns how many.
std::size_t World::remove_units(std::vector<AgentId> units) {
    if (units.empty()) return 0;
    std::sort(units.begin(), units.end(), [](AgentId a, AgentId b) { return a.index < b.index; });
    for (const AgentId id : units) {
        if (Group* g = find(unit_group_[id.index])) leave(*g);
        unit_group_[id.index] = 0;
        (void)crowd_->remove_agent(id);
    }
    std::erase_if(agents_, [&](AgentId id) {
        return std::binary_search(units.begin(), units.end(), id,
                                  [](AgentId a, AgentId b) { return a.index < b.index; });
    });
    ++roster_version_;
    drop_empty_groups();
    return units.size();
}

// Units that left through an exit in the step leave the roster and their groups.
void World::remove_exited() {
    const std::span<const AgentId> gone = crowd_->exited();
    if (gone.empty()) return;
    exited_.assign(gone.begin(), gone.end());
    for (const AgentId id : gone) {
        if (Group* g = find(unit_group_[id.index])) {
            ++g->exited;
            leave(*g);
        }
        unit_group_[id.index] = 0;
    }
    stats_.exited += gone.size();
    // The roster keeps its order; exited_ is in slot order, as a lookup by slot.
    std::erase_if(agents_, [&](AgentId id) {
        return std::binary_search(exited_.begin(), exited_.end(), id,
                                  [](AgentId a, AgentId b) { return a.index < b.index; });
    });
    ++roster_version_;
    drop_empty_groups();
    refresh_view();
}

void World::finish_builds() {
    if (!service_) return;
    service_->wait_idle();
    apply_fields();
    drop_empty_groups();
    refresh_view();
}

bool World::finish_builds_for(double ms) {
    if (!service_) return true;
    const auto budget = std::chrono::duration<double, std::milli>(std::max(0.0, ms));
    const bool idle = service_->wait_idle_for(std::chrono::duration_cast<std::chrono::steady_clock::duration>(budget));
    if (apply_fields() | drop_empty_groups()) refresh_view();
    return idle;
}

ArrivalRegion World::arrival_region(UnitGroupId id) const {
    const Group* g = find(id);
    if (!g || g->crowd_group == kNoCrowdGroup) return {};
    return crowd_->arrival_region(g->crowd_group);
}

UnitGroupId World::group_of(AgentId id) const noexcept {
    if (!crowd_->valid(id) || id.index >= unit_group_.size()) return 0;
    return unit_group_[id.index];
}

const UnitGroup* World::group(UnitGroupId id) const noexcept {
    for (const UnitGroup& g : groups_view_) {
        if (g.id == id) return &g;
    }
    return nullptr;
}

bool World::field_up_to_date(UnitGroupId id) const {
    if (!service_) return true;
    for (const auto& g : groups_) {
        if (g->id == id && !g->dropped) return service_->status(g->ticket).up_to_date;
    }
    return true;
}

UnitGroupId World::largest_group() const noexcept {
    const UnitGroup* best = nullptr;
    for (const UnitGroup& g : groups_view_) {
        if (!best || g.members > best->members) best = &g;
    }
    return best ? best->id : 0;
}

std::shared_ptr<const FlowField> World::field(UnitGroupId id) const {
    const Group* g = find(id);
    return g ? g->applied.flat() : nullptr;
}

std::shared_ptr<const HierarchicalField> World::plan(UnitGroupId id) const {
    const Group* g = find(id);
    return g ? g->applied.plan() : nullptr;
}

const SectorGraph* World::sector_graph(int size) const noexcept {
    if (size < 1 || size > kWorldUnitSizes || !service_) return nullptr;
    return service_->sector_graph(world_movement_class(size));
}

FieldServiceStats World::service_stats() const {
    return service_ ? service_->stats() : FieldServiceStats{};
}

}  // namespace tide
