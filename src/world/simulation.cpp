// A scripted crowd run on a World; see simulation.hpp.

#include "tide/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "tide/limits.hpp"

namespace tide {
namespace {

std::string number_text(double value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    return buf;
}

// A unit-step counts as a wall penetration when the centre is in a wall cell or the disc overlaps a
// wall cell by more than 5% of the radius.
bool penetrates(const CostField& cost, Vec2 p, float r) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return true;
    if (!cost.passable(static_cast<int>(p.x), static_cast<int>(p.y))) return true;
    for (int y = static_cast<int>(p.y) - 1; y <= static_cast<int>(p.y) + 1; ++y) {
        for (int x = static_cast<int>(p.x) - 1; x <= static_cast<int>(p.x) + 1; ++x) {
            if (cost.passable(x, y)) continue;
            const float qx = std::clamp(p.x, float(x), float(x + 1)), qy = std::clamp(p.y, float(y), float(y + 1));
            if (std::hypot(p.x - qx, p.y - qy) < r * 0.95f) return true;
        }
    }
    return false;
}

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
    float x0 = pos[0].x, x1 = x0, y0 = pos[0].y, y1 = y0;
    for (const Vec2& p : pos) {
        x0 = std::min(x0, p.x);
        x1 = std::max(x1, p.x);
        y0 = std::min(y0, p.y);
        y1 = std::max(y1, p.y);
    }
    // Cells of 2r (every touching pair is in neighbouring cells), at most about 4 per disc.
    float cell = 2.0f * radius;
    const double area = static_cast<double>(x1 - x0 + cell) * (y1 - y0 + cell);
    const double most = 4.0 * static_cast<double>(n) + 16.0;
    if (area / (static_cast<double>(cell) * cell) > most) cell = static_cast<float>(std::sqrt(area / most));
    const int w = static_cast<int>((x1 - x0) / cell) + 1, h = static_cast<int>((y1 - y0) / cell) + 1;
    std::vector<std::uint32_t> start(static_cast<std::size_t>(w) * h + 1, 0), order(n), cell_of(n);
    for (std::size_t i = 0; i < n; ++i) {
        const int cx = std::min(w - 1, static_cast<int>((pos[i].x - x0) / cell));
        const int cy = std::min(h - 1, static_cast<int>((pos[i].y - y0) / cell));
        cell_of[i] = static_cast<std::uint32_t>(cy * w + cx);
        ++start[cell_of[i] + 1];
    }
    for (std::size_t c = 0; c + 1 < start.size(); ++c) start[c + 1] += start[c];
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < n; ++i) order[fill[cell_of[i]]++] = static_cast<std::uint32_t>(i);
    const float touch = 2.0f * radius, deep_dist = (2.0f - deep_radii) * radius;
    float closest_sq = touch * touch;
    for (std::size_t i = 0; i < n; ++i) {
        const int cx = static_cast<int>(cell_of[i] % static_cast<std::uint32_t>(w));
        const int cy = static_cast<int>(cell_of[i] / static_cast<std::uint32_t>(w));
        for (int y = std::max(0, cy - 1); y <= std::min(h - 1, cy + 1); ++y) {
            for (int x = std::max(0, cx - 1); x <= std::min(w - 1, cx + 1); ++x) {
                const std::size_t c = static_cast<std::size_t>(y) * w + x;
                for (std::uint32_t k = start[c]; k < start[c + 1]; ++k) {
                    const std::uint32_t j = order[k];
                    if (j <= i) continue;  // each pair once
                    const float dx = pos[j].x - pos[i].x, dy = pos[j].y - pos[i].y;
                    const float d2 = dx * dx + dy * dy;
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

// Deepest pair overlap, in radii, and the pairs deeper than half a radius, at this step.
void Simulation::measure_overlap() {
    const Crowd& crowd = world_->crowd();
    overlap_pos_.resize(ids_.size());
    for (std::size_t k = 0; k < ids_.size(); ++k) overlap_pos_[k] = crowd.position(ids_[k]);
    const OverlapSample o = tide::measure_overlap(overlap_pos_, radius_);
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
    std::size_t arrived = 0;
    for (std::size_t k = 0; k < ids_.size(); ++k) {
        const Vec2 p = crowd.position(ids_[k]);
        nan_ |= !std::isfinite(p.x) || !std::isfinite(p.y);
        penetrations_ += penetrates(cost, p, radius);
        if (settings_.detail) {
            walked_[k] +=
                std::hypot(static_cast<double>(p.x) - last_at_[k].x, static_cast<double>(p.y) - last_at_[k].y);
            last_at_[k] = p;
        }
        if (crowd.state(ids_[k]) == AgentState::arrived) {
            ++arrived;
            if (arrival_[k] < 0) arrival_[k] = crowd.time();
        }
    }
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
