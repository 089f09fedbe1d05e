// A scripted crowd run on a World; see simulation.hpp.

#include "tide/simulation.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numbers>

#include "tide/assert.hpp"
#include "tide/limits.hpp"
#include "tide/scenarios.hpp"

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

namespace {
WorldConfig run_config(const SimulationSettings& settings) {
    WorldConfig c = settings.world;
    c.lockstep = c.lockstep || settings.record;
    return c;
}
}  // namespace

Simulation::Simulation(JobSystem& jobs, const SimulationSettings& settings)
    : settings_(settings), jobs_(&jobs), world_(std::make_unique<World>(jobs, run_config(settings))) {
    if (settings.record) {
        const bool recording = world_->start_recording(*settings.record).ok();  // lockstep, no map yet
        TIDE_ASSERT(recording);
    }
}

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
    sim->start();
    sim->danger_mean_start_ = settings.flee ? sim->danger_distance(false) : 0.0;
    return sim;
}

Result<std::unique_ptr<Simulation>> Simulation::create(JobSystem& jobs, const Scenario& scenario,
                                                       const SimulationSettings& settings) {
    SimulationSettings s = settings;
    if (s.seconds == 0.0) s.seconds = scenario.seconds;
    s.targets = scenario.goals;
    s.flee = false;
    s.agents = std::max(1, scenario.units);
    s.unit_size = 1;
    s.spawn.reset();
    if (auto r = check_settings(s); !r) return r.error();
    std::unique_ptr<Simulation> sim(new Simulation(jobs, s));
    if (auto r = load_scenario(*sim->world_, scenario, &sim->refused_); !r) return r.error();
    sim->world_->finish_builds();
    sim->scenario_ = scenario;
    while (sim->next_command_ < scenario.script.size() && scenario.script[sim->next_command_].at_s <= 0.0) {
        ++sim->next_command_;  // applied by load_scenario
    }
    sim->start();
    return sim;
}

// The run's units are the world's now; every per-unit record starts here.
void Simulation::start() {
    const World& world = *world_;
    ids_ = world.agents();
    std::sort(ids_.begin(), ids_.end(), [](AgentId a, AgentId b) { return a.index < b.index; });
    radius_ = ids_.empty() ? settings_.world.crowd.radius : world.crowd().agent_params(ids_[0]).radius;
    const std::size_t n = ids_.size();
    std::uint32_t slots = 0;
    for (const AgentId id : ids_) slots = std::max(slots, id.index + 1);
    slot_k_.assign(slots, -1);
    for (std::size_t k = 0; k < n; ++k) slot_k_[ids_[k].index] = static_cast<std::int32_t>(k);
    last_group_.assign(n, 0);
    exited_.assign(n, 0);
    for (std::size_t k = 0; k < n; ++k) last_group_[k] = world.group_of(ids_[k]);
    step_count_ = static_cast<std::int64_t>(std::ceil(settings_.seconds / settings_.dt));
    per_second_ = std::max(1, static_cast<int>(std::lround(1.0 / settings_.dt)));
    arrival_.assign(n, -1.0);
    if (settings_.detail) {
        for (const AgentId id : ids_) start_at_.push_back(world.crowd().position(id));
        last_at_ = start_at_;
        walked_.assign(n, 0.0);
    }
}

// Distance of the units from the nearest danger (cell centres): the mean, or the least.
double Simulation::danger_distance(bool least) const {
    const Crowd& crowd = world_->crowd();
    double sum = 0.0, low = std::numeric_limits<double>::infinity();
    for (const AgentId id : ids_) {
        if (!crowd.valid(id)) continue;
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

// This step's live units, positions and states, in slot order: one bulk read. Units may leave
// (exits, removals); every unit still in the world must be one of the run's.
Result<void> Simulation::read_units() {
    const std::size_t n = world_->crowd().size();
    live_.resize(n);
    pos_.resize(n);
    state_.resize(n);
    AgentBuffers out;
    out.ids = live_;
    out.positions = pos_;
    out.states = state_;
    if (auto read = world_->crowd().read_agents(out); !read) return read.error();
    for (std::size_t j = 0; j < n; ++j) {
        const AgentId id = live_[j];
        if (id.index >= slot_k_.size() || slot_k_[id.index] < 0 || ids_[slot_k_[id.index]] != id) adopt(id, pos_[j]);
    }
    return {};
}

// A unit the world added during the run (a spawner's, or a scripted Spawn): it joins the run's
// units from here on (its slot may be one a unit gone before it held).
std::size_t Simulation::adopt(AgentId id, Vec2 at) {
    const std::size_t k = ids_.size();
    ids_.push_back(id);
    if (slot_k_.size() <= id.index) slot_k_.resize(id.index + 1, -1);
    slot_k_[id.index] = static_cast<std::int32_t>(k);
    last_group_.push_back(world_->group_of(id));
    exited_.push_back(0);
    arrival_.push_back(-1.0);
    if (settings_.detail) {
        start_at_.push_back(at);
        last_at_.push_back(at);
        walked_.push_back(0.0);
    }
    return k;
}

// The run's index of a unit reported by the world (adopted when it is new: a unit added and gone
// within one tick).
std::size_t Simulation::index_of(AgentId id) {
    if (id.index < slot_k_.size() && slot_k_[id.index] >= 0 &&
        ids_[static_cast<std::size_t>(slot_k_[id.index])] == id) {
        return static_cast<std::size_t>(slot_k_[id.index]);
    }
    return adopt(id, Vec2{});
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
    if (scenario_) {  // the script's commands due by now
        const double now = world_->crowd().time();
        while (next_command_ < scenario_->script.size() && scenario_->script[next_command_].at_s <= now + 1e-9) {
            const TimedCommand& c = scenario_->script[next_command_];
            if (auto r = world_->apply(c.command); !r) {
                if (!c.may_refuse) return r.error();
                ++refused_;
            }
            ++next_command_;
        }
    }
    if (auto r = world_->tick(static_cast<float>(settings_.dt)); !r) return r;
    ++steps_done_;
    const double ms = world_->stats().step_ms;
    sum_ms_ += ms;
    second_ms_ += ms;
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
        for (std::size_t j = begin; j < end; ++j) {
            const std::size_t k = static_cast<std::size_t>(slot_k_[live_[j].index]);
            const Vec2 p = pos_[j];
            bad |= !std::isfinite(p.x) || !std::isfinite(p.y);
            hits += penetrates_wall(cost, p, radius);
            if (detail) {
                walked_[k] +=
                    std::hypot(static_cast<double>(p.x) - last_at_[k].x, static_cast<double>(p.y) - last_at_[k].y);
                last_at_[k] = p;
            }
            if (state_[j] == AgentState::arrived) {
                ++arrived;
                if (arrival_[k] < 0) arrival_[k] = now;
            }
        }
        arrived_total += arrived;
        penetrations += hits;
        if (bad) nan = true;
    };
    parallel_for(*jobs_, live_.size(), 4096, check);
    // Units gone through an exit count as arrived from now on (their first arrival: when they left).
    for (const AgentId id : world_->exited()) {
        const std::size_t k = index_of(id);
        exited_[k] = 1;
        exit_times_.push_back(now);
        if (arrival_[k] < 0) arrival_[k] = now;
    }
    const std::size_t gone = exit_times_.size();
    if (empty_s_ < 0 && gone > 0 && live_.empty()) empty_s_ = now;
    const std::size_t arrived = arrived_total.load() + gone;
    penetrations_ += penetrations.load();
    nan_ |= nan.load();
    const std::size_t units = ids_.size();  // spawned so far
    if (units > 0) {
        if (arrived_50_s_ < 0 && 2 * arrived >= units) arrived_50_s_ = crowd.time();
        if (arrived_90_s_ < 0 && 10 * arrived >= 9 * units) arrived_90_s_ = crowd.time();
        if (done_95_s_ < 0 && 20 * arrived >= 19 * units) done_95_s_ = crowd.time();
    }
    for (std::size_t j = 0; j < live_.size(); ++j) {
        last_group_[static_cast<std::size_t>(slot_k_[live_[j].index])] = world_->group_of(live_[j]);
    }
    sample_groups();
    sampled_ = steps_done_ % per_second_ == 0 || steps_done_ == step_count_;
    if (sampled_) count_stuck_blocked();
    if (sampled_) {
        arrived_by_second_.push_back(units > 0 ? static_cast<double>(arrived) / static_cast<double>(units) : 0.0);
        const int in_second = steps_done_ % per_second_ == 0 ? per_second_ : steps_done_ % per_second_;
        step_ms_by_second_.push_back(second_ms_ / static_cast<double>(in_second));
        second_ms_ = 0.0;
    }
    // Overlap ten times a simulated second (and at the end).
    if (sampled_ || steps_done_ % std::max(1, per_second_ / 10) == 0) measure_overlap();
    return {};
}

// Units flagged stuck with another unit right ahead: nearer than kRightAhead x (ri + rj), all but
// touching, and within 60 degrees of their desired velocity. Such a unit waits behind others and
// should read queued or moving, not stuck. (The crowd clears the readout for anyone within its
// interaction range, separation_range x (ri + rj), 1.5 by default, ahead of its heading at the
// start of the sub-step: the margin covers the sub-step's moves and a heading that is not yet the
// desired velocity.) One-cell buckets, looked up only round the (few) stuck units.
void Simulation::count_stuck_blocked() {
    const Crowd& crowd = world_->crowd();
    std::vector<std::size_t> stuck;
    for (std::size_t j = 0; j < live_.size(); ++j) {
        if (crowd.stuck(live_[j])) stuck.push_back(j);
    }
    if (stuck.empty()) return;
    const CostField& cost = world_->cost();
    const int W = cost.width(), H = cost.height();
    auto cell_of = [&](Vec2 p) {
        const int x = std::clamp(static_cast<int>(std::floor(p.x)), 0, W - 1);
        const int y = std::clamp(static_cast<int>(std::floor(p.y)), 0, H - 1);
        return static_cast<std::int64_t>(y) * W + x;
    };
    constexpr float kRightAhead = 1.2f;
    std::vector<std::pair<std::int64_t, std::uint32_t>> by_cell(live_.size());
    std::vector<float> radius(live_.size());
    float max_radius = 0.0f;
    for (std::size_t j = 0; j < live_.size(); ++j) {
        by_cell[j] = {cell_of(pos_[j]), static_cast<std::uint32_t>(j)};
        radius[j] = crowd.agent_params(live_[j]).radius;
        max_radius = std::max(max_radius, radius[j]);
    }
    std::sort(by_cell.begin(), by_cell.end());
    std::size_t blocked = 0;
    for (const std::size_t j : stuck) {
        const Vec2 p = pos_[j], want = crowd.desired_velocity(live_[j]);
        const float wl = std::hypot(want.x, want.y);
        if (wl < 1e-6f) continue;
        bool ahead = false;
        const float rj = radius[j];
        const int ring = 1 + static_cast<int>(kRightAhead * (rj + max_radius));
        const int cx = static_cast<int>(cell_of(p) % W), cy = static_cast<int>(cell_of(p) / W);
        for (int y = std::max(0, cy - ring); y <= std::min(H - 1, cy + ring) && !ahead; ++y) {
            for (int x = std::max(0, cx - ring); x <= std::min(W - 1, cx + ring) && !ahead; ++x) {
                const std::int64_t c = static_cast<std::int64_t>(y) * W + x;
                auto it = std::lower_bound(by_cell.begin(), by_cell.end(), std::pair{c, std::uint32_t{0}});
                for (; it != by_cell.end() && it->first == c && !ahead; ++it) {
                    if (it->second == j) continue;
                    const Vec2 q = pos_[it->second];
                    const float dx = q.x - p.x, dy = q.y - p.y, d = std::hypot(dx, dy);
                    const float reach = kRightAhead * (rj + radius[it->second]);
                    ahead = d < reach && (dx * want.x + dy * want.y) > 0.5f * d * wl;
                }
            }
        }
        blocked += ahead;
    }
    stuck_blocked_ = std::max(stuck_blocked_, blocked);
}

// Cost to go of a unit of `size` at p on its group's field (kUnreachable without one).
float Simulation::cost_to_go(UnitGroupId group, Vec2 p, int size) const {
    const CostField& cost = world_->cost();
    const float lift = 0.5f * static_cast<float>(size - 1);
    const int x = std::clamp(static_cast<int>(std::floor(p.x - lift)), 0, cost.width() - 1);
    const int y = std::clamp(static_cast<int>(std::floor(p.y - lift)), 0, cost.height() - 1);
    if (const auto field = world_->field(group))
        return field->to_stop()[static_cast<std::size_t>(y) * cost.width() + x];
    if (const auto plan = world_->plan(group)) return plan->to_go(x, y);
    return kUnreachable;
}

// The groups' figures, ten times a simulated second: when half, 90%, 95% and all of a group's
// units had arrived or left, and (once a second) how long it has gone without progress, arrived
// units beyond their region, and arrived units in the scenario's passage while others still come.
void Simulation::sample_groups() {
    if (steps_done_ % std::max(1, per_second_ / 10) != 0 && steps_done_ != step_count_) return;
    const World& world = *world_;
    const double now = world.crowd().time();
    UnitGroupId top = 0;
    for (const UnitGroupId g : last_group_) top = std::max(top, g);
    if (tracks_.size() <= top) tracks_.resize(top + 1);
    std::vector<std::size_t> units(top + 1, 0), done(top + 1, 0), waiting(top + 1, 0);
    std::vector<double> to_go(top + 1, 0.0);
    for (std::size_t k = 0; k < ids_.size(); ++k) {
        ++units[last_group_[k]];
        done[last_group_[k]] += exited_[k];
    }
    const bool second = steps_done_ % per_second_ == 0 || steps_done_ == step_count_;
    std::size_t leaks = 0, in_passage = 0;
    bool approaching = false;
    const auto in_rect = [](const CellRect* r, Vec2 p) {
        return r != nullptr && p.x >= static_cast<float>(r->x0) && p.x < static_cast<float>(r->x1 + 1) &&
               p.y >= static_cast<float>(r->y0) && p.y < static_cast<float>(r->y1 + 1);
    };
    const CellRect* passage = scenario_ && scenario_->passage ? &*scenario_->passage : nullptr;
    const CellRect* approach = scenario_ && scenario_->approach ? &*scenario_->approach : nullptr;
    for (std::size_t j = 0; j < live_.size(); ++j) {
        const auto k = static_cast<std::size_t>(slot_k_[live_[j].index]);
        const UnitGroupId g = last_group_[k];
        const bool arrived = state_[j] == AgentState::arrived;
        done[g] += arrived;
        if (!second) continue;
        if (arrived) {
            in_passage += in_rect(passage, pos_[j]);
        } else {
            approaching |= in_rect(approach, pos_[j]);
        }
        if (arrived || state_[j] == AgentState::no_path) {
            const ArrivalRegion region = arrived ? world.arrival_region(g) : ArrivalRegion{};
            if (region.active && cost_to_go(g, pos_[j], world.unit_size(live_[j])) > region.radius + 1.0f) ++leaks;
            continue;
        }
        const float t = cost_to_go(g, pos_[j], world.unit_size(live_[j]));
        if (t < kUnreachable) to_go[g] += t;
        ++waiting[g];
    }
    for (UnitGroupId g = 1; g <= top; ++g) {
        if (units[g] == 0) continue;
        GroupTrack& t = tracks_[g];
        const auto reached = [&](double share, double& at) {
            if (at < 0 && static_cast<double>(done[g]) >= share * static_cast<double>(units[g]) - 1e-9) at = now;
        };
        reached(0.5, t.done_50);
        reached(0.9, t.done_90);
        reached(0.95, t.done_95);
        reached(1.0, t.done_100);
        if (!second) continue;
        // (Units joining the group, a spawner's, start a new reference: their cost to go is new.)
        if (t.ref_to_go < 0 || done[g] > t.ref_done || to_go[g] < t.ref_to_go - 1.0 || waiting[g] == 0 ||
            units[g] != t.ref_units) {
            t.last_progress = now;
            t.ref_to_go = to_go[g];
            t.ref_done = done[g];
            t.ref_units = units[g];
        }
        t.longest_stall = std::max(t.longest_stall, now - t.last_progress);
    }
    if (second) {
        leaks_ = std::max(leaks_, leaks);
        if (approaching) passage_arrived_ = std::max(passage_arrived_, in_passage);
    }
    sample_formations(second);
}

// Formations, ten times a simulated second (with the groups): when each formed (error under 0.3),
// its error once a second while it marches, the anchor through the scenario's passage and the
// error back under 0.3 after it, and its arrival in shape (anchor at the goal, 95% of its units
// within 0.5 cells of their slots).
void Simulation::sample_formations(bool second) {
    const double now = world_->crowd().time();
    const CellRect* passage = scenario_ && scenario_->passage ? &*scenario_->passage : nullptr;
    for (const UnitGroup& view : world_->groups()) {
        const FormationState f = world_->formation(view.id);
        if (!f.active) continue;
        if (tracks_.size() <= view.id) tracks_.resize(view.id + 1);
        GroupTrack& t = tracks_[view.id];
        if (t.formed < 0 && f.error < 0.3f && !f.slots.empty()) t.formed = now;
        if (second && t.formed >= 0 && !f.arrived) {
            t.error_sum += f.error;
            t.error_max = std::max(t.error_max, static_cast<double>(f.error));
            ++t.error_samples;
        }
        if (passage) {
            const bool in =
                f.anchor.x >= static_cast<float>(passage->x0) && f.anchor.x < static_cast<float>(passage->x1 + 1) &&
                f.anchor.y >= static_cast<float>(passage->y0) && f.anchor.y < static_cast<float>(passage->y1 + 1);
            if (t.in_passage && !in) t.left_passage = now;
            t.in_passage = in;
            if (t.left_passage >= 0 && t.regroup < 0 && f.error < 0.3f) t.regroup = now - t.left_passage;
        }
        if (f.arrived && t.arrived < 0 && in_slot_share(view.id, f) >= 0.95) t.arrived = now;
    }
}

// The share of a formation group's units within 0.5 cells of their slots (0 without units).
double Simulation::in_slot_share(UnitGroupId group, const FormationState& f) const {
    std::size_t n = 0, in = 0;
    for (std::size_t j = 0; j < live_.size(); ++j) {
        if (world_->group_of(live_[j]) != group) continue;
        ++n;
        const int slot = world_->crowd().formation_slot(live_[j]);
        if (slot < 0 || static_cast<std::size_t>(slot) >= f.slots.size()) continue;
        const Vec2 sl = f.slots[static_cast<std::size_t>(slot)];
        in += (pos_[j].x - sl.x) * (pos_[j].x - sl.x) + (pos_[j].y - sl.y) * (pos_[j].y - sl.y) <= 0.25f;
    }
    return n > 0 ? static_cast<double>(in) / static_cast<double>(n) : 0.0;
}

Result<void> Simulation::run() {
    while (steps_done_ < step_count_) {
        if (auto r = step(); !r) return r;
    }
    return {};
}

// Per group, the units whose last group it was: counts, times, stalls, region, formation.
std::vector<SimulationGroup> Simulation::group_figures() const {
    const Crowd& crowd = world_->crowd();
    std::vector<SimulationGroup> groups;
    for (std::size_t k = 0; k < ids_.size(); ++k) {
        const UnitGroupId g = last_group_[k];
        auto it = std::find_if(groups.begin(), groups.end(), [g](const SimulationGroup& x) { return x.id == g; });
        if (it == groups.end()) {
            SimulationGroup x;
            x.id = g;
            if (const UnitGroup* view = world_->group(g)) {
                x.goals = view->goals;
                x.flee = view->flee;
                x.exit = view->exit;
            }
            if (g < tracks_.size()) {
                const GroupTrack& t = tracks_[g];
                x.done_50_s = t.done_50, x.done_90_s = t.done_90, x.done_95_s = t.done_95, x.done_100_s = t.done_100;
                x.longest_stall_s = t.longest_stall;
            }
            const ArrivalRegion region = world_->arrival_region(g);
            x.region_radius = region.active ? region.radius : 0.0;
            if (const FormationState f = world_->formation(g); f.active) {
                x.formation = true;
                x.formation_error = f.error;
                x.formation_in_slot = in_slot_share(g, f);
                x.formation_turns = f.turned / (0.5 * std::numbers::pi);
                x.formation_reassignments = f.reassignments;
                x.formation_units_reassigned = f.units_reassigned;
                if (g < tracks_.size()) {
                    const GroupTrack& t = tracks_[g];
                    x.formation_formed_s = t.formed;
                    x.formation_arrived_s = t.arrived;
                    x.formation_regroup_s = t.regroup;
                    if (t.error_samples > 0) {
                        x.formation_marching_error = t.error_sum / static_cast<double>(t.error_samples);
                        x.formation_marching_max = t.error_max;
                    }
                }
            }
            groups.push_back(std::move(x));
            it = groups.end() - 1;
        }
        ++it->units;
        if (exited_[k]) {
            ++it->exited;
            it->exit = true;
        } else if (crowd.valid(ids_[k])) {
            const AgentState st = crowd.state(ids_[k]);
            it->arrived += st == AgentState::arrived;
            it->queued += st == AgentState::queued;
            it->stuck += st == AgentState::moving && crowd.stuck(ids_[k]);
        }
    }
    std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return groups;
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
    r.step_ms_by_second = step_ms_by_second_;
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
        if (!crowd.valid(ids_[k])) continue;  // gone through an exit
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
    r.groups = group_figures();

    r.done_95_s = done_95_s_;
    r.exited = exit_times_.size();
    r.empty_s = empty_s_;
    if (exit_times_.size() >= 8) {
        const std::size_t a = exit_times_.size() / 4, b = 3 * exit_times_.size() / 4;
        const double span = exit_times_[b] - exit_times_[a];
        r.exit_rate = span > 0.0 ? static_cast<double>(b - a) / span : 0.0;
    }
    r.region_leaks = leaks_;
    r.passage_arrived = passage_arrived_;
    r.stuck_blocked = stuck_blocked_;
    if (scenario_) r.scenario = scenario_->name;
    r.refused = refused_;
    r.spawners = world_->spawners();
    r.world_hash = world_->state_hash();
    return r;
}

}  // namespace tide
