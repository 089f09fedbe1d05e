// A scripted crowd run on a World; see simulation.hpp.

#include "tide/simulation.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "tide/assert.hpp"
#include "tide/limits.hpp"

namespace tide {
namespace {

std::string number_text(double value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    return buf;
}

}  // namespace

// A unit-step counts as a wall penetration when the centre is in a wall cell or the disc overlaps a
// wall cell by more than 5% of the radius (of the 3 x 3 cells around the centre's).
bool penetrates_wall(const CostField& cost, Vec2 p, float r) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return true;
    const int px = static_cast<int>(p.x), py = static_cast<int>(p.y);
    if (!cost.passable(px, py)) return true;
    // Only cells within 0.95 r of the centre count: those the box [p - 0.95 r, p + 0.95 r] touches (a
    // cell outside it is at least 0.95 r away along one axis). Usually one to four cells, not nine.
    // The box is widened by 1e-3 so that rounding never leaves out a cell the test below counts.
    const float reach = r * 0.95f + 1e-3f;
    const int x0 = std::max(px - 1, static_cast<int>(std::floor(p.x - reach)));
    const int x1 = std::min(px + 1, static_cast<int>(std::floor(p.x + reach)));
    const int y0 = std::max(py - 1, static_cast<int>(std::floor(p.y - reach)));
    const int y1 = std::min(py + 1, static_cast<int>(std::floor(p.y + reach)));
    for (int y = y0; y <= y1; ++y) {
        for (int x = x0; x <= x1; ++x) {
            if (cost.passable(x, y)) continue;
            const float qx = std::clamp(p.x, float(x), float(x + 1)), qy = std::clamp(p.y, float(y), float(y + 1));
            if (std::hypot(p.x - qx, p.y - qy) < r * 0.95f) return true;
        }
    }
    return false;
}

namespace {

Result<void> check_settings(const SimulationSettings& s) {
    if (s.targets.empty()) {
        return Error{s.flee ? "a flee run needs at least one danger cell" : "a run needs at least one goal"};
    }
    if (s.agents < 1 || s.agents > kMaxWorldUnits) {
        return Error{"agents " + std::to_string(s.agents) + " is outside 1.." + std::to_string(kMaxWorldUnits)};
    }
    if (s.unit_size < 1 || s.unit_size > kWorldUnitSizes) {
        return Error{"unit size " + std::to_string(s.unit_size) + " is outside 1.." + std::to_string(kWorldUnitSizes) +
                     " (the sizes a world holds)"};
    }
    if (!(s.seconds > 0 && s.seconds <= 3600))
        return Error{"seconds " + number_text(s.seconds) + " is outside (0, 3600]"};
    if (!(s.dt > 0 && s.dt <= 1.0)) return Error{"dt " + number_text(s.dt) + " is outside (0, 1]"};
    // Checked as a double before it becomes an integer (a cast out of range is undefined).
    const double steps = std::ceil(s.seconds / s.dt);
    if (!(steps <= static_cast<double>(kMaxSimSteps))) {
        return Error{ErrorCode::too_large, "seconds " + number_text(s.seconds) + " / dt " + number_text(s.dt) + " = " +
                                               number_text(steps) + " steps, more than the limit of " +
                                               std::to_string(kMaxSimSteps)};
    }
    if (s.spawn) {
        const SpawnArea& a = *s.spawn;
        if (!std::isfinite(a.x0) || !std::isfinite(a.y0) || !std::isfinite(a.x1) || !std::isfinite(a.y1) ||
            !(a.x0 < a.x1) || !(a.y0 < a.y1)) {
            return Error{"spawn area is not x0, y0, x1, y1 with x0 < x1 and y0 < y1"};
        }
    }
    return {};
}

}  // namespace

Simulation::Simulation(JobSystem& jobs, const SimulationSettings& settings)
    : settings_(settings), jobs_(&jobs), world_(std::make_unique<World>(jobs, settings.world)) {}

Simulation::~Simulation() = default;

Result<std::unique_ptr<Simulation>> Simulation::create(JobSystem& jobs, std::string name, CostField cost,
                                                       const SimulationSettings& settings) {
    if (auto r = check_settings(settings); !r) return r.error();
    const int width = cost.width(), height = cost.height();
    float x0 = 0, y0 = 0, x1 = static_cast<float>(width), y1 = static_cast<float>(height);
    if (settings.spawn) {
        const SpawnArea& a = *settings.spawn;
        if (a.x1 <= 0 || a.y1 <= 0 || a.x0 >= x1 || a.y0 >= y1) {
            return Error{ErrorCode::off_map,
                         "spawn area lies off the " + std::to_string(width) + "x" + std::to_string(height) + " map"};
        }
        x0 = std::max(0.0f, a.x0);
        y0 = std::max(0.0f, a.y0);
        x1 = std::min(x1, a.x1);
        y1 = std::min(y1, a.y1);
    }
    std::unique_ptr<Simulation> sim(new Simulation(jobs, settings));
    World& world = *sim->world_;
    if (auto r = world.load(std::move(name), std::move(cost), settings.targets, 0); !r) return r.error();
    Spawn spawn;
    spawn.count = settings.agents;
    spawn.size = settings.unit_size;
    spawn.in_area = true;
    spawn.x0 = static_cast<int>(std::floor(x0));
    spawn.y0 = static_cast<int>(std::floor(y0));
    spawn.x1 = static_cast<int>(std::ceil(x1)) - 1;
    spawn.y1 = static_cast<int>(std::ceil(y1)) - 1;
    if (auto r = world.apply(spawn); !r) {
        return Error{r.error().code, "could not find free positions for " + std::to_string(settings.agents) +
                                         " agents: " + r.error().message};
    }
    if (settings.flee) {  // the units were spawned toward the dangers as goals: now they flee from them
        if (auto r = world.apply(SetGoals{settings.targets, 0, true}); !r) return r.error();
        world.finish_builds();
    }
    sim->ids_ = world.agents();
    // A fresh world's units take the crowd's slots in the order they were added: its roster is the
    // crowd's slot order, the order read_units() reads in.
    TIDE_ASSERT(world.crowd().agents() == sim->ids_);
    sim->radius_ = sim->ids_.empty() ? settings.world.crowd.radius : world.crowd().agent_params(sim->ids_[0]).radius;
    const std::size_t n = sim->ids_.size();
    sim->step_count_ = static_cast<std::int64_t>(std::ceil(settings.seconds / settings.dt));
    sim->per_second_ = std::max(1, static_cast<int>(std::lround(1.0 / settings.dt)));
    sim->arrival_.assign(n, -1.0);
    if (settings.detail) {
        for (const AgentId id : sim->ids_) sim->start_at_.push_back(world.crowd().position(id));
        sim->last_at_ = sim->start_at_;
        sim->walked_.assign(n, 0.0);
    }
    sim->danger_mean_start_ = settings.flee ? sim->danger_distance(false) : 0.0;
    return sim;
}

// Distance of the units from the nearest danger (cell centres): the mean, or the least.
double Simulation::danger_distance(bool least) const {
    const Crowd& crowd = world_->crowd();
    double sum = 0.0, low = std::numeric_limits<double>::infinity();
    for (const AgentId id : ids_) {
        const Vec2 p = crowd.position(id);
        double d = std::numeric_limits<double>::infinity();
        for (const Cell& g : settings_.targets) d = std::min(d, std::hypot(p.x - (g.x + 0.5), p.y - (g.y + 0.5)));
        sum += d;
        low = std::min(low, d);
    }
    return least ? low : sum / static_cast<double>(ids_.size());
}

OverlapSample measure_overlap(std::span<const Vec2> pos, float radius, float deep_radii) {
    OverlapSample s;
    const std::size_t n = pos.size();
    if (n < 2 || !(radius > 0.0f)) return s;
    float x0 = std::numeric_limits<float>::infinity(), y0 = x0;
    for (const Vec2& p : pos) {
        if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;  // counted as NaN elsewhere
        x0 = std::min(x0, p.x);
        y0 = std::min(y0, p.y);
    }
    if (!std::isfinite(x0)) return s;
    // Cells of 2r, so every touching pair is in neighbouring cells, folded onto a power-of-two torus
    // of about 2 buckets per disc: a dense pack has about one disc per bucket (cells sized to the
    // crowd's extent held a dozen each in a pack of 10 units a cell, nine buckets per look). Cells
    // folded together only add candidates that the distance test drops; with at least 4 buckets a
    // side, the 3 x 3 cells around a disc fall in 9 distinct buckets, so no pair is seen twice.
    const float cell = 2.0f * radius, inv = 1.0f / cell;
    std::uint32_t tw = 4, th = 4;
    while (static_cast<std::size_t>(tw) * th < 2 * n && tw < (1u << 15)) (tw <= th ? tw : th) *= 2;
    const std::uint32_t mx = tw - 1, my = th - 1;
    const int shift = std::countr_zero(tw);
    std::vector<std::uint32_t> start(static_cast<std::size_t>(tw) * th + 1, 0), order(n), cell_x(n), cell_y(n);
    std::vector<std::uint8_t> used(n, 0);
    auto bucket = [&](std::uint32_t cx, std::uint32_t cy) { return ((cy & my) << shift) | (cx & mx); };
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(pos[i].x) || !std::isfinite(pos[i].y)) continue;
        used[i] = 1;
        // Cell coordinates from the lowest corner, so they are not negative; far-off discs only
        // wrap round the torus (capped so that the conversion stays defined for absurd positions).
        cell_x[i] = static_cast<std::uint32_t>(std::min((pos[i].x - x0) * inv, 1e9f));
        cell_y[i] = static_cast<std::uint32_t>(std::min((pos[i].y - y0) * inv, 1e9f));
        ++start[bucket(cell_x[i], cell_y[i]) + 1];
    }
    for (std::size_t c = 0; c + 1 < start.size(); ++c) start[c + 1] += start[c];
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
        if (used[i]) order[fill[bucket(cell_x[i], cell_y[i])]++] = static_cast<std::uint32_t>(i);
    }
    const float touch = 2.0f * radius, deep_dist = (2.0f - deep_radii) * radius;
    float closest_sq = touch * touch;
    for (std::size_t i = 0; i < n; ++i) {
        if (!used[i]) continue;
        for (std::uint32_t dy = 0; dy < 3; ++dy) {
            for (std::uint32_t dx = 0; dx < 3; ++dx) {
                const std::uint32_t c = bucket(cell_x[i] + dx - 1, cell_y[i] + dy - 1);
                for (std::uint32_t k = start[c]; k < start[c + 1]; ++k) {
                    const std::uint32_t j = order[k];
                    if (j <= i) continue;  // each pair once
                    const float ox = pos[j].x - pos[i].x, oy = pos[j].y - pos[i].y;
                    const float d2 = ox * ox + oy * oy;
                    if (d2 >= touch * touch) continue;
                    if (d2 < closest_sq) {
                        closest_sq = d2;
                        s.at = {(pos[i].x + pos[j].x) * 0.5f, (pos[i].y + pos[j].y) * 0.5f};
                    }
                    if (d2 < deep_dist * deep_dist) ++s.deep;
                }
            }
        }
    }
    s.deepest = (touch - std::sqrt(closest_sq)) / radius;
    return s;
}

// This step's positions and states of ids_, in ids_ order: one bulk read in slot order (ids_ is
// that order, see create()). A run's world never removes units (no terrain edits); if one did,
// the step says so rather than report on the wrong units.
Result<void> Simulation::read_units() {
    const std::size_t n = ids_.size();
    pos_.resize(n);
    state_.resize(n);
    AgentBuffers out;
    out.positions = pos_;
    out.states = state_;
    const auto read = world_->crowd().read_agents(out);
    if (!read || *read != n) {
        return Error{"the run's world holds " + std::to_string(world_->crowd().size()) + " units, not the " +
                     std::to_string(n) + " it spawned"};
    }
    return {};
}

// Deepest pair overlap, in radii, and the pairs deeper than half a radius, at this step (pos_).
void Simulation::measure_overlap() {
    const OverlapSample o = tide::measure_overlap(pos_, radius_);
    if (o.deepest > max_overlap_) {
        max_overlap_ = o.deepest;
        max_overlap_at_ = o.at;
    }
    deep_pairs_ = std::max(deep_pairs_, o.deep);
}

Result<void> Simulation::step() {
    if (auto r = world_->tick(static_cast<float>(settings_.dt)); !r) return r;
    ++steps_done_;
    const double ms = world_->stats().step_ms;
    sum_ms_ += ms;
    max_ms_ = std::max(max_ms_, ms);
    const Crowd& crowd = world_->crowd();
    const CostField& cost = world_->cost();
    const float radius = radius_;
    if (auto r = read_units(); !r) return r;
    // The checks of every unit, on the job system (each unit's own entries; counts summed per chunk,
    // so the totals are the same for any split). The units are in slot order, scattered over the
    // map, so the wall test's reads of the terrain miss the cache: on one thread these checks took
    // about a fifth of a 100,000-unit run's CPU time (perf).
    const double now = crowd.time();
    const bool detail = settings_.detail;
    std::atomic<std::size_t> arrived_total{0}, penetrations{0};
    std::atomic<bool> nan{false};
    auto check = [&](std::size_t begin, std::size_t end) {
        std::size_t arrived = 0, hits = 0;
        bool bad = false;
        for (std::size_t k = begin; k < end; ++k) {
            const Vec2 p = pos_[k];
            bad |= !std::isfinite(p.x) || !std::isfinite(p.y);
            hits += penetrates_wall(cost, p, radius);
            if (detail) {
                walked_[k] +=
                    std::hypot(static_cast<double>(p.x) - last_at_[k].x, static_cast<double>(p.y) - last_at_[k].y);
                last_at_[k] = p;
            }
            if (state_[k] == AgentState::arrived) {
                ++arrived;
                if (arrival_[k] < 0) arrival_[k] = now;
            }
        }
        arrived_total += arrived;
        penetrations += hits;
        if (bad) nan = true;
    };
    parallel_for(*jobs_, ids_.size(), 4096, check);
    const std::size_t arrived = arrived_total.load();
    penetrations_ += penetrations.load();
    nan_ |= nan.load();
    if (arrived_50_s_ < 0 && 2 * arrived >= ids_.size()) arrived_50_s_ = crowd.time();
    if (arrived_90_s_ < 0 && 10 * arrived >= 9 * ids_.size()) arrived_90_s_ = crowd.time();
    sampled_ = steps_done_ % per_second_ == 0 || steps_done_ == step_count_;
    if (sampled_) arrived_by_second_.push_back(static_cast<double>(arrived) / static_cast<double>(ids_.size()));
    // Overlap ten times a simulated second (and at the end).
    if (sampled_ || steps_done_ % std::max(1, per_second_ / 10) == 0) measure_overlap();
    return {};
}

Result<void> Simulation::run() {
    while (steps_done_ < step_count_) {
        if (auto r = step(); !r) return r;
    }
    return {};
}

SimulationReport Simulation::report() const {
    const Crowd& crowd = world_->crowd();
    SimulationReport r;
    r.agents = ids_.size();
    r.seconds = crowd.time();
    r.dt = settings_.dt;
    r.threads = jobs_->max_concurrency();
    r.arrived_fraction = arrived_by_second_.empty() ? 0.0 : arrived_by_second_.back();
    r.arrived_by_second = arrived_by_second_;
    std::size_t n_arrived = 0;
    for (double t : arrival_) {
        if (t < 0) continue;
        r.mean_arrival_s += t;
        r.max_arrival_s = std::max(r.max_arrival_s, t);
        ++n_arrived;
    }
    r.mean_arrival_s = n_arrived ? r.mean_arrival_s / static_cast<double>(n_arrived) : 0.0;
    r.arrived_50_s = arrived_50_s_;
    r.arrived_90_s = arrived_90_s_;
    r.congestion_refreshes = world_->stats().congestion_refreshes;
    r.crowd = crowd.stats();
    r.wall_penetrations = penetrations_;
    r.nan = nan_;
    r.max_overlap = max_overlap_;
    r.max_overlap_at = max_overlap_at_;
    r.deep_overlap_pairs = deep_pairs_;
    r.mean_step_ms = steps_done_ > 0 ? sum_ms_ / static_cast<double>(steps_done_) : 0.0;
    r.max_step_ms = max_ms_;
    r.state_hash = crowd.state_hash();
    r.hierarchical = world_->hierarchical();
    r.graph_ms = world_->stats().graph_build_ms;
    r.sector_fields = world_->stats().sector_fields;
    r.sector_field_bytes = world_->stats().sector_field_bytes;
    r.wall_margin = world_->wall_margin();
    if (settings_.flee) {
        r.danger_distance_mean_start = danger_mean_start_;
        r.danger_distance_mean_end = danger_distance(false);
        r.danger_distance_min_end = danger_distance(true);
    }
    r.units.reserve(ids_.size());
    for (std::size_t k = 0; k < ids_.size(); ++k) {
        SimulationUnit u;
        if (settings_.detail) {
            u.start = start_at_[k];
            u.path_length = walked_[k];
        }
        u.end = crowd.position(ids_[k]);
        u.arrival_s = arrival_[k];
        u.state = crowd.state(ids_[k]);
        u.stuck = u.state == AgentState::moving && crowd.stuck(ids_[k]);
        r.units.push_back(u);
    }
    return r;
}

}  // namespace tide
