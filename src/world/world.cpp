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
#include "../grid/float_to_int.hpp"
#include "tide/assert.hpp"
#include "tide/recording.hpp"
#include "world_group.hpp"

namespace tide {

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

// A member leaves `g`. A group left empty is dropped, unless it is the last group (a world keeps
// its goals even with no units, to spawn more later) or a spawner still feeds it.
void World::leave(Group& g) {
    --g.members;
    if (g.members > 0 || spawner_feeds(g.id)) return;  // a spawner's group waits for its next units
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
    std::optional<RecordedLoad> recorded;  // what the recording gets if the load succeeds
    if (recording_) recorded = RecordedLoad{name, cost, goals, units, spawn_area};
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
    spawners_.clear();  // a new map: its spawners end (ids are not reused)
    unit_spawner_.clear();
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
    ++loads_;
    if (recording_) recording_->events.emplace_back(std::move(*recorded));
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
        const std::uint32_t slot = g->crowd_group.index;
        if (plan_of_.size() <= slot) plan_of_.resize(slot + 1, nullptr);
        plan_of_[slot] = g.get();
    }
    if (plan_of_.empty()) return 0.0;
    if (starts_.size() < plan_of_.size()) starts_.resize(plan_of_.size());
    for (auto& v : starts_) v.clear();
    const int w = terrain_->width(), h = terrain_->height();
    for (const AgentId id : agents_) {
        const std::uint32_t cg = crowd_->group(id).index;  // a live group: the slot names it
        if (cg >= plan_of_.size() || !plan_of_[cg]) continue;
        const Group& g = *plan_of_[cg];
        // The unit's top-left cell follows the field (as in the crowd step).
        const float lift = 0.5f * static_cast<float>(g.size - 1);
        const Vec2 p = crowd_->position(id);
        const Cell c{detail::clamped_int(p.x - lift, 0, w - 1), detail::clamped_int(p.y - lift, 0, h - 1)};
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
    publish_ready();
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
                out = order(selection(c.select), c.goals, c.flee, c.exit, c.formation);
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
            } else if constexpr (std::is_same_v<T, AddSpawner>) {
                if (auto r = add_spawner(c.spec); !r) {
                    out = r.error();
                } else {
                    out = CommandOutcome{0, 0, *r};
                }
            } else if constexpr (std::is_same_v<T, RemoveSpawner>) {
                if (auto r = remove_spawner(c.id); !r) out = r.error();
            }
        },
        command);
    refresh_plan_stats();
    refresh_view();
    if (recording_) recording_->events.emplace_back(RecordedCommand{command, !out.ok()});
    return out;
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
            if (g.formation.shape != FormationShape::none) {
                (void)crowd_->set_group_formation(g.crowd_group, g.formation);  // checked by order()
            }
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
    if (!paused_ || force) run_spawners();  // emissions due by the crowd's clock, before the step
    if (publish_ready() | drop_empty_groups()) refresh_view();
    // Units that entered sectors of a plan without a field get them (and their routes) before they
    // move on; after a paint, also while paused, so the fields shown are complete.
    stats_.tick_route_ms = route_units();
    if (!plan_of_.empty()) {  // groups follow plans: their sector fields may have grown
        refresh_plan_stats();
        refresh_view();
    }
    exited_.clear();
    if (paused_ && !force) {
        if (recording_) recording_->events.emplace_back(RecordedTick{dt, force, state_hash()});
        return {};
    }
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
    // and sends them a tick sooner, and the crowd sees them at its next step either way. Not in
    // lockstep: what finished during the step depends on the threads.
    if (!config_.lockstep && apply_fields()) refresh_view();
    if (recording_) recording_->events.emplace_back(RecordedTick{dt, force, state_hash()});
    return {};
}

// What is ready goes out; in lockstep, every build in flight first finishes (the publication
// points are then the same on every machine).
bool World::publish_ready() {
    if (config_.lockstep && service_) service_->wait_idle();
    return apply_fields();
}

void World::finish_builds() {
    if (!service_) return;
    service_->wait_idle();
    apply_fields();
    drop_empty_groups();
    refresh_view();
    if (recording_) recording_->events.emplace_back(RecordedFinish{});
}

bool World::finish_builds_for(double ms) {
    if (!service_) return true;
    const auto budget = std::chrono::duration<double, std::milli>(std::max(0.0, ms));
    const bool idle = service_->wait_idle_for(std::chrono::duration_cast<std::chrono::steady_clock::duration>(budget));
    if (config_.lockstep && !idle) return false;  // a part of the builds would go out: timing-dependent
    if (apply_fields() | drop_empty_groups()) refresh_view();
    if (idle && config_.lockstep && recording_) recording_->events.emplace_back(RecordedFinish{});
    return idle;
}

std::uint64_t World::state_hash() const {
    std::uint64_t h = crowd_->state_hash() ^ (stats_.tick * 0xd6e8feb86659fd93ull);
    h = (h ^ h >> 32) * 0x9e3779b97f4a7c15ull ^ terrain_version_;
    for (const UnitGroup& g : groups_view_) {
        h = (h ^ h >> 29 ^ g.id) * 0xbf58476d1ce4e5b9ull;
        h = (h ^ h >> 31 ^ (static_cast<std::uint64_t>(g.members) << 20) ^ g.field_serial) * 0x94d049bb133111ebull;
    }
    for (const SpawnerInfo& sp : spawners_) {
        h = (h ^ h >> 29 ^ sp.id ^ sp.emissions << 24) * 0xbf58476d1ce4e5b9ull;
        h = (h ^ h >> 31 ^ sp.spawned ^ sp.sunk << 21 ^ sp.skipped << 42) * 0x94d049bb133111ebull;
    }
    return h ^ h >> 32;
}

Result<void> World::start_recording(Recording& recording) {
    if (!config_.lockstep) {
        return Error{"recording needs WorldConfig::lockstep on (fields published at fixed points)"};
    }
    if (loads_ != 0) return Error{"recording starts before the first load(): this world has a map already"};
    recording.config = config_;
    recording.config.field_memory = std::pmr::get_default_resource();  // not the host's: a replay brings its own
    recording.config.routes.jobs = nullptr;
    recording.events.clear();
    recording_ = &recording;
    return {};
}

ArrivalRegion World::arrival_region(UnitGroupId id) const {
    const Group* g = find(id);
    if (!g || g->crowd_group == kNoCrowdGroup) return {};
    return crowd_->arrival_region(g->crowd_group);
}

FormationState World::formation(UnitGroupId id) const {
    const Group* g = find(id);
    if (!g || g->crowd_group == kNoCrowdGroup) return {};
    return crowd_->group_formation(g->crowd_group);
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
