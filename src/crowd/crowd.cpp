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
#include <string>

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

constexpr float kSteerRate = 8.0f;  // 1/s: how fast velocity closes on the desired one, before the force bound

// Pushes a disc of radius r at (x, y) out of the wall and off-map cells around it, removing the
// velocity component into them. Returns true when it touched a wall. (ox, oy) is the last safe
// centre, used if the centre itself ended inside a wall.
bool push_out_of_walls(const CostField& cost, float r, float ox, float oy, float& x, float& y, float& vx, float& vy) {
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
      key_(memory),
      sorted_(memory) {}

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
        key_.push_back(0);
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
    max_radius_ = std::max(max_radius_, radius);
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
    max_radius_dirty_ = true;
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
    for (int k = 0; k < n; ++k) substep(sub, jobs, k == n - 1);
    time_ += dt;
    stats_.agents = live_;
    return {};
}

namespace {
constexpr std::uint32_t kDeadKey = 0xffffffffu;  // key_ of an empty slot
}  // namespace

void Crowd::build_hash(JobSystem& jobs) {
    if (max_radius_dirty_) {
        max_radius_ = 0.0f;
        for (std::size_t i = 0; i < alive_.size(); ++i) {
            if (alive_[i]) max_radius_ = std::max(max_radius_, radius_[i]);
        }
        max_radius_dirty_ = false;
    }
    // Buckets at least as wide as the largest interaction range, so 3x3 buckets cover it.
    hash_cell_ = std::max(1.0f, 2.0f * max_radius_ * params_.separation_range);
    hash_w_ = static_cast<int>(std::ceil(static_cast<float>(cost_->width()) / hash_cell_));
    hash_h_ = static_cast<int>(std::ceil(static_cast<float>(cost_->height()) / hash_cell_));
    // The torus has about 2 buckets per agent (at least 64) but no more than the grid needs;
    // cells it folds together only add candidates the distance test drops (they are at least
    // two bucket widths apart).
    const std::size_t buckets_max = std::bit_ceil(std::max<std::size_t>(64, 2 * live_));
    std::uint32_t tw = std::max<std::uint32_t>(4, std::bit_ceil(static_cast<std::uint32_t>(hash_w_)));
    std::uint32_t th = std::max<std::uint32_t>(4, std::bit_ceil(static_cast<std::uint32_t>(hash_h_)));
    while (static_cast<std::size_t>(tw) * th > buckets_max && std::max(tw, th) > 4) (tw >= th ? tw : th) /= 2;
    hash_mask_x_ = tw - 1;
    hash_mask_y_ = th - 1;
    hash_shift_ = std::countr_zero(tw);
    const std::size_t buckets = static_cast<std::size_t>(tw) * th;
    const float cell = hash_cell_;
    const int hw = hash_w_, hh = hash_h_;
    auto keys = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            if (!alive_[i]) {
                key_[i] = kDeadKey;
                continue;
            }
            const int bx = std::min(hw - 1, static_cast<int>(px_[i] / cell));
            const int by = std::min(hh - 1, static_cast<int>(py_[i] / cell));
            key_[i] = hash_bucket(bx, by);
        }
    };
    parallel_for(jobs, alive_.size(), 4096, keys);

    // Counting sort, stable in slot order: neighbour sums run in a fixed order. Counts go to
    // start[key + 2]; after the prefix sum start[key + 1] is the bucket's first index, and the
    // scatter advances it to the bucket's end, leaving start[b] .. start[b + 1] as bucket b.
    // The same pass sums the arrived agents' areas per group (in slot order, for settle_).
    bucket_start_.assign(buckets + 2, 0);
    settle_.assign(groups_.size(), 0.0f);
    std::uint32_t* const start = bucket_start_.data();
    const std::uint32_t* const key = key_.data();
    for (std::size_t i = 0; i < alive_.size(); ++i) {
        if (key[i] == kDeadKey) continue;
        ++start[key[i] + 2];
        if (state_[i] == static_cast<std::uint8_t>(AgentState::arrived)) settle_[group_[i]] += radius_[i] * radius_[i];
    }
    for (std::size_t b = 3; b < buckets + 2; ++b) start[b] += start[b - 1];
    bucket_items_.resize(live_);
    std::uint32_t* const items = bucket_items_.data();
    for (std::size_t i = 0; i < alive_.size(); ++i) {
        if (key[i] != kDeadKey) items[start[key[i] + 1]++] = static_cast<std::uint32_t>(i);
    }
    // What neighbour scans read, copied in bucket order.
    sorted_.resize(live_);
    auto gather = [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) {
            const std::uint32_t i = items[k];
            sorted_[k] = {px_[i], py_[i], radius_[i], i};
        }
    };
    parallel_for(jobs, live_, 4096, gather);
}

void Crowd::substep(float dt, JobSystem& jobs, bool count_stats) {
    build_hash(jobs);
    // The blob of arrived agents grows with the group: a unit stops against an arrived mate within
    // settle_distance plus the radius of a disc packed with the group's arrived agents.
    for (float& s : settle_) s = params_.settle_distance + 2.0f * std::sqrt(s / 0.6f);
    const CostField& cost = *cost_;
    const CrowdParams& P = params_;
    const int W = cost.width(), H = cost.height();
    const Cost* const cells = cost.cells().data();
    const Neighbour* const nb = sorted_.data();
    const std::uint32_t* const start = bucket_start_.data();
    const int hw = hash_w_, hh = hash_h_;
    const float hash_cell = hash_cell_;
    std::atomic<std::size_t> n_arrived{0}, n_no_path{0}, n_stuck{0}, n_wall{0};
    // Agents run in bucket order (neighbours of consecutive agents overlap, so the scans hit the
    // cache); each writes only its own slot.
    auto body = [&](std::size_t begin, std::size_t end) {
        std::size_t arrived = 0, no_path = 0, stuck_count = 0, walls = 0;
        for (std::size_t k = begin; k < end; ++k) {
            const std::uint32_t i = nb[k].slot;
            const std::uint32_t group = group_[i];
            const FlowField& field = *groups_[group];
            float x = nb[k].x, y = nb[k].y, vx = vx_[i], vy = vy_[i];
            const float r = nb[k].radius;
            const int cx = std::clamp(static_cast<int>(x), 0, W - 1), cy = std::clamp(static_cast<int>(y), 0, H - 1);
            const std::size_t c_index = static_cast<std::size_t>(cy) * W + cx;
            const Cost c = cells[c_index];
            const float terrain = c == kCostWall ? 1.0f : static_cast<float>(c);
            const float to_go = field.integration()[c_index];
            const float settle = settle_[group];
            auto st = static_cast<AgentState>(state_[i]);

            // State: cut off, arrived (and re-activated when the goal moved away), moving.
            if (to_go == kUnreachable) {
                st = AgentState::no_path;
            } else if (st == AgentState::arrived) {
                if (to_go > settle + 1.0f) st = AgentState::moving;
            } else {
                st = to_go <= P.arrival_distance ? AgentState::arrived : AgentState::moving;
            }

            // Neighbours: separation push, and the stopping chain reaction near the goal.
            float sx = 0.0f, sy = 0.0f;  // separation within the interaction range
            float ox = 0.0f, oy = 0.0f;  // real overlaps only (what still moves a standing agent)
            auto scan = [&](std::uint32_t from, std::uint32_t to) {
                for (std::uint32_t k2 = from; k2 < to; ++k2) {
                    if (k2 == k) continue;
                    float dx = x - nb[k2].x, dy = y - nb[k2].y;
                    const float rr = r + nb[k2].radius;
                    const float range = rr * P.separation_range;
                    float d2 = dx * dx + dy * dy;
                    if (d2 >= range * range) continue;
                    const std::uint32_t j = nb[k2].slot;
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
                    if (st == AgentState::moving && d < rr * 1.05f && group_[j] == group &&
                        state_[j] == static_cast<std::uint8_t>(AgentState::arrived) && to_go <= settle) {
                        st = AgentState::arrived;  // bumped into a settled mate near the goal
                    }
                }
            };
            const int bx = std::min(hw - 1, static_cast<int>(x / hash_cell));
            const int by = std::min(hh - 1, static_cast<int>(y / hash_cell));
            const int qx0 = std::max(0, bx - 1), qx1 = std::min(hw - 1, bx + 1);
            const int qy0 = std::max(0, by - 1), qy1 = std::min(hh - 1, by + 1);
            for (int qy = qy0; qy <= qy1; ++qy) {
                const std::uint32_t b0 = hash_bucket(qx0, qy), b1 = hash_bucket(qx1, qy);
                if (b0 <= b1) {
                    scan(start[b0], start[b1 + 1]);  // the row's buckets are adjacent
                } else {
                    for (int qx = qx0; qx <= qx1; ++qx) {  // the row wraps around the torus
                        const std::uint32_t b = hash_bucket(qx, qy);
                        scan(start[b], start[b + 1]);
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
            arrived += st == AgentState::arrived;
            no_path += st == AgentState::no_path;
            stuck_count += stuck;
            walls += hit;
        }
        if (count_stats) {  // integer sums: the same for any split
            n_arrived.fetch_add(arrived, std::memory_order_relaxed);
            n_no_path.fetch_add(no_path, std::memory_order_relaxed);
            n_stuck.fetch_add(stuck_count, std::memory_order_relaxed);
            n_wall.fetch_add(walls, std::memory_order_relaxed);
        }
    };
    parallel_for(jobs, live_, 1024, body);
    if (count_stats) {
        stats_.arrived = n_arrived.load();
        stats_.no_path = n_no_path.load();
        stats_.stuck = n_stuck.load();
        stats_.wall_contacts = n_wall.load();
    }
    px_.swap(nx_);
    py_.swap(ny_);
    vx_.swap(nvx_);
    vy_.swap(nvy_);
    state_.swap(nstate_);
}

}  // namespace tide
