// The ORCA reference crowd; see orca_reference.hpp. Section numbers below are the paper's.
//
// Neighbour search: RVO2 builds a kd-tree of the agents every step and queries it per agent. Here
// all agents share one radius and one neighbour distance, so a uniform grid with cells of the
// neighbour distance answers the same query (every neighbour is in the 3x3 cells around the agent)
// with less work: the build is a counting sort and a query visits 9 cells, not a tree descent.

#include "orca_reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace tide::bench {
namespace {

constexpr float kEpsilon = 1e-5f;

struct V2 {
    float x = 0.0f, y = 0.0f;
};
V2 operator+(V2 a, V2 b) {
    return {a.x + b.x, a.y + b.y};
}
V2 operator-(V2 a, V2 b) {
    return {a.x - b.x, a.y - b.y};
}
V2 operator*(float s, V2 a) {
    return {s * a.x, s * a.y};
}
float dot(V2 a, V2 b) {
    return a.x * b.x + a.y * b.y;
}
float cross(V2 a, V2 b) {
    return a.x * b.y - a.y * b.x;
}  // z of the 3D cross product
float length_sq(V2 a) {
    return dot(a, a);
}
V2 unit(V2 a) {
    const float len = std::sqrt(length_sq(a));
    return len > 0.0f ? (1.0f / len) * a : V2{1.0f, 0.0f};
}

// A half-plane of permitted velocities: the points left of the directed line through `point`
// along the unit vector `direction` (cross(direction, v - point) >= 0).
struct HalfPlane {
    V2 point, direction;
};

// True when `v` lies strictly right of the half-plane's boundary (outside it).
bool outside(const HalfPlane& h, V2 v) {
    return cross(h.direction, v - h.point) < 0.0f;
}

// Section 5.2, one dimension: the best point on the boundary of planes[k] inside the disc of
// `speed` and inside planes[0..k). `along` asks for the furthest point along `target` (a unit
// vector) instead of the closest to `target`. False when no such point exists.
bool solve_on_line(std::span<const HalfPlane> planes, std::size_t k, float speed, V2 target, bool along, V2& out) {
    const HalfPlane& h = planes[k];
    // Where the line crosses the speed circle: |point + t dir| = speed.
    const float b = dot(h.point, h.direction);
    const float disc = b * b + speed * speed - length_sq(h.point);
    if (disc < 0.0f) return false;
    float t_lo = -b - std::sqrt(disc), t_hi = -b + std::sqrt(disc);
    for (std::size_t i = 0; i < k; ++i) {
        const HalfPlane& g = planes[i];
        const float denom = cross(h.direction, g.direction);
        const float numer = cross(g.direction, h.point - g.point);
        if (std::fabs(denom) <= kEpsilon) {
            if (numer < 0.0f) return false;  // parallel, and this line lies outside plane i
            continue;
        }
        // Plane i holds where t * denom <= numer.
        const float t = numer / denom;
        if (denom > 0.0f)
            t_hi = std::min(t_hi, t);
        else
            t_lo = std::max(t_lo, t);
        if (t_lo > t_hi) return false;
    }
    float t;
    if (along)
        t = dot(target, h.direction) > 0.0f ? t_hi : t_lo;
    else
        t = std::clamp(dot(h.direction, target - h.point), t_lo, t_hi);
    out = h.point + t * h.direction;
    return true;
}

// Section 5.2, two dimensions (incremental, as Seidel's algorithm without the shuffle): the point
// of the speed disc inside every plane closest to `target` (or furthest along the unit vector
// `target` when `along`). Returns planes.size() on success, else the first plane it could not
// satisfy; `out` then holds the optimum of the planes before it.
std::size_t solve_2d(std::span<const HalfPlane> planes, float speed, V2 target, bool along, V2& out) {
    if (along)
        out = speed * target;
    else if (length_sq(target) > speed * speed)
        out = speed * unit(target);
    else
        out = target;
    for (std::size_t k = 0; k < planes.size(); ++k) {
        if (!outside(planes[k], out)) continue;
        const V2 kept = out;
        if (!solve_on_line(planes, k, speed, target, along, out)) {
            out = kept;
            return k;
        }
    }
    return planes.size();
}

// Section 5.2, the 3D program for a dense crowd whose planes leave no velocity: the velocity inside
// the speed disc that minimises the largest distance by which it violates a plane (all planes are
// moved outward equally). Starts at plane `first` (the 2D solution satisfies the ones before it).
// `scratch` holds at least planes.size() planes.
void solve_3d(std::span<const HalfPlane> planes, std::size_t first, float speed, std::span<HalfPlane> scratch,
              V2& out) {
    float worst = 0.0f;
    for (std::size_t k = first; k < planes.size(); ++k) {
        const HalfPlane& h = planes[k];
        if (cross(h.direction, h.point - out) <= worst) continue;  // violated by no more than `worst`
        // Project the earlier planes onto the boundary of plane k: the velocities where plane i and
        // plane k are violated equally. A 2D program over those, pushing as far into plane k as
        // possible, gives the point violating planes 0..k by the least.
        std::size_t n = 0;
        for (std::size_t i = 0; i < k; ++i) {
            const HalfPlane& g = planes[i];
            HalfPlane p;
            const float det = cross(h.direction, g.direction);
            if (std::fabs(det) <= kEpsilon) {
                if (dot(h.direction, g.direction) > 0.0f) continue;  // same direction: plane k decides
                p.point = 0.5f * (h.point + g.point);                // opposite: halfway between
            } else {
                p.point = h.point + (cross(g.direction, h.point - g.point) / det) * h.direction;
            }
            p.direction = unit(g.direction - h.direction);
            scratch[n++] = p;
        }
        const V2 kept = out;
        const V2 inward{-h.direction.y, h.direction.x};
        if (solve_2d(scratch.first(n), speed, inward, true, out) < n) out = kept;  // rounding only
        worst = cross(h.direction, h.point - out);
    }
}

}  // namespace

Result<OrcaCrowd> OrcaCrowd::create(const OrcaParams& p) {
    auto in = [](float v, float hi) { return std::isfinite(v) && v > 0.0f && v <= hi; };
    if (!in(p.radius, 10.0f)) return Error("ORCA radius must be in (0, 10]");
    if (!in(p.max_speed, 100.0f)) return Error("ORCA max_speed must be in (0, 100]");
    if (!in(p.time_horizon, 100.0f)) return Error("ORCA time_horizon must be in (0, 100]");
    if (!in(p.neighbor_distance, 100.0f)) return Error("ORCA neighbor_distance must be in (0, 100]");
    if (p.max_neighbors < 0 || p.max_neighbors > kOrcaMaxNeighbors)
        return Error("ORCA max_neighbors must be in 0.." + std::to_string(kOrcaMaxNeighbors));
    return OrcaCrowd(p);
}

Result<std::size_t> OrcaCrowd::add_agent(Vec2 p) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return Error("ORCA agent position must be finite");
    if (px_.size() >= std::numeric_limits<std::uint32_t>::max()) return Error(ErrorCode::too_large, "too many agents");
    for (auto* v : {&vx_, &vy_, &pref_x_, &pref_y_, &new_vx_, &new_vy_}) v->push_back(0.0f);
    px_.push_back(p.x);
    py_.push_back(p.y);
    return px_.size() - 1;
}

Result<void> OrcaCrowd::set_preferred_velocity(std::size_t i, Vec2 v) {
    if (i >= size()) return Error(ErrorCode::not_found, "ORCA agent " + std::to_string(i) + " does not exist");
    if (!std::isfinite(v.x) || !std::isfinite(v.y)) return Error("ORCA preferred velocity must be finite");
    pref_x_[i] = v.x;
    pref_y_[i] = v.y;
    return {};
}

void OrcaCrowd::read_positions(std::span<Vec2> out) const {
    for (std::size_t i = 0; i < size(); ++i) out[i] = {px_[i], py_[i]};
}

void OrcaCrowd::build_grid() {
    const std::size_t n = size();
    float x0 = px_[0], x1 = px_[0], y0 = py_[0], y1 = py_[0];
    for (std::size_t i = 1; i < n; ++i) {
        x0 = std::min(x0, px_[i]);
        x1 = std::max(x1, px_[i]);
        y0 = std::min(y0, py_[i]);
        y1 = std::max(y1, py_[i]);
    }
    // Cells no smaller than the neighbour distance, and no more cells than about 4 per agent (a
    // few agents far apart must not make a huge grid).
    float cell = params_.neighbor_distance;
    const double area = static_cast<double>(x1 - x0 + cell) * (y1 - y0 + cell);
    const double most = 4.0 * static_cast<double>(n) + 16.0;
    if (area / (static_cast<double>(cell) * cell) > most) cell = static_cast<float>(std::sqrt(area / most));
    grid_x0_ = x0;
    grid_y0_ = y0;
    grid_cell_ = cell;
    grid_w_ = static_cast<int>((x1 - x0) / cell) + 1;
    grid_h_ = static_cast<int>((y1 - y0) / cell) + 1;
    const std::size_t cells = static_cast<std::size_t>(grid_w_) * grid_h_;
    grid_start_.assign(cells + 1, 0);
    agent_cell_.resize(n);
    grid_agents_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const int cx = std::min(grid_w_ - 1, static_cast<int>((px_[i] - x0) / cell));
        const int cy = std::min(grid_h_ - 1, static_cast<int>((py_[i] - y0) / cell));
        agent_cell_[i] = static_cast<std::uint32_t>(cy * grid_w_ + cx);
        ++grid_start_[agent_cell_[i] + 1];
    }
    for (std::size_t c = 0; c < cells; ++c) grid_start_[c + 1] += grid_start_[c];
    grid_fill_.assign(grid_start_.begin(), grid_start_.end() - 1);
    for (std::size_t i = 0; i < n; ++i) grid_agents_[grid_fill_[agent_cell_[i]]++] = static_cast<std::uint32_t>(i);
}

Result<void> OrcaCrowd::step(float dt, JobSystem& jobs) {
    if (!std::isfinite(dt) || dt <= 0.0f || dt > 10.0f) return Error("ORCA time step must be in (0, 10] s");
    const std::size_t n = size();
    if (n == 0) return {};
    build_grid();
    const float radius = params_.radius, speed = params_.max_speed;
    const float inv_tau = 1.0f / params_.time_horizon, inv_dt = 1.0f / dt;
    const float combined = 2.0f * radius, combined_sq = combined * combined;
    const std::size_t max_nb = static_cast<std::size_t>(params_.max_neighbors);
    const FlowField* field = field_.get();

    auto plan = [&](std::size_t begin, std::size_t end) {
        std::array<std::pair<float, std::uint32_t>, kOrcaMaxNeighbors> near{};
        std::array<HalfPlane, kOrcaMaxNeighbors> planes{}, scratch{};
        for (std::size_t i = begin; i < end; ++i) {
            const V2 pos{px_[i], py_[i]}, vel{vx_[i], vy_[i]};
            V2 pref{pref_x_[i], pref_y_[i]};
            if (field) {
                const Vec2 f = field->blend({pos.x, pos.y});
                pref = {f.x * speed, f.y * speed};
            }
            // The closest max_nb agents within the neighbour distance, nearest first (insertion
            // into a sorted list; the search range shrinks to the furthest kept once it is full).
            std::size_t count = 0;
            float range_sq = params_.neighbor_distance * params_.neighbor_distance;
            const int cx = static_cast<int>(agent_cell_[i] % static_cast<std::uint32_t>(grid_w_));
            const int cy = static_cast<int>(agent_cell_[i] / static_cast<std::uint32_t>(grid_w_));
            for (int y = std::max(0, cy - 1); y <= std::min(grid_h_ - 1, cy + 1) && max_nb > 0; ++y) {
                for (int x = std::max(0, cx - 1); x <= std::min(grid_w_ - 1, cx + 1); ++x) {
                    const std::size_t c = static_cast<std::size_t>(y) * grid_w_ + x;
                    for (std::uint32_t k = grid_start_[c]; k < grid_start_[c + 1]; ++k) {
                        const std::uint32_t j = grid_agents_[k];
                        if (j == i) continue;
                        const float dx = px_[j] - pos.x, dy = py_[j] - pos.y;
                        const float d2 = dx * dx + dy * dy;
                        if (d2 >= range_sq) continue;
                        std::size_t at = count < max_nb ? count++ : max_nb - 1;
                        while (at > 0 && near[at - 1].first > d2) {
                            near[at] = near[at - 1];
                            --at;
                        }
                        near[at] = {d2, j};
                        if (count == max_nb) range_sq = near[count - 1].first;
                    }
                }
            }
            // Section 5.1: one ORCA half-plane per neighbour. u is the smallest change of the
            // relative velocity that takes it out of the velocity obstacle (truncated at the time
            // horizon); each agent takes half of it.
            for (std::size_t k = 0; k < count; ++k) {
                const std::uint32_t j = near[k].second;
                const V2 rel_pos{px_[j] - pos.x, py_[j] - pos.y};
                const V2 rel_vel{vel.x - vx_[j], vel.y - vy_[j]};
                const float dist_sq = near[k].first;
                HalfPlane& h = planes[k];
                V2 u;
                if (dist_sq > combined_sq) {
                    const V2 w = rel_vel - inv_tau * rel_pos;  // from the cut-off circle's centre
                    const float w_sq = length_sq(w), w_dot = dot(w, rel_pos);
                    if (w_dot < 0.0f && w_dot * w_dot > combined_sq * w_sq) {
                        // Closest to the cut-off circle (the front of the truncated cone).
                        const float w_len = std::sqrt(w_sq);
                        const V2 w_unit = (1.0f / w_len) * w;
                        h.direction = {w_unit.y, -w_unit.x};
                        u = (combined * inv_tau - w_len) * w_unit;
                    } else {
                        // Closest to one of the cone's legs (tangents from the origin).
                        const float leg = std::sqrt(dist_sq - combined_sq);
                        if (cross(rel_pos, w) > 0.0f)
                            h.direction = (1.0f / dist_sq) * V2{rel_pos.x * leg - rel_pos.y * combined,
                                                                rel_pos.x * combined + rel_pos.y * leg};
                        else
                            h.direction = (-1.0f / dist_sq) * V2{rel_pos.x * leg + rel_pos.y * combined,
                                                                 -rel_pos.x * combined + rel_pos.y * leg};
                        u = dot(rel_vel, h.direction) * h.direction - rel_vel;
                    }
                } else {
                    // Already overlapping: separate within this step (cut-off circle at dt).
                    V2 w = rel_vel - inv_dt * rel_pos;
                    float w_len = std::sqrt(length_sq(w));
                    if (w_len <= kEpsilon) {
                        // Same place, same velocity: no direction to part in. Part along a fixed
                        // axis, opposite ways for the lower and the higher index.
                        w = {j < i ? 1.0f : -1.0f, 0.0f};
                        w_len = 0.0f;
                    }
                    const V2 w_unit = w_len > 0.0f ? (1.0f / w_len) * w : w;
                    h.direction = {w_unit.y, -w_unit.x};
                    u = (combined * inv_dt - w_len) * w_unit;
                }
                h.point = vel + 0.5f * u;
            }
            // Section 5.2: the permitted velocity closest to the preferred one; when the
            // half-planes leave none, the one violating them by the least.
            const std::span<const HalfPlane> all(planes.data(), count);
            V2 chosen;
            const std::size_t failed = solve_2d(all, speed, pref, false, chosen);
            if (failed < count) solve_3d(all, failed, speed, scratch, chosen);
            new_vx_[i] = chosen.x;
            new_vy_[i] = chosen.y;
        }
    };
    parallel_for(jobs, n, 256, plan);
    auto move = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            vx_[i] = new_vx_[i];
            vy_[i] = new_vy_[i];
            px_[i] += vx_[i] * dt;
            py_[i] += vy_[i] * dt;
        }
    };
    parallel_for(jobs, n, 4096, move);
    return {};
}

}  // namespace tide::bench
