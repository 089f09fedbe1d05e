// Spawners (include/tide/world.hpp, SpawnerSpec): units added on a schedule in simulated time, in
// one group per spawner walking to its goals, counted when they leave through them.
//
// Emissions are made at the start of a tick (before the step), for every emission due by the
// crowd's clock, in spawner id order; their positions come from the world's seeded generator.
// A spawner's group is made when the spawner is added (and again if it was dropped before an
// emission), and kept while the spawner has emissions left, even with no units: its field is
// what a tower is checked against (World::check_tower keeps the spawner's area connected to its
// goals between waves too). Its field is waited for when it is made, so the first units walk at
// once and the result does not depend on the threads.

#include <algorithm>
#include <cmath>
#include <string>

#include "tide/world.hpp"
#include "world_group.hpp"

namespace tide {
namespace {

constexpr double kMaxSeconds = 86400.0;

bool in_range(double v, double lo, double hi) {
    return std::isfinite(v) && v >= lo && v <= hi;
}

Result<void> check_spec(const SpawnerSpec& s, int width, int height) {
    const CellRect& a = s.area;
    if (a.empty() || a.x1 < 0 || a.y1 < 0 || a.x0 >= width || a.y0 >= height) {
        return Error{ErrorCode::off_map, "spawner area [" + std::to_string(a.x0) + ", " + std::to_string(a.x1) +
                                             "] x [" + std::to_string(a.y0) + ", " + std::to_string(a.y1) +
                                             "] is empty or off the " + std::to_string(width) + "x" +
                                             std::to_string(height) + " map"};
    }
    if (s.size < 1 || s.size > kWorldUnitSizes) {
        return Error{"spawner unit size " + std::to_string(s.size) + " is outside 1.." +
                     std::to_string(kWorldUnitSizes)};
    }
    if (!in_range(s.start_s, 0.0, kMaxSeconds)) return Error{"spawner start_s is outside 0..86400 s"};
    if (!in_range(s.every_s, 0.001, kMaxSeconds)) return Error{"spawner every_s is outside 0.001..86400 s"};
    if (!in_range(s.wave_pause_s, 0.0, kMaxSeconds)) return Error{"spawner wave_pause_s is outside 0..86400 s"};
    if (s.per_emission < 1 || s.per_emission > kMaxSpawnPerEmission) {
        return Error{"spawner per_emission " + std::to_string(s.per_emission) + " is outside 1.." +
                     std::to_string(kMaxSpawnPerEmission)};
    }
    if (s.wave_emissions < 0 || s.waves < 0) return Error{"spawner wave_emissions and waves must be >= 0"};
    if (s.waves > 0 && s.wave_emissions == 0) {
        return Error{"spawner waves need wave_emissions > 0 (emissions per wave)"};
    }
    return {};
}

}  // namespace

Result<SpawnerId> World::add_spawner(const SpawnerSpec& spec) {
    if (auto r = check_spec(spec, terrain_->width(), terrain_->height()); !r) return r.error();
    auto goals = check_goals(spec.goals);
    if (!goals) return goals.error();
    if (goals_for_size(*goals, spec.size).empty()) {
        return Error{"no cell near the spawner's goals fits units of size " + std::to_string(spec.size)};
    }
    SpawnerInfo s;
    s.id = next_spawner_++;
    s.spec = spec;
    s.spec.goals = std::move(*goals);
    s.spec.area.x0 = std::max(spec.area.x0, 0);
    s.spec.area.y0 = std::max(spec.area.y0, 0);
    s.spec.area.x1 = std::min(spec.area.x1, terrain_->width() - 1);
    s.spec.area.y1 = std::min(spec.area.y1, terrain_->height() - 1);
    s.next_s = crowd_->time() + spec.start_s;
    spawners_.push_back(std::move(s));
    if (!spawner_group(spawners_.back())) {
        spawners_.pop_back();
        --next_spawner_;
        return Error{"no field toward the spawner's goals"};
    }
    refresh_plan_stats();
    refresh_view();
    return spawners_.back().id;
}

// The spawner's group, made (with its field published) when it has none.
World::Group* World::spawner_group(SpawnerInfo& s) {
    Group* g = find(s.group);
    if (g) return g;
    const SpawnerSpec& p = s.spec;
    const std::vector<Cell> sized = goals_for_size(p.goals, p.size);
    auto ticket = service_->request(sized, field_options(p.size, false));
    if (!ticket) return nullptr;
    g = &new_group(sized, *ticket, p.size);
    g->exit = p.exit;
    s.group = g->id;
    service_->wait_idle();  // its first units walk at once, whatever the threads
    apply_fields();
    return g;
}

// True when a spawner with emissions left adds its units to group `id`.
bool World::spawner_feeds(UnitGroupId id) const {
    return std::any_of(spawners_.begin(), spawners_.end(),
                       [&](const SpawnerInfo& s) { return !s.done && s.group == id; });
}

// A spawner has no emission left: its group goes once it is empty (as leave() would have done).
void World::spawner_done(SpawnerInfo& s) {
    s.done = true;
    s.next_s = -1.0;
    Group* g = find(s.group);
    if (!g || g->members > 0 || spawner_feeds(g->id)) return;
    for (const auto& other : groups_) {
        if (other.get() != g && !other->dropped) {
            g->dropped = true;
            return;
        }
    }
}

Result<void> World::remove_spawner(SpawnerId id) {
    const auto it = std::find_if(spawners_.begin(), spawners_.end(), [&](const SpawnerInfo& s) { return s.id == id; });
    if (it == spawners_.end()) return Error{ErrorCode::not_found, "no spawner " + std::to_string(id)};
    if (!it->done) {
        spawner_done(*it);
        drop_empty_groups();
        refresh_view();
    }
    return {};
}

// The next emission's time after the one just made (or done).
void World::schedule_next(SpawnerInfo& s) {
    const SpawnerSpec& p = s.spec;
    if (p.wave_emissions == 0) {
        s.next_s += p.every_s;
        return;
    }
    if (s.emissions % static_cast<std::uint64_t>(p.wave_emissions) != 0) {
        s.next_s += p.every_s;
        return;
    }
    ++s.waves_done;  // that emission ended a wave
    if (p.waves > 0 && s.waves_done >= p.waves) {
        spawner_done(s);
        return;
    }
    s.next_s += p.wave_pause_s;
}

// One emission: the units at random open cells of the area, into the spawner's group.
void World::emit(SpawnerInfo& s) {
    const SpawnerSpec& p = s.spec;
    ++s.emissions;
    Spawn c;
    c.count = p.per_emission;
    c.size = p.size;
    c.add = true;
    c.in_area = true;
    c.x0 = p.area.x0;
    c.y0 = p.area.y0;
    c.x1 = p.area.x1;
    c.y1 = p.area.y1;
    auto cells = spawn_cells(c);  // refused when the area or the map has no room for them
    Group* target = cells ? spawner_group(s) : find(s.group);
    if (!cells || !target || target->crowd_group == kNoCrowdGroup) {
        s.skipped += static_cast<std::uint64_t>(p.per_emission);
        return;
    }
    const std::size_t before = agents_.size();
    place_units(c, *cells, *target);
    target->dropped = false;
    for (std::size_t i = before; i < agents_.size(); ++i) {
        const AgentId id = agents_[i];
        if (unit_spawner_.size() <= id.index) unit_spawner_.resize(id.index + 1, 0);
        unit_spawner_[id.index] = s.id;
    }
    const std::size_t added = agents_.size() - before;
    s.spawned += added;
    s.skipped += static_cast<std::uint64_t>(p.per_emission) - added;
    if (added > 0) ++roster_version_;
}

void World::run_spawners() {
    const double now = crowd_->time();
    bool changed = false;
    for (SpawnerInfo& s : spawners_) {
        // Every emission due by now (a step longer than every_s makes several); at most 10^5 per
        // tick, far above what every_s >= 0.001 s and dt <= 10 s can ask for.
        for (int n = 0; !s.done && s.next_s <= now + 1e-9 && n < 100000; ++n) {
            emit(s);
            schedule_next(s);
            changed = true;
        }
    }
    if (changed) {
        refresh_plan_stats();
        refresh_view();
    }
}

}  // namespace tide
