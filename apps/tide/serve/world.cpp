// World of `tide serve`; see world.hpp.

#include "world.hpp"

#include <algorithm>
#include <cmath>

#include "../map_gen.hpp"

namespace tide::serve {

// ---------------------------------------------------------------------------------------------
// FieldWorker

FieldWorker::FieldWorker() : thread_([this] { run(); }) {}

FieldWorker::~FieldWorker() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void FieldWorker::request(std::shared_ptr<const CostField> cost, std::vector<Cell> goals, std::uint64_t version) {
    {
        std::lock_guard lock(mutex_);
        pending_ = Request{std::move(cost), std::move(goals), version};
    }
    cv_.notify_all();
}

std::optional<BuiltField> FieldWorker::take() {
    std::lock_guard lock(mutex_);
    std::optional<BuiltField> out;
    out.swap(done_);
    return out;
}

void FieldWorker::wait_idle() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return !pending_ && !busy_; });
}

void FieldWorker::run() {
    FieldBuilder builder;  // reuses its buffers from build to build
    std::unique_lock lock(mutex_);
    for (;;) {
        cv_.wait(lock, [&] { return stop_ || pending_.has_value(); });
        if (stop_) return;
        Request req = std::move(*pending_);
        pending_.reset();
        busy_ = true;
        lock.unlock();
        const auto t0 = std::chrono::steady_clock::now();
        auto field = std::make_shared<FlowField>();
        const bool ok = builder.build(*req.cost, req.goals, FieldParams{}, *field).ok();
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        lock.lock();
        busy_ = false;
        // Goals are checked before a request is made, so a failed build is a bug; keep the old field.
        if (ok && (!done_ || done_->version < req.version)) done_ = BuiltField{std::move(field), req.version, ms};
        cv_.notify_all();
    }
}

// ---------------------------------------------------------------------------------------------
// World

World::World(JobSystem& jobs, std::uint64_t seed) : jobs_(&jobs), rng_state_(seed) {}

Result<void> World::check_goals(std::vector<Cell>& goals) const {
    if (goals.empty()) return Error{"at least one goal is needed"};
    if (goals.size() > static_cast<std::size_t>(kMaxGoals)) {
        return Error{std::to_string(goals.size()) + " goals: at most " + std::to_string(kMaxGoals)};
    }
    std::vector<Cell> unique;
    for (const Cell& g : goals) {
        if (!cost_->contains(g)) {
            return Error{"goal (" + std::to_string(g.x) + ", " + std::to_string(g.y) + ") is outside the " +
                         std::to_string(cost_->width()) + "x" + std::to_string(cost_->height()) + " map"};
        }
        if (!cost_->passable(g.x, g.y)) {
            return Error{"goal (" + std::to_string(g.x) + ", " + std::to_string(g.y) + ") is on a wall"};
        }
        if (std::find(unique.begin(), unique.end(), g) == unique.end()) unique.push_back(g);
    }
    goals = std::move(unique);
    return {};
}

CrowdParams World::crowd_params() const {
    CrowdParams p;
    p.radius = params_.radius;
    p.max_speed = params_.speed;
    p.separation = params_.separation;
    return p;
}

void World::rebuild_crowd(const std::vector<Vec2>& positions) {
    crowd_ = std::make_unique<Crowd>(*cost_, crowd_params());
    (void)crowd_->add_group(field_);
    agents_.clear();
    agents_.reserve(positions.size());
    for (const Vec2& p : positions) {
        auto id = crowd_->add_agent(p, 0);
        if (id) agents_.push_back(*id);
    }
    stats_.crowd = {};
    stats_.crowd.agents = agents_.size();
}

Result<void> World::load(std::string name, CostField cost, std::vector<Cell> goals, int agents) {
    if (agents < 0 || agents > kMaxAgents) {
        return Error{"agent count " + std::to_string(agents) + " is outside 0.." + std::to_string(kMaxAgents)};
    }
    auto next = std::make_unique<CostField>(std::move(cost));
    std::swap(cost_, next);  // check_goals reads cost_
    if (auto r = check_goals(goals); !r) {
        std::swap(cost_, next);
        return r;
    }
    worker_.wait_idle();
    (void)worker_.take();  // a build for the old map is useless now
    const auto t0 = std::chrono::steady_clock::now();
    auto field = build_flow_field(*cost_, goals);
    if (!field) {
        std::swap(cost_, next);
        return field.error();
    }
    stats_.field_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    name_ = std::move(name);
    goals_ = std::move(goals);
    field_ = std::make_shared<const FlowField>(std::move(*field));
    ++terrain_version_;
    stats_.field_version = ++requested_version_;
    build_pending_ = false;
    crowd_.reset();  // pointed at the old cost field
    rebuild_crowd({});
    return spawn(agents);
}

Result<void> World::set_goals(std::vector<Cell> goals) {
    if (auto r = check_goals(goals); !r) return r;
    if (goals == goals_) return {};
    goals_ = std::move(goals);
    request_build();
    return {};
}

void World::request_build() {
    build_pending_ = true;  // sent by the next poll_build(): the edits of one tick share a copy
}

bool World::poll_build() {
    if (build_pending_) {
        build_pending_ = false;
        worker_.request(std::make_shared<const CostField>(*cost_), goals_, ++requested_version_);
    }
    auto built = worker_.take();
    if (!built || built->version <= stats_.field_version) return false;
    field_ = std::move(built->field);
    stats_.field_ms = built->build_ms;
    stats_.field_version = built->version;
    (void)crowd_->set_group_field(0, field_);  // takes effect at the next step: everyone turns at once
    return true;
}

void World::finish_builds() {
    poll_build();  // sends a pending request
    worker_.wait_idle();
    poll_build();
}

std::optional<Cell> nearest_passable(const CostField& cost, Cell from) {
    // Rings of growing Chebyshev radius r: every cell of ring r is at least r away, so once the
    // best squared distance is below r * r no further ring can beat it. Ties: the first cell in
    // row-major order.
    std::optional<Cell> best;
    long best_d = 0;
    const int limit = std::max(cost.width(), cost.height()) + std::max(std::abs(from.x), std::abs(from.y));
    for (int r = 0; r <= limit && (!best || static_cast<long>(r) * r <= best_d); ++r) {
        for (int y = from.y - r; y <= from.y + r; ++y) {
            const int step = (y == from.y - r || y == from.y + r) ? 1 : 2 * r;  // ring cells only
            for (int x = from.x - r; x <= from.x + r; x += std::max(1, step)) {
                if (!cost.passable(x, y)) continue;
                const long d =
                    static_cast<long>(x - from.x) * (x - from.x) + static_cast<long>(y - from.y) * (y - from.y);
                if (!best || d < best_d || (d == best_d && (y < best->y || (y == best->y && x < best->x)))) {
                    best = Cell{x, y};
                    best_d = d;
                }
            }
        }
    }
    return best;
}

Result<void> World::paint(int x, int y, int radius, Cost cost) {
    if (!cost_->contains(x, y)) {
        return Error{"paint at (" + std::to_string(x) + ", " + std::to_string(y) + ") is outside the " +
                     std::to_string(cost_->width()) + "x" + std::to_string(cost_->height()) + " map"};
    }
    if (radius < 0 || radius > kMaxBrush) {
        return Error{"brush radius " + std::to_string(radius) + " is outside 0.." + std::to_string(kMaxBrush)};
    }
    if (cost == 0) return Error{"terrain cost 0 is not a cost"};
    bool changed = false;
    for (int py = y - radius; py <= y + radius; ++py) {
        for (int px = x - radius; px <= x + radius; ++px) {
            if (!cost_->contains(px, py)) continue;
            if ((px - x) * (px - x) + (py - y) * (py - y) > radius * radius + radius) continue;  // round brush
            if (cost == kCostWall && std::find(goals_.begin(), goals_.end(), Cell{px, py}) != goals_.end()) continue;
            if (cost_->at(px, py) == cost) continue;
            cost_->set(px, py, cost);
            changed = true;
        }
    }
    if (!changed) return {};
    ++terrain_version_;
    if (cost == kCostWall) {
        // Units whose centre is now inside a wall move to the nearest free cell (or are removed
        // when the map has none left).
        std::vector<AgentId> keep;
        keep.reserve(agents_.size());
        for (const AgentId id : agents_) {
            const Vec2 p = crowd_->position(id);
            if (cost_->passable(static_cast<int>(p.x), static_cast<int>(p.y))) {
                keep.push_back(id);
                continue;
            }
            const auto q = nearest_passable(*cost_, {static_cast<int>(p.x), static_cast<int>(p.y)});
            if (q && crowd_->set_position(id, {static_cast<float>(q->x) + 0.5f, static_cast<float>(q->y) + 0.5f})) {
                keep.push_back(id);
            } else {
                (void)crowd_->remove_agent(id);
            }
        }
        agents_ = std::move(keep);
    }
    request_build();
    return {};
}

Result<void> World::spawn(int count) {
    if (count < 0 || count > kMaxAgents) {
        return Error{"unit count " + std::to_string(count) + " is outside 0.." + std::to_string(kMaxAgents)};
    }
    std::vector<std::uint32_t> free_cells;
    const auto cells = cost_->cells();
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i] != kCostWall) free_cells.push_back(static_cast<std::uint32_t>(i));
    }
    std::vector<Vec2> positions;
    if (!free_cells.empty()) {
        cli::SplitMix64 rng{rng_state_};
        positions.reserve(static_cast<std::size_t>(count));
        const int w = cost_->width();
        for (int k = 0; k < count; ++k) {
            const std::uint32_t c = free_cells[static_cast<std::size_t>(rng.uniform() * free_cells.size())];
            // Keep the centre at least a radius inside the cell, so a new unit never starts in a wall's reach.
            const float m = std::min(0.45f, params_.radius);
            const float fx = m + static_cast<float>(rng.uniform()) * (1.0f - 2.0f * m);
            const float fy = m + static_cast<float>(rng.uniform()) * (1.0f - 2.0f * m);
            positions.push_back({static_cast<float>(c % w) + fx, static_cast<float>(c / w) + fy});
        }
        rng_state_ = rng.state;
    }
    rebuild_crowd(positions);
    return {};
}

Result<void> World::set_params(const UnitParams& params) {
    if (!(params.speed >= 0.1f && params.speed <= 20.0f)) {
        return Error{"speed " + std::to_string(params.speed) + " is outside 0.1..20 cells/s"};
    }
    if (!(params.separation >= 0.0f && params.separation <= 20.0f)) {
        return Error{"separation " + std::to_string(params.separation) + " is outside 0..20"};
    }
    if (!(params.radius >= 0.05f && params.radius <= 0.5f)) {
        return Error{"radius " + std::to_string(params.radius) + " is outside 0.05..0.5 cells"};
    }
    params_ = params;
    std::vector<Vec2> positions;
    positions.reserve(agents_.size());
    for (const AgentId id : agents_) positions.push_back(crowd_->position(id));
    rebuild_crowd(positions);
    return {};
}

Result<void> World::tick(float dt, bool force) {
    if (paused_ && !force) return {};
    const auto t0 = std::chrono::steady_clock::now();
    if (auto r = crowd_->step(dt, *jobs_); !r) return r;
    stats_.step_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    stats_.crowd = crowd_->stats();
    ++stats_.tick;
    return {};
}

}  // namespace tide::serve
