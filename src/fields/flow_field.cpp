#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
// The AVX2 batch (chosen at run time, x86-64 with GCC or clang): see sample_block_avx2().
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__EMSCRIPTEN__)
#define TIDE_SAMPLE_AVX2 1
#include <immintrin.h>
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

// The batch sample works on blocks of kBlock positions. Where the CPU has AVX2 (asked at run time)
// sample_block_avx2() below does eight at a time; else three passes: gather (scalar: the cell,
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

#if defined(TIDE_SAMPLE_AVX2)

// Whether this CPU runs AVX2 (asked once; the answer never changes).
bool cpu_has_avx2() {
    static const bool has = __builtin_cpu_supports("avx2") != 0;
    return has;
}

// The batch eight positions at a time with AVX2, for m (a multiple of 8) positions: the same float
// operations in the same order as the single call (no fused multiply-add: the target is avx2
// alone), so every result is bit for bit sample(Vec2). The 3x3 block around a position's cell
// comes in three gathered 4-byte words (columns cx - 1 .. cx + 2), from which the blend's four
// codes and the wall mask are taken by shifts. flags[j]: 0 done; 1 the single call must answer
// (off the fast path: near the map's edge, no move, NaN, a vanishing blend); 2 the step check
// refused the blend in out (make_wall_safe_mask() turns it).
__attribute__((target("avx2"))) void sample_block_avx2(const Direction* dirs, int width, int height, const float* xs,
                                                       const float* ys, int m, float* ox, float* oy,
                                                       std::uint8_t* flags) {
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps(), half = _mm256_set1_ps(0.5f);
    const __m256 tiny = _mm256_set1_ps(1e-8f), slack = _mm256_set1_ps(detail::kVertexSlack);
    const __m256 sign = _mm256_set1_ps(-0.0f), safe = _mm256_set1_ps(1.5f);
    // Columns cx - 1 .. cx + 2 and rows cy - 1 .. cy + 1 on the map: 1 <= x < width - 2.
    const __m256 xmax = _mm256_set1_ps(static_cast<float>(width - 2)),
                 ymax = _mm256_set1_ps(static_cast<float>(height - 1));
    const __m256 tabx = _mm256_setr_ps(kMoveUnit[0].x, kMoveUnit[1].x, kMoveUnit[2].x, kMoveUnit[3].x, kMoveUnit[4].x,
                                       kMoveUnit[5].x, kMoveUnit[6].x, kMoveUnit[7].x);
    const __m256 taby = _mm256_setr_ps(kMoveUnit[0].y, kMoveUnit[1].y, kMoveUnit[2].y, kMoveUnit[3].y, kMoveUnit[4].y,
                                       kMoveUnit[5].y, kMoveUnit[6].y, kMoveUnit[7].y);
    const __m256i wall = _mm256_set1_epi8(static_cast<char>(Direction::wall));
    const __m256i ff = _mm256_set1_epi32(0xFF), i1 = _mm256_set1_epi32(1), i7 = _mm256_set1_epi32(7);
    const __m256i i8 = _mm256_set1_epi32(8), w1 = _mm256_set1_epi32(width), w2 = _mm256_set1_epi32(2 * width);
    const int* const base = reinterpret_cast<const int*>(dirs);
#define bits(k) _mm256_set1_epi32(1 << (k))
// Bit k of each lane: byte b of the lane's word was the wall code (e: a cmpeq_epi8 result).
#define byte_bit(e, b, k) _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32((e), 8 * (b) + 7), i1), (k))
    for (int j = 0; j < m; j += 8) {
        __m256 px = _mm256_loadu_ps(xs + j), py = _mm256_loadu_ps(ys + j);
        const __m256 inside =
            _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(px, one, _CMP_GE_OQ), _mm256_cmp_ps(py, one, _CMP_GE_OQ)),
                          _mm256_and_ps(_mm256_cmp_ps(px, xmax, _CMP_LT_OQ), _mm256_cmp_ps(py, ymax, _CMP_LT_OQ)));
        px = _mm256_blendv_ps(safe, px, inside);  // lanes off the fast path read a cell that exists
        py = _mm256_blendv_ps(safe, py, inside);
        const __m256i cx = _mm256_cvttps_epi32(px), cy = _mm256_cvttps_epi32(py);
        const __m256 fx = _mm256_sub_ps(px, half), fy = _mm256_sub_ps(py, half);
        const __m256i x0 = _mm256_cvttps_epi32(fx), y0 = _mm256_cvttps_epi32(fy);  // fx, fy >= 0.5: floor
        const __m256 tx = _mm256_sub_ps(fx, _mm256_cvtepi32_ps(x0)), ty = _mm256_sub_ps(fy, _mm256_cvtepi32_ps(y0));
        const __m256i at = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(cy, i1), w1), _mm256_sub_epi32(cx, i1));
        const __m256i r0 = _mm256_i32gather_epi32(base, at, 1);
        const __m256i r1 = _mm256_i32gather_epi32(base, _mm256_add_epi32(at, w1), 1);
        const __m256i r2 = _mm256_i32gather_epi32(base, _mm256_add_epi32(at, w2), 1);
        const __m256i own = _mm256_and_si256(_mm256_srli_epi32(r1, 8), ff);
        const __m256i slow = _mm256_or_si256(_mm256_xor_si256(_mm256_castps_si256(inside), _mm256_set1_epi32(-1)),
                                             _mm256_cmpgt_epi32(own, i7));
        // The blend's 2x2 block: rows y0 (top) and y0 + 1, columns x0 and x0 + 1.
        const __m256i lower = _mm256_cmpeq_epi32(_mm256_sub_epi32(y0, cy), _mm256_setzero_si256());
        const __m256i top = _mm256_blendv_epi8(r0, r1, lower), bottom = _mm256_blendv_epi8(r1, r2, lower);
        const __m256i sx = _mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(x0, cx), i1), 3);
        const __m256i sx8 = _mm256_add_epi32(sx, i8);
        const __m256i c[4] = {
            _mm256_and_si256(_mm256_srlv_epi32(top, sx), ff), _mm256_and_si256(_mm256_srlv_epi32(top, sx8), ff),
            _mm256_and_si256(_mm256_srlv_epi32(bottom, sx), ff), _mm256_and_si256(_mm256_srlv_epi32(bottom, sx8), ff)};
        const __m256 omt = _mm256_sub_ps(one, tx), omu = _mm256_sub_ps(one, ty);
        const __m256 w[4] = {_mm256_mul_ps(omt, omu), _mm256_mul_ps(tx, omu), _mm256_mul_ps(omt, ty),
                             _mm256_mul_ps(tx, ty)};
        __m256 vx = zero, vy = zero;
        for (int k = 0; k < 4; ++k) {
            const __m256 move = _mm256_castsi256_ps(_mm256_cmpgt_epi32(i8, c[k]));  // codes 0..7: a move
            const __m256 ux = _mm256_and_ps(_mm256_permutevar8x32_ps(tabx, c[k]), move);
            const __m256 uy = _mm256_and_ps(_mm256_permutevar8x32_ps(taby, c[k]), move);
            vx = _mm256_add_ps(vx, _mm256_mul_ps(w[k], ux));
            vy = _mm256_add_ps(vy, _mm256_mul_ps(w[k], uy));
        }
        const __m256 len2 = _mm256_add_ps(_mm256_mul_ps(vx, vx), _mm256_mul_ps(vy, vy));
        const __m256 inv = _mm256_div_ps(one, _mm256_sqrt_ps(len2));
        vx = _mm256_mul_ps(vx, inv);
        vy = _mm256_mul_ps(vy, inv);
        // The wall mask of the eight neighbours (bit k: direction k; detail::interior_wall_mask()).
        const __m256i e0 = _mm256_cmpeq_epi8(r0, wall), e1 = _mm256_cmpeq_epi8(r1, wall),
                      e2 = _mm256_cmpeq_epi8(r2, wall);
        const __m256i blocked =
            _mm256_or_si256(_mm256_or_si256(_mm256_or_si256(byte_bit(e1, 2, 0), byte_bit(e2, 2, 1)),
                                            _mm256_or_si256(byte_bit(e2, 1, 2), byte_bit(e2, 0, 3))),
                            _mm256_or_si256(_mm256_or_si256(byte_bit(e1, 0, 4), byte_bit(e0, 0, 5)),
                                            _mm256_or_si256(byte_bit(e0, 1, 6), byte_bit(e0, 2, 7))));
        // step_clear_mask(), as the SSE2 pass does it.
        const __m256 lx = _mm256_sub_ps(px, _mm256_cvtepi32_ps(cx)), ly = _mm256_sub_ps(py, _mm256_cvtepi32_ps(cy));
        const __m256 ex = _mm256_add_ps(lx, vx), ey = _mm256_add_ps(ly, vy);  // kSafeReach == 1
        const __m256i xpos = _mm256_castps_si256(_mm256_cmp_ps(ex, one, _CMP_GE_OQ));
        const __m256i xneg = _mm256_castps_si256(_mm256_cmp_ps(ex, zero, _CMP_LT_OQ));
        const __m256i ypos = _mm256_castps_si256(_mm256_cmp_ps(ey, one, _CMP_GE_OQ));
        const __m256i yneg = _mm256_castps_si256(_mm256_cmp_ps(ey, zero, _CMP_LT_OQ));
        const __m256i side_x = _mm256_or_si256(_mm256_and_si256(xpos, bits(0)), _mm256_and_si256(xneg, bits(4)));
        const __m256i side_y = _mm256_or_si256(_mm256_and_si256(ypos, bits(2)), _mm256_and_si256(yneg, bits(6)));
        const __m256i corner =
            _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(_mm256_and_si256(xpos, ypos), bits(1)),
                                            _mm256_and_si256(_mm256_and_si256(xneg, ypos), bits(3))),
                            _mm256_or_si256(_mm256_and_si256(_mm256_and_si256(xneg, yneg), bits(5)),
                                            _mm256_and_si256(_mm256_and_si256(xpos, yneg), bits(7))));
        const __m256i both = _mm256_and_si256(_mm256_or_si256(xpos, xneg), _mm256_or_si256(ypos, yneg));
        const __m256 gx = _mm256_blendv_ps(lx, _mm256_sub_ps(one, lx), _mm256_castsi256_ps(xpos));
        const __m256 gy = _mm256_blendv_ps(ly, _mm256_sub_ps(one, ly), _mm256_castsi256_ps(ypos));
        const __m256 ax = _mm256_andnot_ps(sign, vx), ay = _mm256_andnot_ps(sign, vy);
        const __m256 sl = _mm256_mul_ps(_mm256_mul_ps(slack, ax), ay);
        const __m256 a = _mm256_mul_ps(gx, ay), b = _mm256_mul_ps(gy, ax);
        const __m256i lt = _mm256_castps_si256(_mm256_cmp_ps(a, _mm256_sub_ps(b, sl), _CMP_LT_OQ));
        const __m256i gt =
            _mm256_andnot_si256(lt, _mm256_castps_si256(_mm256_cmp_ps(b, _mm256_sub_ps(a, sl), _CMP_LT_OQ)));
        const __m256i tie = _mm256_andnot_si256(_mm256_or_si256(lt, gt), _mm256_set1_epi32(-1));
        const __m256i first =
            _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(lt, side_x), _mm256_and_si256(gt, side_y)),
                            _mm256_and_si256(tie, _mm256_or_si256(side_x, side_y)));
        const __m256i sides =
            _mm256_or_si256(_mm256_and_si256(both, first), _mm256_andnot_si256(both, _mm256_or_si256(side_x, side_y)));
        const __m256i hit = _mm256_and_si256(_mm256_or_si256(corner, sides), blocked);
        const int refused =
            _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(hit, _mm256_setzero_si256()))) ^ 0xFF;
        const int redo =
            _mm256_movemask_ps(_mm256_cmp_ps(len2, tiny, _CMP_LT_OQ)) | _mm256_movemask_ps(_mm256_castsi256_ps(slow));
        _mm256_storeu_ps(ox + j, vx);
        _mm256_storeu_ps(oy + j, vy);
        for (int k = 0; k < 8; ++k)
            flags[j + k] = static_cast<std::uint8_t>((redo >> k & 1) ? 1 : (refused >> k & 1) ? 2 : 0);
    }
#undef bits
#undef byte_bit
}

#endif  // TIDE_SAMPLE_AVX2

}  // namespace

void FlowField::sample(std::span<const float> xs, std::span<const float> ys, std::span<float> out_x,
                       std::span<float> out_y) const {
    TIDE_ASSERT(ys.size() == xs.size() && out_x.size() == xs.size() && out_y.size() == xs.size());
    const std::size_t n = xs.size();
#if defined(TIDE_SAMPLE_AVX2)
    // Maps at least 4x3 (the 3x3 block and the fourth column exist) whose cell indices fit the
    // gathers' 32-bit offsets.
    if (cpu_has_avx2() && width_ >= 4 && height_ >= 3 &&
        static_cast<std::int64_t>(width_) * height_ < (std::int64_t{1} << 31) - 4) {
        std::uint8_t flags[kBlock];
        for (std::size_t base = 0; base < n; base += kBlock) {
            const int m = static_cast<int>(std::min<std::size_t>(kBlock, n - base));
            const int m8 = m & ~7;
            sample_block_avx2(directions_.data(), width_, height_, xs.data() + base, ys.data() + base, m8,
                              out_x.data() + base, out_y.data() + base, flags);
            for (int j = 0; j < m; ++j) {
                const std::size_t i = base + static_cast<std::size_t>(j);
                if (j < m8 && flags[j] == 0) continue;
                const Vec2 p{xs[i], ys[i]};
                Vec2 v;
                if (j >= m8 || flags[j] == 1) {
                    v = sample(p);
                } else {  // refused: turned toward the cell's move, as the single call does
                    const int cx = static_cast<int>(p.x), cy = static_cast<int>(p.y);
                    const Direction* const at = directions_.data() + static_cast<std::size_t>(cy) * width_ + cx;
                    v = detail::make_wall_safe_mask(detail::interior_wall_mask(at, width_),
                                                    p.x - static_cast<float>(cx), p.y - static_cast<float>(cy),
                                                    Vec2{out_x[i], out_y[i]}, kMoveUnit[static_cast<int>(*at)]);
                }
                out_x[i] = v.x;
                out_y[i] = v.y;
            }
        }
        return;
    }
#endif
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
