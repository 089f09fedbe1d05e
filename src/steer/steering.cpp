#include "tide/steering.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../crowd/look_ahead.hpp"
#include "../fields/flow_sample.hpp"
#include "tide/assert.hpp"
#include "tide/unit_class.hpp"

namespace tide {
namespace {

Result<void> check_params(const SteerParams& p) {
    if (!(p.radius >= 0.0f && p.radius < 8.0f))
        return Error{"steering radius " + std::to_string(p.radius) + " is outside [0, 8) cells"};
    if (p.size < 1 || p.size > kMaxUnitSize)
        return Error{"steering unit size " + std::to_string(p.size) + " is outside 1.." + std::to_string(kMaxUnitSize)};
    if (p.look_ahead < 1 || p.look_ahead > 65536)
        return Error{"steering look-ahead " + std::to_string(p.look_ahead) + " is outside 1..65536 moves"};
    return {};
}

// Whether line of sight may overrule the view (as the crowd decides per group): a goal field built
// on the terrain (or on its sized costs for big units), or a plan made with the default diagonal.
bool sees_along(const FieldView& view, const CostField& terrain, int size) {
    if (view.plan()) return detail::plans_on(*view.plan());
    if (size == 1) return detail::built_on(*view.flat(), terrain);
    const auto sized = sized_cost_field(terrain, size);
    return sized.ok() && detail::built_on(*view.flat(), sized.value());
}

constexpr float kStepProbes = 8.0f;  // points along a step where the disc's clearance is checked
constexpr float kNearAim = 0.5f;     // cells (Manhattan): a unit this near its aim point looks again

}  // namespace

Result<Steering> Steering::create(FieldView view, const CostField& terrain, const SteerParams& params,
                                  const GridTransform& transform) {
    if (!view) return Error{"an empty field view: steering needs a field or a plan"};
    if (view.width() != terrain.width() || view.height() != terrain.height()) {
        return Error{"the field is " + std::to_string(view.width()) + "x" + std::to_string(view.height()) +
                     ", the terrain " + std::to_string(terrain.width()) + "x" + std::to_string(terrain.height())};
    }
    if (auto r = check_params(params); !r) return r.error();
    if (auto r = transform.check(); !r) return r.error();
    Steering s;
    s.sight_ = sees_along(view, terrain, params.size);
    s.view_ = std::move(view);
    s.terrain_ = &terrain;
    s.params_ = params;
    s.transform_ = transform;
    return s;
}

// The field is read at the unit's top-left point: its centre (s - 1) / 2 cells up and left.
namespace {
Vec2 lifted(Vec2 grid, int size) {
    const float lift = 0.5f * static_cast<float>(size - 1);
    return {grid.x - lift, grid.y - lift};
}
}  // namespace

Vec2 Steering::move(Vec2 world) const {
    const Vec2 f = lifted(transform_.to_grid(world), params_.size);
    if (!(f.x >= 0.0f && f.y >= 0.0f && f.x < static_cast<float>(view_.width()) &&
          f.y < static_cast<float>(view_.height())))
        return {};
    const Direction d = view_.direction(static_cast<int>(f.x), static_cast<int>(f.y));
    return is_move(d) ? transform_.direction_to_world(detail::kMoveUnit[static_cast<int>(d)]) : Vec2{};
}

Vec2 Steering::sample(Vec2 world) const {
    const Vec2 f = lifted(transform_.to_grid(world), params_.size);
    const Vec2 v = view_.sample(f);
    return params_.radius > 0.0f && (v.x != 0.0f || v.y != 0.0f) ? transform_.direction_to_world(keep_clear(f, v))
                                                                 : transform_.direction_to_world(v);
}

Vec2 Steering::steer(Vec2 world) const {
    SteerMemory memory;
    return transform_.direction_to_world(steer_grid(lifted(transform_.to_grid(world), params_.size), memory, true));
}

Vec2 Steering::steer(Vec2 world, SteerMemory& memory) const {
    return transform_.direction_to_world(steer_grid(lifted(transform_.to_grid(world), params_.size), memory, false));
}

// f: the unit's top-left point in cell units.
Vec2 Steering::steer_grid(Vec2 f, SteerMemory& memory, bool always) const {
    const int W = view_.width(), H = view_.height();
    if (!(f.x >= 0.0f && f.y >= 0.0f && f.x < static_cast<float>(W) && f.y < static_cast<float>(H))) return {};
    const int cx = static_cast<int>(f.x), cy = static_cast<int>(f.y);
    // Line of sight from cells with a move (a plan's cells without a sector field have none yet:
    // they follow the coarse direction of sample()).
    if (sight_ && is_move(view_.direction(cx, cy))) {
        const auto uw = static_cast<std::uint32_t>(W);
        const std::uint32_t now = static_cast<std::uint32_t>(cy) * uw + static_cast<std::uint32_t>(cx);
        // Near the point it aims at (a corner it turns round), a unit looks again at once: it may
        // stand in the same cell, and walking on past the point would turn it back.
        const bool near_aim =
            memory.seen != detail::kNoCell && std::fabs(memory.aim.x - f.x) + std::fabs(memory.aim.y - f.y) < kNearAim;
        if (always || near_aim || detail::look_again(view_, uw, memory.from, memory.seen, now)) {
            const HierarchicalField* const plan = view_.plan().get();
            const detail::SightCosts costs{terrain_, params_.size,
                                           !plan || &plan->cost() == terrain_ ? nullptr : &plan->cost()};
            const detail::Sight seen =
                detail::look_ahead(view_, costs, f, params_.radius, now, params_.look_ahead, params_.corners);
            memory.from = now;
            memory.seen = seen.cell;
            memory.aim = seen.aim;
            // Still as near after looking again: nothing further in sight from here. Follow the
            // field until the unit enters another cell (then look_again() looks).
            if (near_aim && seen.cell != detail::kNoCell &&
                std::fabs(seen.aim.x - f.x) + std::fabs(seen.aim.y - f.y) < kNearAim)
                memory.seen = detail::kNoCell;
        }
        if (memory.seen != detail::kNoCell) {
            const float tx = memory.aim.x - f.x, ty = memory.aim.y - f.y;
            const float len = std::sqrt(tx * tx + ty * ty);
            // Looking found the segment to the aim point clear for the disc; but a step past a near
            // aim point, or from where a host's own physics pushed the unit since it looked, must
            // still be safe for a point, as sample()'s is.
            if (len > kNearAim * 0.5f) {
                const Vec2 d{tx / len, ty / len};
                if (step_safe(f, d)) return d;
            }
        }
    }
    const Vec2 v = view_.sample(f);
    if (v.x == 0.0f && v.y == 0.0f) return v;  // at a goal, in a wall, cut off
    return params_.radius > 0.0f ? keep_clear(f, v) : v;
}

// True when a step of kSampleReach from the top-left point f along d enters no wall of the field
// (for a plan: of the costs it was made on) and cuts no corner (detail::step_clear_mask).
bool Steering::step_safe(Vec2 f, Vec2 d) const {
    const int cx = static_cast<int>(f.x), cy = static_cast<int>(f.y);
    unsigned mask = 0;
    if (const FlowField* flat = view_.flat().get()) {
        const int W = flat->width();
        if (cx > 0 && cy > 0 && cx + 1 < W && cy + 1 < flat->height()) {
            mask = detail::interior_wall_mask(flat->directions().data() + static_cast<std::size_t>(cy) * W + cx, W);
        } else {
            mask = detail::neighbour_mask(
                [flat](int x, int y) { return !flat->contains(x, y) || flat->direction(x, y) == Direction::wall; }, cx,
                cy);
        }
    } else {
        const CostField& cost = view_.plan()->cost();
        mask = detail::neighbour_mask([&cost](int x, int y) { return !cost.contains(x, y) || !cost.passable(x, y); },
                                      cx, cy);
    }
    return detail::step_clear_mask(mask, f.x - static_cast<float>(cx), f.y - static_cast<float>(cy), d);
}

// Distance from the unit's centre to the nearest wall cell or map edge, up to `limit`.
float Steering::clearance(Vec2 centre, float limit) const {
    const CostField& cost = *terrain_;
    const float reach = limit + 1.0f;
    const int x0 = detail::floor_to_int(centre.x - reach), x1 = detail::floor_to_int(centre.x + reach);
    const int y0 = detail::floor_to_int(centre.y - reach), y1 = detail::floor_to_int(centre.y + reach);
    float best2 = limit * limit;
    for (int y = y0; y <= y1; ++y) {
        for (int x = x0; x <= x1; ++x) {
            if (cost.contains(x, y) && cost.passable(x, y)) continue;
            const float dx = std::max({static_cast<float>(x) - centre.x, 0.0f, centre.x - static_cast<float>(x + 1)});
            const float dy = std::max({static_cast<float>(y) - centre.y, 0.0f, centre.y - static_cast<float>(y + 1)});
            best2 = std::min(best2, dx * dx + dy * dy);
        }
    }
    return std::sqrt(best2);
}

// `dir` (wall-safe for a point at the unit's top-left point f) turned so that the unit's disc keeps
// its clearance from walls (at least its radius, or what it has now when it stands closer) over a
// step of kSampleReach: `dir` when it does, else the legal move of the cell nearest to it that
// does, else `dir`.
Vec2 Steering::keep_clear(Vec2 f, Vec2 dir) const {
    const float lift = 0.5f * static_cast<float>(params_.size - 1);
    const Vec2 c{f.x + lift, f.y + lift};
    const float r = params_.radius;
    const float need = std::min(r, clearance(c, r)) - 1e-3f;
    const auto keeps = [&](Vec2 d) {
        for (float k = 1.0f; k <= kStepProbes; k += 1.0f) {
            const float t = kSampleReach * k / kStepProbes;
            if (clearance({c.x + d.x * t, c.y + d.y * t}, r) < need) return false;
        }
        return true;
    };
    if (keeps(dir)) return dir;
    // The moves of the cell, nearest to dir first.
    const int cx = static_cast<int>(f.x), cy = static_cast<int>(f.y);
    const auto blocked = [this](int x, int y) { return !terrain_->contains(x, y) || !terrain_->passable(x, y); };
    int order[kDirectionCount];
    float dots[kDirectionCount];
    for (int d = 0; d < kDirectionCount; ++d) {
        order[d] = d;
        dots[d] = detail::kMoveUnit[d].x * dir.x + detail::kMoveUnit[d].y * dir.y;
    }
    std::sort(order, order + kDirectionCount,
              [&](int a, int b) { return dots[a] > dots[b] || (dots[a] == dots[b] && a < b); });
    for (const int d : order) {
        if (dots[d] <= 0.0f) break;  // never turn back against the flow
        const int nx = cx + kDirectionDx[d], ny = cy + kDirectionDy[d];
        if (blocked(nx, ny) || ((d & 1) != 0 && (blocked(nx, cy) || blocked(cx, ny)))) continue;
        if (keeps(detail::kMoveUnit[d])) return detail::kMoveUnit[d];
    }
    return dir;
}

void Steering::move(std::span<const float> xs, std::span<const float> ys, std::span<float> out_x,
                    std::span<float> out_y) const {
    TIDE_ASSERT(ys.size() == xs.size() && out_x.size() == xs.size() && out_y.size() == xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const Vec2 v = move(Vec2{xs[i], ys[i]});
        out_x[i] = v.x;
        out_y[i] = v.y;
    }
}

void Steering::sample(std::span<const float> xs, std::span<const float> ys, std::span<float> out_x,
                      std::span<float> out_y) const {
    TIDE_ASSERT(ys.size() == xs.size() && out_x.size() == xs.size() && out_y.size() == xs.size());
    if (view_.flat() && params_.size == 1 && params_.radius == 0.0f) {
        if (transform_.identity()) {
            view_.flat()->sample(xs, ys, out_x, out_y);  // the field's own batch
            return;
        }
        // World units: through the field's batch a block at a time (cell units on the stack).
        constexpr std::size_t kChunk = 256;
        float gx[kChunk], gy[kChunk];
        for (std::size_t base = 0; base < xs.size(); base += kChunk) {
            const std::size_t m = std::min(kChunk, xs.size() - base);
            for (std::size_t i = 0; i < m; ++i) {
                const Vec2 g = transform_.to_grid({xs[base + i], ys[base + i]});
                gx[i] = g.x;
                gy[i] = g.y;
            }
            view_.flat()->sample({gx, m}, {gy, m}, out_x.subspan(base, m), out_y.subspan(base, m));
            for (std::size_t i = 0; i < m; ++i) {
                const Vec2 d = transform_.direction_to_world({out_x[base + i], out_y[base + i]});
                out_x[base + i] = d.x;
                out_y[base + i] = d.y;
            }
        }
        return;
    }
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const Vec2 v = sample(Vec2{xs[i], ys[i]});
        out_x[i] = v.x;
        out_y[i] = v.y;
    }
}

void Steering::steer(std::span<const float> xs, std::span<const float> ys, std::span<SteerMemory> memory,
                     std::span<float> out_x, std::span<float> out_y) const {
    TIDE_ASSERT(ys.size() == xs.size() && memory.size() == xs.size() && out_x.size() == xs.size() &&
                out_y.size() == xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const Vec2 v = steer(Vec2{xs[i], ys[i]}, memory[i]);
        out_x[i] = v.x;
        out_y[i] = v.y;
    }
}

}  // namespace tide
