// The field service's API (include/tide/field_service.hpp); the state and the pieces behind it
// are in service_state.hpp.

#include <algorithm>
#include <string>

#include "../fields/reach_block.hpp"
#include "../grid/cell_checks.hpp"
#include "service_state.hpp"

namespace tide {
using namespace svc;

Result<std::unique_ptr<FieldService>> FieldService::create(CostField terrain, JobSystem& jobs,
                                                           FieldServiceConfig config,
                                                           std::pmr::memory_resource* memory) {
    if (config.budget_bytes == 0) return Error{"field cache budget of 0 bytes: give at least 1 byte"};
    if (config.max_parallel_builds < 0) {
        return Error{"max_parallel_builds " + std::to_string(config.max_parallel_builds) + " is negative"};
    }
    if (config.classes.size() > 255) {
        return Error{ErrorCode::too_large,
                     std::to_string(config.classes.size()) + " movement classes: at most 255 besides the default"};
    }
    for (std::size_t k = 0; k < config.classes.size(); ++k) {
        const UnitClass& c = config.classes[k];
        const std::string name = "movement class " + std::to_string(k + 1) + " '" + c.name + "'";
        if (c.size < 1 || c.size > kMaxUnitSize) {
            return Error{name + ": size " + std::to_string(c.size) + " is outside 1.." + std::to_string(kMaxUnitSize)};
        }
        if (c.costs && (c.costs->width() != terrain.width() || c.costs->height() != terrain.height())) {
            return Error{name + ": its costs are " + std::to_string(c.costs->width()) + "x" +
                         std::to_string(c.costs->height()) + ", the terrain " + std::to_string(terrain.width()) + "x" +
                         std::to_string(terrain.height())};
        }
    }
    const bool hierarchical = static_cast<std::int64_t>(terrain.width()) * terrain.height() >= config.hierarchy_cells;
    if (hierarchical) {
        if (auto r = check_route_config(config.routes); !r) return r.error();
    }
    auto* state = new State(std::move(terrain), jobs, std::move(config), memory);
    std::unique_ptr<FieldService> service(new FieldService(state));
    state->stats.budget_bytes = state->config.budget_bytes;
    state->hierarchical = hierarchical;
    state->plan_layers.resize(state->classes.size());
    if (hierarchical) {
        // The default class's graph now (it checks the sector settings); the others on first use.
        std::lock_guard lock(state->mutex);
        if (auto r = state->plan_layer(0); !r) return r.error();
    }
    return service;
}

FieldService::~FieldService() {
    State& s = *state_;
    {
        std::unique_lock lock(s.mutex);
        s.shutdown = true;
        for (Slot& slot : s.slots) {
            if (slot.live) s.detach(slot);  // drops the queued builds
        }
        // Running builds finish (their callbacks are skipped) and no callback is still running.
        s.idle_cv.wait(lock, [&] { return s.running == 0 && !s.draining; });
        s.release_memory();
    }
    state_->unref();
}

Result<FieldTicket> FieldService::request(std::span<const Cell> goals, const FieldOptions& options) {
    State& s = *state_;
    int start = 0;
    FieldTicket ticket;
    {
        std::lock_guard lock(s.mutex);
        if (auto r = s.make_want(goals, options, s.scratch); !r) return r.error();
        std::uint32_t index;
        if (!s.free_slots.empty()) {
            index = s.free_slots.back();
            s.free_slots.pop_back();
        } else {
            index = static_cast<std::uint32_t>(s.slots.size());
            s.slots.emplace_back(&s.pool);
        }
        s.update_spare_limit();
        Slot& slot = s.slots[index];
        slot.live = true;
        slot.want.assign(s.scratch);
        ++slot.want_serial;
        slot.want_version = s.version;
        slot.priority = options.priority;
        ++s.stats.requests;
        s.attach(index, Clock::now());
        start = s.jobs_to_start();
        ticket = FieldTicket{index, slot.generation};
    }
    s.start_jobs(start);
    if (s.config.auto_publish) s.drain();
    return ticket;
}

Result<void> FieldService::retarget(FieldTicket ticket, std::span<const Cell> goals, const FieldOptions& options) {
    State& s = *state_;
    int start = 0;
    {
        std::lock_guard lock(s.mutex);
        Slot* slot = s.slot_of(ticket);
        if (!slot)
            return Error{ErrorCode::not_found,
                         "ticket " + std::to_string(ticket.index) + " is not live (released or never issued)"};
        if (auto r = s.make_want(goals, options, s.scratch); !r) return r.error();
        s.detach(*slot);
        slot->want.assign(s.scratch);
        ++slot->want_serial;
        slot->want_version = s.version;
        slot->priority = options.priority;
        // A ready field for the old goals is no use to the new order.
        slot->next = {};
        ++s.stats.requests;
        s.attach(ticket.index, Clock::now());
        start = s.jobs_to_start();
    }
    s.start_jobs(start);
    if (s.config.auto_publish) s.drain();
    return {};
}

Result<void> FieldService::release(FieldTicket ticket) {
    State& s = *state_;
    std::lock_guard lock(s.mutex);
    Slot* slot = s.slot_of(ticket);
    if (!slot)
        return Error{ErrorCode::not_found,
                     "ticket " + std::to_string(ticket.index) + " is not live (released or never issued)"};
    s.detach(*slot);
    slot->live = false;
    ++slot->generation;
    slot->field = {};
    slot->next = {};
    slot->want.goals.clear();
    s.free_slots.push_back(ticket.index);
    s.update_spare_limit();
    return {};
}

std::shared_ptr<const FlowField> FieldService::current(FieldTicket ticket) const {
    std::lock_guard lock(state_->mutex);
    const Slot* slot = state_->slot_of(ticket);
    return slot ? slot->field.flat() : nullptr;
}

Result<RouteStats> FieldService::route(FieldTicket ticket, std::span<const Cell> starts) {
    State& s = *state_;
    std::lock_guard lock(s.mutex);
    const Slot* slot = s.slot_of(ticket);
    if (!slot) {
        return Error{ErrorCode::not_found,
                     "ticket " + std::to_string(ticket.index) + " is not live (released or never issued)"};
    }
    s.catch_up_plans();
    if (!slot->field.plan()) return RouteStats{};
    // The service made every plan as a non-const HierarchicalField; planning calls come here only.
    return const_cast<HierarchicalField&>(*slot->field.plan()).route(starts);
}

Result<void> FieldService::check(std::span<const Cell> goals, const FieldOptions& options) const {
    State& s = *state_;
    std::lock_guard lock(s.mutex);
    Want scratch(&s.pool);  // gives its cells back to the pool before the lock goes
    return s.make_want(goals, options, scratch);
}

Result<void> FieldService::check_options(const FieldOptions& options) const {
    std::lock_guard lock(state_->mutex);
    return state_->check_options(options);
}

bool FieldService::hierarchical() const {
    return state_->hierarchical;  // set at creation
}

const SectorGraph* FieldService::sector_graph(MovementClass c) const {
    std::lock_guard lock(state_->mutex);
    return c < state_->plan_layers.size() ? state_->plan_layers[c].graph.get() : nullptr;
}

Result<BlockAnswer> FieldService::would_block(FieldTicket ticket, std::span<const Cell> walls,
                                              std::span<const Cell> spawns) const {
    State& s = *state_;
    std::lock_guard lock(s.mutex);
    const Slot* slot = s.slot_of(ticket);
    if (!slot) {
        return Error{ErrorCode::not_found,
                     "ticket " + std::to_string(ticket.index) + " is not live (released or never issued)"};
    }
    // No whole-map field to read (a plan), or the published one is older than the terrain (an
    // edit since: its flow may lead through cells walled since, and its "rescues" through cells
    // walled since): reachability of the ticket's goals over its class's costs as they are now.
    // Danger terms, wall margins and congestion add costs, never walls: the same reachability.
    // (A flee field's "goals" are its dangers: it is answered from its field.)
    if (s.hierarchical || (slot->field_version != s.version && slot->want.kind == FieldKind::goal)) {
        if (slot->want.kind != FieldKind::goal)
            return Error{ErrorCode::unsupported, "would-block queries answer for goal fields only"};
        return detail::reach_would_block(*s.classes[slot->want.movement_class].planning, slot->want.goals,
                                         slot->want.connectivity, walls, spawns);
    }
    if (!slot->field.flat()) return Error{"ticket " + std::to_string(ticket.index) + " has no field yet"};
    return s.query_builder.would_block(*s.classes[slot->want.movement_class].planning, *slot->field.flat(),
                                       slot->want.params(), walls, spawns);
}

FieldView FieldService::view(FieldTicket ticket) const {
    std::lock_guard lock(state_->mutex);
    const Slot* slot = state_->slot_of(ticket);
    return slot ? slot->field : FieldView{};
}

TicketStatus FieldService::status(FieldTicket ticket) const {
    const State& s = *state_;
    std::lock_guard lock(s.mutex);
    TicketStatus out;
    const Slot* slot = s.slot_of(ticket);
    if (!slot) return out;
    out.live = true;
    out.has_field = static_cast<bool>(slot->field);
    out.answers_request = out.has_field && slot->field_serial == slot->want_serial;
    out.up_to_date = out.answers_request && slot->field_version == s.version;
    out.ready = static_cast<bool>(slot->next);
    out.building = slot->waiting && slot->waiting->running;
    out.queued = slot->waiting && !slot->waiting->running;
    out.field_terrain_version = slot->field_version;
    const CostField& map = *s.classes[slot->want.movement_class].planning;
    for (const Cell& g : slot->want.goals) out.blocked_goals += map.at(g) == kCostWall;
    return out;
}

std::vector<Cell> FieldService::goals(FieldTicket ticket) const {
    std::lock_guard lock(state_->mutex);
    const Slot* slot = state_->slot_of(ticket);
    if (!slot) return {};
    return std::vector<Cell>(slot->want.goals.begin(), slot->want.goals.end());
}

std::size_t FieldService::publish() {
    State& s = *state_;
    std::size_t n;
    {
        std::lock_guard lock(s.mutex);
        s.catch_up_plans();
        n = s.publish_all();
    }
    s.drain();
    return n;
}

void FieldService::wait_idle() {
    State& s = *state_;
    std::unique_lock lock(s.mutex);
    // The waiting thread lends a hand: it runs queued builds itself, and only sleeps while the
    // last ones run elsewhere (so waiting never depends on the job system getting to its tasks).
    while (!s.idle()) {
        if (!s.run_one(lock)) s.idle_cv.wait(lock);
    }
}

bool FieldService::wait_idle_for(std::chrono::steady_clock::duration budget) {
    // Unlike wait_idle(), this thread builds nothing itself: a host's simulation thread waiting a
    // few milliseconds for an edit's repairs must not pick up a whole queued build (hundreds of
    // milliseconds on a big map) and run it to its end.
    State& s = *state_;
    const auto deadline = std::chrono::steady_clock::now() + budget;
    std::unique_lock lock(s.mutex);
    return s.idle_cv.wait_until(lock, deadline, [&] { return s.idle(); });
}

namespace {
std::string rect_text(int x0, int y0, int x1, int y1) {
    return "[" + std::to_string(x0) + ", " + std::to_string(x1) + "] x [" + std::to_string(y0) + ", " +
           std::to_string(y1) + "]";
}
}  // namespace

Result<void> FieldService::edit_rect(int x0, int y0, int x1, int y1, Cost cost) {
    State& s = *state_;
    int start = 0;
    std::vector<Cell> cells;  // hierarchical maps, walls: the rectangle's cells, for edit_cells()
    {
        std::lock_guard lock(s.mutex);
        if (cost == 0) return Error{"terrain cost 0 is not a cost (1..254, 255 for walls)"};
        const int w = s.terrain->width(), h = s.terrain->height();
        if (x0 > x1 || y0 > y1) return Error{"edit rectangle " + rect_text(x0, y0, x1, y1) + " is empty"};
        if (x1 < 0 || y1 < 0 || x0 >= w || y0 >= h) {
            return Error{ErrorCode::off_map, "edit rectangle " + rect_text(x0, y0, x1, y1) + " lies outside the " +
                                                 std::to_string(w) + "x" + std::to_string(h) + " map"};
        }
        x0 = std::max(x0, 0);
        y0 = std::max(y0, 0);
        x1 = std::min(x1, w - 1);
        y1 = std::min(y1, h - 1);
        if (s.hierarchical && cost == kCostWall) {
            for (int y = y0; y <= y1; ++y)
                for (int x = x0; x <= x1; ++x) cells.push_back({x, y});
        }
    }
    if (!cells.empty()) return edit_cells(cells, cost);  // keeps the plans' goal blocks open
    {
        std::lock_guard lock(s.mutex);
        bool changed = false;
        for (int y = y0; y <= y1 && !changed; ++y) {
            for (int x = x0; x <= x1 && !changed; ++x) changed = s.terrain->at(x, y) != cost;
        }
        if (!changed) return {};
        s.writable_terrain().fill_rect(x0, y0, x1, y1, cost);
        const CellRect rect{x0, y0, x1, y1};
        s.refresh_classes(&rect, {});
        start = s.terrain_changed(x0, y0, x1, y1, {});
    }
    s.start_jobs(start);
    return {};
}

Result<void> FieldService::edit_cells(std::span<const Cell> cells, Cost cost) {
    State& s = *state_;
    int start = 0;
    {
        std::lock_guard lock(s.mutex);
        if (cost == 0) return Error{"terrain cost 0 is not a cost (1..254, 255 for walls)"};
        const CostField& map = *s.terrain;
        for (const Cell& c : cells) {
            if (!map.contains(c)) return detail::outside_error("edited cell", c, map.width(), map.height());
        }
        std::vector<Cell> open;  // hierarchical maps: the cells outside the plans' goal blocks
        if (s.hierarchical && cost == kCostWall) {
            for (const Cell& c : cells) {
                if (!s.in_goal_block(c.x, c.y)) open.push_back(c);
            }
            cells = open;
        }
        bool changed = false;
        for (const Cell& c : cells) changed = changed || map.at(c) != cost;
        if (!changed) return {};
        CostField& edited = s.writable_terrain();
        for (const Cell& c : cells) edited.set(c.x, c.y, cost);
        s.refresh_classes(nullptr, cells);
        start = s.terrain_changed(0, 0, -1, -1, cells);
    }
    s.start_jobs(start);
    return {};
}

std::shared_ptr<const CostField> FieldService::terrain() const {
    std::lock_guard lock(state_->mutex);
    return state_->terrain;
}

std::shared_ptr<const CostField> FieldService::planning_costs(MovementClass c) const {
    std::lock_guard lock(state_->mutex);
    return c < state_->classes.size() ? state_->classes[c].planning : nullptr;
}

int FieldService::class_count() const {
    std::lock_guard lock(state_->mutex);
    return static_cast<int>(state_->classes.size());
}

std::uint64_t FieldService::terrain_version() const {
    std::lock_guard lock(state_->mutex);
    return state_->version;
}

FieldServiceStats FieldService::stats() const {
    const State& s = *state_;
    std::lock_guard lock(s.mutex);
    FieldServiceStats out = s.stats;
    out.budget_bytes = s.config.budget_bytes;
    out.bytes_spare = s.recycler->spare_bytes();
    out.bytes_in_use = s.recycler->live_bytes();
    out.queued = s.queued;
    out.running = s.running;
    out.tickets = s.slots.size() - s.free_slots.size();
    out.terrain_version = s.version;
    for (const State::PlanEntry& e : s.plans) {
        const auto plan = e.plan.lock();
        if (!plan) continue;
        ++out.plans;
        out.sector_fields += plan->built_sectors();
        out.sector_field_bytes += plan->field_bytes();
    }
    return out;
}

Result<void> FieldService::set_budget(std::size_t bytes) {
    if (bytes == 0) return Error{"field cache budget of 0 bytes: give at least 1 byte"};
    std::lock_guard lock(state_->mutex);
    state_->config.budget_bytes = bytes;
    state_->evict_to(bytes);
    return {};
}

void FieldService::clear_cache() {
    std::lock_guard lock(state_->mutex);
    state_->stats.evictions += state_->lru.size();
    state_->cache_clear(false);
}

}  // namespace tide
