#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "tide/assert.hpp"
#include "tide/flow_field.hpp"

#include "../grid/always_inline.hpp"
#include "flow_sample.hpp"

namespace tide {

using detail::floor_to_int;
using detail::kMoveUnit;

float FlowField::integration(int x, int y) const {
    TIDE_ASSERT(contains(x, y));
    return integration_[static_cast<std::size_t>(y) * width_ + x];
}

Direction FlowField::direction(int x, int y) const {
    TIDE_ASSERT(contains(x, y));
    return directions_[static_cast<std::size_t>(y) * width_ + x];
}

Vec2 FlowField::vector(int x, int y) const {
    const Direction d = direction(x, y);
    return is_move(d) ? kMoveUnit[static_cast<int>(d)] : Vec2{};
}

std::int64_t FlowField::next_index(int x, int y) const {
    const Direction d = direction(x, y);
    if (!is_move(d)) return -1;
    const int k = static_cast<int>(d);
    return static_cast<std::int64_t>(y + kDirectionDy[k]) * width_ + (x + kDirectionDx[k]);
}

namespace {

// The unit vector of every flow code: the eight moves, then (0, 0) for goal, unreachable and wall
// (and the unused codes), so a blend adds a code's vector without a branch. Adding (0, 0) leaves a
// sum bit for bit as it was, so the result is that of skipping those cells.
constexpr Vec2 kCodeUnit[16] = {
    kMoveUnit[0], kMoveUnit[1], kMoveUnit[2], kMoveUnit[3], kMoveUnit[4], kMoveUnit[5], kMoveUnit[6], kMoveUnit[7],
    {},           {},           {},           {},           {},           {},           {},           {}};

TIDE_ALWAYS_INLINE inline Vec2 code_unit(Direction d) {
    return kCodeUnit[static_cast<unsigned>(d) & 15u];
}

}  // namespace

// The blend of a point p on the field (checked by the caller).
TIDE_ALWAYS_INLINE inline Vec2 FlowField::blend_on_map(Vec2 p) const {
    // Cell centres sit at (i + 0.5, j + 0.5): the four cells around p start at floor(p - 0.5).
    const float fx = p.x - 0.5f;
    const float fy = p.y - 0.5f;
    const int x0 = floor_to_int(fx);
    const int y0 = floor_to_int(fy);
    const float tx = fx - static_cast<float>(x0);
    const float ty = fy - static_cast<float>(y0);
    const float weight[4] = {(1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty};
    Vec2 u[4];
    if (x0 >= 0 && y0 >= 0 && x0 + 1 < width_ && y0 + 1 < height_) {  // all four on the map
        const Direction* const row0 = directions_.data() + static_cast<std::size_t>(y0) * width_ + x0;
        const Direction* const row1 = row0 + width_;
        u[0] = code_unit(row0[0]);
        u[1] = code_unit(row0[1]);
        u[2] = code_unit(row1[0]);
        u[3] = code_unit(row1[1]);
    } else {
        const int cx[4] = {x0, x0 + 1, x0, x0 + 1};
        const int cy[4] = {y0, y0, y0 + 1, y0 + 1};
        for (int i = 0; i < 4; ++i) {
            u[i] = contains(cx[i], cy[i]) ? code_unit(directions_[static_cast<std::size_t>(cy[i]) * width_ + cx[i]])
                                          : Vec2{};
        }
    }
    // Walls, goals and cut-off cells carry no direction: their (0, 0) adds nothing.
    float vx = 0.0f;
    float vy = 0.0f;
    for (int i = 0; i < 4; ++i) {
        vx += weight[i] * u[i].x;
        vy += weight[i] * u[i].y;
    }
    return detail::normalised_or(vx, vy, [&] { return vector(static_cast<int>(p.x), static_cast<int>(p.y)); });
}

Vec2 FlowField::blend(Vec2 p) const {
    if (!(p.x >= 0.0f && p.y >= 0.0f && p.x < static_cast<float>(width_) && p.y < static_cast<float>(height_))) {
        return {};  // also rejects NaN
    }
    return blend_on_map(p);
}

Vec2 FlowField::sample(Vec2 p) const {
    if (!(p.x >= 0.0f && p.y >= 0.0f && p.x < static_cast<float>(width_) && p.y < static_cast<float>(height_))) {
        return {};  // also rejects NaN
    }
    const int cx = static_cast<int>(p.x), cy = static_cast<int>(p.y);
    const Direction* const at = directions_.data() + static_cast<std::size_t>(cy) * width_ + cx;
    if (!is_move(*at)) return {};
    // Which of the eight neighbours are walls (or off the map): bit k for move direction k.
    unsigned blocked = 0;
    if (cx > 0 && cy > 0 && cx + 1 < width_ && cy + 1 < height_) {
        blocked = detail::interior_wall_mask(at, width_);
    } else {
        blocked = detail::neighbour_mask(
            [this](int x, int y) {
                return !contains(x, y) || directions_[static_cast<std::size_t>(y) * width_ + x] == Direction::wall;
            },
            cx, cy);
    }
    const Vec2 v = blend_on_map(p);
    // Away from walls and the map's edge every direction is safe for a step of one cell.
    if (blocked == 0) return v;
    return detail::make_wall_safe_mask(blocked, p.x - static_cast<float>(cx), p.y - static_cast<float>(cy), v,
                                       kMoveUnit[static_cast<int>(*at)]);
}

#if defined(__SSE2__)

namespace {

// The batch sample works on blocks of kBlock positions in three passes: gather (scalar: the cell,
// the blend weights, the four cells' unit vectors and the wall mask of the eight neighbours), blend
// and check (SSE2, four positions at a time: the same float operations in the same order as
// blend_on_map() and step_clear_mask(), so every result is bit for bit the single call's), and a
// fix-up of the few positions the check refuses or the fast path does not cover (the single call).
constexpr int kBlock = 64;

struct SampleBlock {
    alignas(16) float w[4][kBlock];   // blend weights of the four cells around each position
    alignas(16) float ux[4][kBlock];  // their unit vectors ((0, 0) without a move)
    alignas(16) float uy[4][kBlock];
    alignas(16) float lx[kBlock];  // position within its cell
    alignas(16) float ly[kBlock];
    alignas(16) std::int32_t blocked[kBlock];  // wall mask of the eight neighbours (bit k: direction k)
    std::uint8_t slow[kBlock];                 // 1: leave it to the single call
    std::uint8_t own[kBlock];                  // the move of the cell it lies in
};

// SSE2 lane masks of the neighbour bits (see detail::kNeighbourBit).
inline __m128i bits(int k) {
    return _mm_set1_epi32(1 << k);
}

}  // namespace

void FlowField::sample(std::span<const float> xs, std::span<const float> ys, std::span<float> out_x,
                       std::span<float> out_y) const {
    TIDE_ASSERT(ys.size() == xs.size() && out_x.size() == xs.size() && out_y.size() == xs.size());
    const std::size_t n = xs.size();
    const float wmax = static_cast<float>(width_ - 1), hmax = static_cast<float>(height_ - 1);
    const Direction* const dirs = directions_.data();
    SampleBlock b;
    for (std::size_t base = 0; base < n; base += kBlock) {
        const int m = static_cast<int>(std::min<std::size_t>(kBlock, n - base));
        // 1. Gather. Positions at least one cell inside the map, in a cell with a move, take the
        //    fast path: their 3x3 block and the blend's 2x2 block are on the map.
        for (int j = 0; j < m; ++j) {
            const float px = xs[base + j], py = ys[base + j];
            const auto slow = [&b, j] {  // the SIMD pass reads the lane: plain zeros, no NaN
                b.slow[j] = 1;
                for (int c = 0; c < 4; ++c) b.w[c][j] = b.ux[c][j] = b.uy[c][j] = 0.0f;
                b.lx[j] = b.ly[j] = 0.0f;
                b.blocked[j] = 0;
            };
            if (!(px >= 1.0f && py >= 1.0f && px < wmax && py < hmax)) {  // also NaN
                slow();
                continue;
            }
            const int cx = static_cast<int>(px), cy = static_cast<int>(py);
            const Direction* const at = dirs + static_cast<std::size_t>(cy) * width_ + cx;
            if (!is_move(*at)) {
                slow();
                continue;
            }
            const float fx = px - 0.5f, fy = py - 0.5f;
            const int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);  // fx, fy >= 0.5: floor
            const float tx = fx - static_cast<float>(x0), ty = fy - static_cast<float>(y0);
            b.w[0][j] = (1 - tx) * (1 - ty);
            b.w[1][j] = tx * (1 - ty);
            b.w[2][j] = (1 - tx) * ty;
            b.w[3][j] = tx * ty;
            const Direction* const row0 = dirs + static_cast<std::size_t>(y0) * width_ + x0;
            const Direction* const row1 = row0 + width_;
            const Vec2 u[4] = {code_unit(row0[0]), code_unit(row0[1]), code_unit(row1[0]), code_unit(row1[1])};
            for (int c = 0; c < 4; ++c) {
                b.ux[c][j] = u[c].x;
                b.uy[c][j] = u[c].y;
            }
            b.blocked[j] = static_cast<std::int32_t>(detail::interior_wall_mask(at, width_));
            b.lx[j] = px - static_cast<float>(cx);
            b.ly[j] = py - static_cast<float>(cy);
            b.own[j] = static_cast<std::uint8_t>(*at);
            b.slow[j] = 0;
        }
        // 2. Blend, normalise and check four at a time.
        const __m128 one = _mm_set1_ps(1.0f), zero = _mm_setzero_ps(), tiny = _mm_set1_ps(1e-8f);
        const __m128 slack = _mm_set1_ps(detail::kVertexSlack), sign = _mm_set1_ps(-0.0f);
        for (int j = 0; j < m; j += 4) {
            __m128 vx = zero, vy = zero;
            for (int c = 0; c < 4; ++c) {
                const __m128 w = _mm_load_ps(b.w[c] + j);
                vx = _mm_add_ps(vx, _mm_mul_ps(w, _mm_load_ps(b.ux[c] + j)));
                vy = _mm_add_ps(vy, _mm_mul_ps(w, _mm_load_ps(b.uy[c] + j)));
            }
            const __m128 len2 = _mm_add_ps(_mm_mul_ps(vx, vx), _mm_mul_ps(vy, vy));
            const __m128 inv = _mm_div_ps(one, _mm_sqrt_ps(len2));
            vx = _mm_mul_ps(vx, inv);
            vy = _mm_mul_ps(vy, inv);
            // step_clear_mask(): which lines the step of one cell crosses, and the cells it needs.
            const __m128 lx = _mm_load_ps(b.lx + j), ly = _mm_load_ps(b.ly + j);
            const __m128 ex = _mm_add_ps(lx, vx), ey = _mm_add_ps(ly, vy);  // kSafeReach == 1
            const __m128i xpos = _mm_castps_si128(_mm_cmpge_ps(ex, one)),
                          xneg = _mm_castps_si128(_mm_cmplt_ps(ex, zero));
            const __m128i ypos = _mm_castps_si128(_mm_cmpge_ps(ey, one)),
                          yneg = _mm_castps_si128(_mm_cmplt_ps(ey, zero));
            const __m128i side_x = _mm_or_si128(_mm_and_si128(xpos, bits(0)), _mm_and_si128(xneg, bits(4)));
            const __m128i side_y = _mm_or_si128(_mm_and_si128(ypos, bits(2)), _mm_and_si128(yneg, bits(6)));
            const __m128i corner = _mm_or_si128(_mm_or_si128(_mm_and_si128(_mm_and_si128(xpos, ypos), bits(1)),
                                                             _mm_and_si128(_mm_and_si128(xneg, ypos), bits(3))),
                                                _mm_or_si128(_mm_and_si128(_mm_and_si128(xneg, yneg), bits(5)),
                                                             _mm_and_si128(_mm_and_si128(xpos, yneg), bits(7))));
            const __m128i both = _mm_and_si128(_mm_or_si128(xpos, xneg), _mm_or_si128(ypos, yneg));
            const __m128 gx = _mm_or_ps(_mm_and_ps(_mm_castsi128_ps(xpos), _mm_sub_ps(one, lx)),
                                        _mm_andnot_ps(_mm_castsi128_ps(xpos), lx));
            const __m128 gy = _mm_or_ps(_mm_and_ps(_mm_castsi128_ps(ypos), _mm_sub_ps(one, ly)),
                                        _mm_andnot_ps(_mm_castsi128_ps(ypos), ly));
            const __m128 ax = _mm_andnot_ps(sign, vx), ay = _mm_andnot_ps(sign, vy);
            const __m128 s = _mm_mul_ps(_mm_mul_ps(slack, ax), ay);
            const __m128 a = _mm_mul_ps(gx, ay), bb = _mm_mul_ps(gy, ax);
            const __m128i lt = _mm_castps_si128(_mm_cmplt_ps(a, _mm_sub_ps(bb, s)));
            const __m128i gt = _mm_andnot_si128(lt, _mm_castps_si128(_mm_cmplt_ps(bb, _mm_sub_ps(a, s))));
            const __m128i tie = _mm_andnot_si128(_mm_or_si128(lt, gt), _mm_set1_epi32(-1));
            const __m128i first = _mm_or_si128(_mm_or_si128(_mm_and_si128(lt, side_x), _mm_and_si128(gt, side_y)),
                                               _mm_and_si128(tie, _mm_or_si128(side_x, side_y)));
            const __m128i sides =
                _mm_or_si128(_mm_and_si128(both, first), _mm_andnot_si128(both, _mm_or_si128(side_x, side_y)));
            const __m128i need = _mm_or_si128(corner, sides);
            const __m128i hit = _mm_and_si128(need, _mm_load_si128(reinterpret_cast<const __m128i*>(b.blocked + j)));
            const int refused = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(hit, _mm_setzero_si128()))) ^ 0xF;
            const int small = _mm_movemask_ps(_mm_cmplt_ps(len2, tiny));
            alignas(16) float ox[4], oy[4];
            _mm_store_ps(ox, vx);
            _mm_store_ps(oy, vy);
            for (int k = 0; k < 4 && j + k < m; ++k) {
                const std::size_t i = base + static_cast<std::size_t>(j + k);
                Vec2 v{ox[k], oy[k]};
                if (b.slow[j + k] || (small >> k & 1)) {
                    // 3. Fix-up: the single call at the map's edge, without a move or for a
                    //    vanishing blend; a step the check refuses is turned toward the cell's move.
                    v = sample(Vec2{xs[i], ys[i]});
                } else if (refused >> k & 1) {
                    v = detail::make_wall_safe_mask(static_cast<unsigned>(b.blocked[j + k]), b.lx[j + k], b.ly[j + k],
                                                    v, kMoveUnit[b.own[j + k]]);
                }
                out_x[i] = v.x;
                out_y[i] = v.y;
            }
        }
    }
}

#else

void FlowField::sample(std::span<const float> xs, std::span<const float> ys, std::span<float> out_x,
                       std::span<float> out_y) const {
    TIDE_ASSERT(ys.size() == xs.size() && out_x.size() == xs.size() && out_y.size() == xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const Vec2 v = sample(Vec2{xs[i], ys[i]});
        out_x[i] = v.x;
        out_y[i] = v.y;
    }
}

#endif

namespace {

double move_price(const CostField& cost, const FieldParams& params, int x, int y, int d) {
    const double c = cost.at(x + kDirectionDx[d], y + kDirectionDy[d]);
    return (d & 1) ? c * params.diagonal_factor : c;
}

}  // namespace

double flow_path_cost(const CostField& cost, const FlowField& field, const FieldParams& params, Cell cell) {
    TIDE_ASSERT(cost.width() == field.width() && cost.height() == field.height());
    double sum = 0.0;
    int x = cell.x, y = cell.y;
    // A field's flow has no cycle, so a path visits at most W*H cells; the bound guards misuse.
    for (std::size_t steps = 0; steps <= static_cast<std::size_t>(field.width()) * field.height(); ++steps) {
        const Direction d = field.direction(x, y);
        if (d == Direction::goal) return sum;
        if (!is_move(d)) return std::numeric_limits<double>::infinity();
        const int k = static_cast<int>(d);
        sum += move_price(cost, params, x, y, k);
        x += kDirectionDx[k];
        y += kDirectionDy[k];
    }
    return std::numeric_limits<double>::infinity();
}

void flow_path_costs(const CostField& cost, const FlowField& field, const FieldParams& params, std::span<double> out) {
    const int w = field.width();
    const std::size_t n = static_cast<std::size_t>(w) * field.height();
    TIDE_ASSERT(cost.width() == w && cost.height() == field.height() && out.size() == n);
    constexpr double kUnknown = -1.0;
    std::fill(out.begin(), out.end(), kUnknown);
    std::vector<std::size_t> path;
    for (std::size_t start = 0; start < n; ++start) {
        if (out[start] != kUnknown) continue;
        // Walk until a cell whose cost is known (or a goal / no-move cell), then unwind.
        std::size_t c = start;
        path.clear();
        double base = 0.0;
        for (;;) {
            if (out[c] != kUnknown) {
                base = out[c];
                break;
            }
            const Direction d = field.directions()[c];
            if (d == Direction::goal) {
                out[c] = base = 0.0;
                break;
            }
            if (!is_move(d) || path.size() > n) {
                out[c] = base = std::numeric_limits<double>::infinity();
                break;
            }
            path.push_back(c);
            c = static_cast<std::size_t>(field.next_index(static_cast<int>(c % w), static_cast<int>(c / w)));
        }
        for (auto it = path.rbegin(); it != path.rend(); ++it) {
            const int x = static_cast<int>(*it % w), y = static_cast<int>(*it / w);
            base += move_price(cost, params, x, y, static_cast<int>(field.direction(x, y)));
            out[*it] = base;
        }
    }
}

}  // namespace tide
