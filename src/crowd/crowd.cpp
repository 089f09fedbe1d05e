// Crowd step. Each sub-step: (1) counting-sort live agents into a uniform spatial hash; (2) in
// parallel, every agent reads the previous state (its own and its neighbours') and writes its new
// state into separate buffers; (3) swap. Because (2) never reads what it writes and sums its
// neighbours in a fixed order, results are bit-identical for any thread count.

#include "tide/crowd.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "tide/assert.hpp"

namespace tide {
namespace {

std::string vec_text(Vec2 p) {
    return "(" + std::to_string(p.x) + ", " + std::to_string(p.y) + ")";
}

constexpr float kSteerRate = 8.0f;  // 1/s: how fast velocity closes on the desired one, before the force bound

// Pushes a disc of radius r at (x, y) out of the wall and off-map cells around it, removing the
// velocity component into them. Returns true when it touched a wall. (ox, oy) is the last safe
// centre, used if the centre itself ended inside a wall.
bool push_out_of_walls(const CostField& cost, float r, float ox, float oy, float& x, float& y, float& vx, float& vy) {
    bool hit = false;
    for (int pass = 0; pass < 2; ++pass) {
        // Only the cells the disc's bounding box touches (usually one, at most four: r <= 0.5).
        const int x0 = static_cast<int>(std::floor(x - r)), x1 = static_cast<int>(std::floor(x + r));
        const int y0 = static_cast<int>(std::floor(y - r)), y1 = static_cast<int>(std::floor(y + r));
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
                    if (!cost.passable(static_cast<int>(std::floor(x)), static_cast<int>(std::floor(y)))) {
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
      px_(memory),
      py_(memory),
      vx_(memory),
      vy_(memory),
      nx_(memory),
      ny_(memory),
      nvx_(memory),
      nvy_(memory),
      dvx_(memory),
      dvy_(memory),
      radius_(memory),
      speed_(memory),
      progress_ref_(memory),
      progress_clock_(memory),
      group_(memory),
      generation_(memory),
      alive_(memory),
      state_(memory),
      nstate_(memory),
      stuck_(memory),
      wall_hit_(memory),
      free_(memory),
      bucket_start_(memory),
      bucket_items_(memory),
      fill_(memory) {}

Result<GroupId> Crowd::add_group(std::shared_ptr<const FlowField> field) {
    if (!field || field->width() != cost_->width() || field->height() != cost_->height()) {
        return Error{"group field must be built on the crowd's " + std::to_string(cost_->width()) + "x" +
                     std::to_string(cost_->height()) + " map"};
    }
    groups_.push_back(std::move(field));
    return static_cast<GroupId>(groups_.size() - 1);
}

Result<void> Crowd::set_group_field(GroupId group, std::shared_ptr<const FlowField> field) {
    if (group >= groups_.size()) return Error{"unknown group " + std::to_string(group)};
    if (!field || field->width() != cost_->width() || field->height() != cost_->height()) {
        return Error{"group field must be built on the crowd's map"};
    }
    groups_[group] = std::move(field);
    // Progress toward the old goal means nothing now: restart every member's stuck window.
    for (std::size_t i = 0; i < alive_.size(); ++i) {
        if (alive_[i] && group_[i] == group) {
            progress_ref_[i] = std::numeric_limits<float>::infinity();
            progress_clock_[i] = 0.0f;
            stuck_[i] = 0;
        }
    }
    return {};
}

Result<void> Crowd::check_position(Vec2 p) const {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return Error{"agent position " + vec_text(p) + " is not finite"};
    if (p.x < 0.0f || p.y < 0.0f || p.x >= static_cast<float>(cost_->width()) ||
        p.y >= static_cast<float>(cost_->height())) {
        return Error{"agent position " + vec_text(p) + " is outside the " + std::to_string(cost_->width()) + "x" +
                     std::to_string(cost_->height()) + " map"};
    }
    if (!cost_->passable(static_cast<int>(p.x), static_cast<int>(p.y))) {
        return Error{"agent position " + vec_text(p) + " is inside a wall"};
    }
    return {};
}

Result<AgentId> Crowd::add_agent(Vec2 position, GroupId group, float radius, float max_speed) {
    if (auto r = check_position(position); !r) return r.error();
    if (group >= groups_.size()) return Error{"unknown group " + std::to_string(group)};
    if (radius < 0.0f) radius = params_.radius;
    if (max_speed < 0.0f) max_speed = params_.max_speed;
    if (!(radius > 0.0f && radius <= 0.5f))
        return Error{"agent radius " + std::to_string(radius) + " is outside (0, 0.5]"};
    if (!(max_speed > 0.0f && max_speed <= 100.0f)) {
        return Error{"agent speed " + std::to_string(max_speed) + " is outside (0, 100]"};
    }
    std::size_t i;
    if (!free_.empty()) {
        i = free_.back();
        free_.pop_back();
    } else {
        i = px_.size();
        for (auto* v : {&px_, &py_, &vx_, &vy_, &nx_, &ny_, &nvx_, &nvy_, &dvx_, &dvy_, &radius_, &speed_,
                        &progress_ref_, &progress_clock_})
            v->push_back(0.0f);
        group_.push_back(0);
        generation_.push_back(0);
        for (auto* v : {&alive_, &state_, &nstate_, &stuck_, &wall_hit_}) v->push_back(0);
    }
    // A disc overlapping a wall cell is nudged out, so agents start clear of walls.
    float vx0 = 0.0f, vy0 = 0.0f;
    push_out_of_walls(*cost_, radius, position.x, position.y, position.x, position.y, vx0, vy0);
    px_[i] = nx_[i] = position.x;
    py_[i] = ny_[i] = position.y;
    vx_[i] = vy_[i] = nvx_[i] = nvy_[i] = dvx_[i] = dvy_[i] = 0.0f;
    radius_[i] = radius;
    speed_[i] = max_speed;
    progress_ref_[i] = std::numeric_limits<float>::infinity();
    progress_clock_[i] = 0.0f;
    group_[i] = group;
    alive_[i] = 1;
    state_[i] = nstate_[i] = static_cast<std::uint8_t>(AgentState::moving);
    stuck_[i] = 0;
    ++live_;
    return AgentId{static_cast<std::uint32_t>(i), generation_[i]};
}

bool Crowd::valid(AgentId id) const noexcept {
    return id.index < alive_.size() && alive_[id.index] && generation_[id.index] == id.generation;
}

std::size_t Crowd::slot(AgentId id) const {
    TIDE_ASSERT(valid(id));
    return id.index;
}

Result<void> Crowd::remove_agent(AgentId id) {
    if (!valid(id))
        return Error{"agent " + std::to_string(id.index) + " (generation " + std::to_string(id.generation) +
                     ") is not a live agent"};
    alive_[id.index] = 0;
    ++generation_[id.index];
    free_.push_back(id.index);
    --live_;
    return {};
}

Result<void> Crowd::set_position(AgentId id, Vec2 position) {
    if (!valid(id)) return Error{"agent " + std::to_string(id.index) + " is not a live agent"};
    if (auto r = check_position(position); !r) return r;
    float vx0 = 0.0f, vy0 = 0.0f;
    push_out_of_walls(*cost_, radius_[id.index], position.x, position.y, position.x, position.y, vx0, vy0);
    px_[id.index] = position.x;
    py_[id.index] = position.y;
    vx_[id.index] = vy_[id.index] = 0.0f;
    return {};
}

Vec2 Crowd::position(AgentId id) const {
    return {px_[slot(id)], py_[slot(id)]};
}
Vec2 Crowd::velocity(AgentId id) const {
    return {vx_[slot(id)], vy_[slot(id)]};
}
Vec2 Crowd::desired_velocity(AgentId id) const {
    return {dvx_[slot(id)], dvy_[slot(id)]};
}
AgentState Crowd::state(AgentId id) const {
    return static_cast<AgentState>(state_[slot(id)]);
}

bool Crowd::stuck(AgentId id) const {
    return stuck_[slot(id)] != 0;
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
        mix(&idx, sizeof idx);
        mix(&px_[i], sizeof(float));
        mix(&py_[i], sizeof(float));
        mix(&vx_[i], sizeof(float));
        mix(&vy_[i], sizeof(float));
        mix(&state_[i], 1);
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
    for (int k = 0; k < n; ++k) substep(sub, jobs);
    time_ += dt;
    stats_.agents = live_;
    for (std::size_t i = 0; i < alive_.size(); ++i) {
        if (!alive_[i]) continue;
        stats_.arrived += state_[i] == static_cast<std::uint8_t>(AgentState::arrived);
        stats_.no_path += state_[i] == static_cast<std::uint8_t>(AgentState::no_path);
        stats_.stuck += stuck_[i];
        stats_.wall_contacts += wall_hit_[i];
    }
    return {};
}

void Crowd::build_hash() {
    float max_r = 0.0f;
    for (std::size_t i = 0; i < alive_.size(); ++i) {
        if (alive_[i]) max_r = std::max(max_r, radius_[i]);
    }
    // Buckets at least as wide as the largest interaction range, so 3x3 buckets cover it.
    hash_cell_ = std::max(1.0f, 2.0f * max_r * params_.separation_range);
    hash_w_ = static_cast<int>(std::ceil(static_cast<float>(cost_->width()) / hash_cell_));
    hash_h_ = static_cast<int>(std::ceil(static_cast<float>(cost_->height()) / hash_cell_));
    // The table is sized by the agent count, not the map: grid cells hash into it, so a big map
    // with few agents costs little. Collisions only add candidates that the distance test drops.
    const std::size_t buckets = std::bit_ceil(std::max<std::size_t>(64, 2 * live_));
    hash_mask_ = buckets - 1;
    bucket_start_.assign(buckets + 1, 0);
    auto bucket_of = [&](std::size_t i) {
        const int bx = std::min(hash_w_ - 1, static_cast<int>(px_[i] / hash_cell_));
        const int by = std::min(hash_h_ - 1, static_cast<int>(py_[i] / hash_cell_));
        return hash_bucket(bx, by);
    };
    for (std::size_t i = 0; i < alive_.size(); ++i) {
        if (alive_[i]) ++bucket_start_[bucket_of(i) + 1];
    }
    for (std::size_t b = 0; b < buckets; ++b) bucket_start_[b + 1] += bucket_start_[b];
    bucket_items_.resize(live_);
    // Counting sort, stable in slot order: neighbour sums run in a fixed order.
    fill_.assign(bucket_start_.begin(), bucket_start_.end() - 1);
    std::uint32_t* const fill = fill_.data();
    for (std::size_t i = 0; i < alive_.size(); ++i) {
        if (alive_[i]) bucket_items_[fill[bucket_of(i)]++] = static_cast<std::uint32_t>(i);
    }
}

void Crowd::substep(float dt, JobSystem& jobs) {
    build_hash();
    // The blob of arrived agents grows with the group: a unit stops against an arrived mate within
    // settle_distance plus the radius of a disc packed with the group's arrived agents.
    settle_.assign(groups_.size(), 0.0f);
    for (std::size_t i = 0; i < alive_.size(); ++i) {
        if (alive_[i] && state_[i] == static_cast<std::uint8_t>(AgentState::arrived)) {
            settle_[group_[i]] += radius_[i] * radius_[i];
        }
    }
    for (float& s : settle_) s = params_.settle_distance + 2.0f * std::sqrt(s / 0.6f);
    const CostField& cost = *cost_;
    const CrowdParams& P = params_;
    const int W = cost.width(), H = cost.height();
    auto body = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            if (!alive_[i]) continue;
            const FlowField& field = *groups_[group_[i]];
            float x = px_[i], y = py_[i], vx = vx_[i], vy = vy_[i];
            const float r = radius_[i];
            const int cx = std::clamp(static_cast<int>(x), 0, W - 1), cy = std::clamp(static_cast<int>(y), 0, H - 1);
            const Cost c = cost.at(cx, cy);
            const float terrain = c == kCostWall ? 1.0f : static_cast<float>(c);
            const float to_go = field.integration(cx, cy);
            auto st = static_cast<AgentState>(state_[i]);

            // State: cut off, arrived (and re-activated when the goal moved away), moving.
            if (to_go == kUnreachable) {
                st = AgentState::no_path;
            } else if (st == AgentState::arrived) {
                if (to_go > settle_[group_[i]] + 1.0f) st = AgentState::moving;
            } else {
                st = to_go <= P.arrival_distance ? AgentState::arrived : AgentState::moving;
            }

            // Neighbours: separation push, and the stopping chain reaction near the goal.
            float sx = 0.0f, sy = 0.0f;  // separation within the interaction range
            float ox = 0.0f, oy = 0.0f;  // real overlaps only (what still moves a standing agent)
            const int bx = std::min(hash_w_ - 1, static_cast<int>(x / hash_cell_));
            const int by = std::min(hash_h_ - 1, static_cast<int>(y / hash_cell_));
            std::size_t seen[9];  // buckets already scanned: two grid cells may share one
            int n_seen = 0;
            for (int qy = std::max(0, by - 1); qy <= std::min(hash_h_ - 1, by + 1); ++qy) {
                for (int qx = std::max(0, bx - 1); qx <= std::min(hash_w_ - 1, bx + 1); ++qx) {
                    const std::size_t b = hash_bucket(qx, qy);
                    if (std::find(seen, seen + n_seen, b) != seen + n_seen) continue;
                    seen[n_seen++] = b;
                    for (std::uint32_t k = bucket_start_[b]; k < bucket_start_[b + 1]; ++k) {
                        const std::uint32_t j = bucket_items_[k];
                        if (j == i) continue;
                        float dx = x - px_[j], dy = y - py_[j];
                        const float rr = r + radius_[j];
                        const float range = rr * P.separation_range;
                        float d2 = dx * dx + dy * dy;
                        if (d2 >= range * range) continue;
                        if (d2 < 1e-12f) {  // exactly on top of each other: split by slot order
                            dx = i < j ? 1e-3f : -1e-3f;
                            dy = 0.0f;
                            d2 = dx * dx;
                        }
                        const float d = std::sqrt(d2);
                        const float push = (range - d) / range;
                        sx += dx / d * push;
                        sy += dy / d * push;
                        if (d < rr) {
                            ox += dx / d * (rr - d) / rr;
                            oy += dy / d * (rr - d) / rr;
                        }
                        if (st == AgentState::moving && d < rr * 1.05f && group_[j] == group_[i] &&
                            state_[j] == static_cast<std::uint8_t>(AgentState::arrived) &&
                            to_go <= settle_[group_[i]]) {
                            st = AgentState::arrived;  // bumped into a settled mate near the goal
                        }
                    }
                }
            }

            // Desired velocity: the flow at this point, at the speed the terrain allows; slowing
            // down over the last cells before the goal.
            float dvx = 0.0f, dvy = 0.0f;
            if (st == AgentState::moving) {
                const Vec2 f = field.sample({x, y});
                const float slow = std::min(1.0f, (to_go + 0.25f) / 1.5f);
                const float speed = speed_[i] / terrain * slow;
                dvx = f.x * speed;
                dvy = f.y * speed;
            }
            float ax, ay;
            if (st == AgentState::moving) {
                ax = (dvx - vx) * kSteerRate + sx * P.separation;
                ay = (dvy - vy) * kSteerRate + sy * P.separation;
            } else {
                // Arrived or cut off: brake to a stop; only a real overlap still pushes, so the
                // pack spreads until nobody overlaps and then stands still (no jitter).
                ax = -vx * kSteerRate + ox * P.separation * kSteerRate;
                ay = -vy * kSteerRate + oy * P.separation * kSteerRate;
            }
            const float a = std::sqrt(ax * ax + ay * ay);
            if (a > P.max_force) {
                ax *= P.max_force / a;
                ay *= P.max_force / a;
            }
            vx += ax * dt;
            vy += ay * dt;
            const float vmax = speed_[i] / terrain;
            const float v = std::sqrt(vx * vx + vy * vy);
            if (v > vmax) {
                vx *= vmax / v;
                vy *= vmax / v;
            }
            if (st != AgentState::moving && v < 1e-3f && ox * ox + oy * oy < 1e-6f) vx = vy = 0.0f;  // settle exactly

            // Move, then push the disc out of walls and the map border, dropping the velocity into them.
            const float safe_x = x, safe_y = y;
            x += vx * dt;
            y += vy * dt;
            const std::uint8_t hit = push_out_of_walls(cost, r, safe_x, safe_y, x, y, vx, vy) ? 1 : 0;

            // Stuck: little progress toward the goal during the last window.
            float clock = progress_clock_[i] + dt;
            float ref = progress_ref_[i];
            std::uint8_t stuck = stuck_[i];
            if (clock >= P.stuck_seconds || !std::isfinite(ref)) {
                stuck = st == AgentState::moving && std::isfinite(ref) && ref - to_go < P.stuck_progress;
                ref = to_go;
                clock = 0.0f;
            }
            nx_[i] = x;
            ny_[i] = y;
            nvx_[i] = vx;
            nvy_[i] = vy;
            dvx_[i] = dvx;
            dvy_[i] = dvy;
            nstate_[i] = static_cast<std::uint8_t>(st);
            wall_hit_[i] = hit;
            stuck_[i] = stuck;
            progress_ref_[i] = ref;
            progress_clock_[i] = clock;
        }
    };
    parallel_for(jobs, alive_.size(), 1024, body);
    px_.swap(nx_);
    py_.swap(ny_);
    vx_.swap(nvx_);
    vy_.swap(nvy_);
    state_.swap(nstate_);
}

}  // namespace tide
