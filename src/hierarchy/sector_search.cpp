#include "sector_search.hpp"
#include "tide/detail/compat.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "../fields/move_codes.hpp"
#include "../grid/always_inline.hpp"
#include "tide/assert.hpp"

namespace tide::hier_detail {
namespace {

static_assert(SectorSearch::kInf == SectorSearch::Fixed{0} - SectorSearch::Fixed{1});

/// Cost units (non-negative, finite, below 2^46) to fixed point, rounded to nearest: the same as
/// std::llround of value x 2^16 except at exact ties of the double sum (no call into libm: seeds
/// are hot). Through a signed conversion, one instruction (an unsigned one is a branch and two);
/// values stay far below 2^46: a path on the largest map (kMaxDimension squared cells, each
/// entered at most once at cost 254 x a diagonal factor of at most 2) costs at most about 2^37.
SectorSearch::Fixed to_fixed(double value) noexcept {
    return static_cast<SectorSearch::Fixed>(static_cast<std::int64_t>(value * 65536.0 + 0.5));
}

/// A reached cell's value in cost units, as a float. Values are below 2^63 (kInf aside): a signed
/// conversion is one instruction, and scaling a float by 2^-16 is exact, so this rounds once, as
/// through a double. write_field() and write_lowered() both use it: they must agree bit for bit.
float fixed_value(SectorSearch::Fixed d) noexcept {
    return static_cast<float>(static_cast<std::int64_t>(d)) * 0x1p-16f;
}

/// A reached cell's flow code: the move its value came through, or `goal` for a seeded cell at 0.
std::uint32_t reached_code(std::uint8_t goal, SectorSearch::Fixed d, std::uint8_t via) noexcept {
    constexpr auto kGoal = static_cast<std::uint32_t>(Direction::goal);
    const std::uint32_t at_goal = static_cast<std::uint32_t>(goal != 0) & static_cast<std::uint32_t>(d == 0);
    return via + at_goal * (kGoal - via);
}

}  // namespace

void SectorSearch::load(const CostField& cost, int x0, int y0, int x1, int y1, const FieldParams& params) {
    x0_ = x0;
    y0_ = y0;
    x1_ = x1;
    y1_ = y1;
    pw_ = (x1 - x0) + 4;
    ph_ = (y1 - y0) + 4;
    eight_ = params.connectivity == Connectivity::eight;
    const std::size_t n = static_cast<std::size_t>(pw_) * ph_;
    cost_.assign(n, kCostWall);
    kind_.assign(n, kNone);
    goal_.assign(n, 0);
    dist_.assign(n, 0);
    via_.assign(n, 0);
    Cost lo = kCostWall, hi = 1;
    const std::span<const Cost> cells = cost.cells();
    const int mw = cost.width();
    const int cx0 = std::max(x0 - 1, 0), cx1 = std::min(x1 + 1, mw);
    // Row by row with pointers: frame cells (the rows above and below, the columns beside) are
    // kFrame when passable; rectangle cells kRegion with value +inf (every other cell holds 0).
    for (int y = std::max(y0 - 1, 0); y <= y1 && y < cost.height(); ++y) {
        const Cost* row = cells.data() + static_cast<std::size_t>(y) * mw;
        const std::size_t base = static_cast<std::size_t>(local(cx0, y));  // local(x, y) = base + x - cx0
        Cost* const c_out = cost_.data() + base;
        std::uint8_t* const k_out = kind_.data() + base;
        Fixed* const d_out = dist_.data() + base;
        std::copy(row + cx0, row + cx1, c_out);
        const bool row_inside = y >= y0 && y < y1;
        const int ix0 = row_inside ? x0 : cx1, ix1 = row_inside ? x1 : cx1;  // rectangle columns
        static_assert(kNone == 0 && kRegion == 1 && kFrame == 2);
        // Arithmetic instead of branches (walls are scattered): kind 2 x open - region, value
        // all ones (kInf) for region cells; a wall's cost is kCostWall, which leaves lo alone.
        for (int x = cx0; x < cx1; ++x) {
            const Cost c = row[x];
            const unsigned open = c != kCostWall;
            const unsigned region = open & static_cast<unsigned>(x >= ix0) & static_cast<unsigned>(x < ix1);
            k_out[x - cx0] = static_cast<std::uint8_t>(2 * open - region);
            d_out[x - cx0] = Fixed{0} - Fixed{region};
            lo = std::min(lo, c);
            hi = std::max(hi, static_cast<Cost>(c * open));
        }
    }
    if (lo == kCostWall) lo = 1;
    if (table_factor_ != params.diagonal_factor) {  // the move tables depend only on the factor
        table_factor_ = params.diagonal_factor;
        const double one = std::ldexp(1.0, kFrac);
        for (int c = 1; c <= kCostMax; ++c) {
            orth_[c] = static_cast<Fixed>(c) << kFrac;
            diag_[c] = static_cast<Fixed>(std::llround(c * params.diagonal_factor * one));
        }
    }
    // Bucket width: the largest power of two not above the cheapest move (diagonals cost at least
    // as much as orthogonal moves, the factor being at least 1).
    shift_ = kFrac + std::bit_width(static_cast<unsigned>(lo)) - 1;
    const Fixed max_move = eight_ ? diag_[hi] : orth_[hi];
    ring_ = std::bit_ceil(static_cast<std::size_t>(max_move >> shift_) + 2);  // a power of two: index by mask
    if (buckets_.size() < ring_) buckets_.resize(ring_);
    const std::int32_t w = pw_;
    const std::int32_t o[8] = {1, w + 1, w, w - 1, -1, -w - 1, -w, -w + 1};
    std::copy(o, o + 8, off_);
    seeds_.clear();
    preset_ = false;
}

void SectorSearch::reset() {
    // Only the rectangle's passable cells can take a value; every other cell holds 0, so the
    // plain "offer < value" test rejects them (and settled cells) without a look at their kind.
    for (std::size_t i = 0; i < dist_.size(); ++i) dist_[i] = kind_[i] == kRegion ? kInf : 0;
    std::fill(goal_.begin(), goal_.end(), std::uint8_t{0});
    seeds_.clear();
    preset_ = false;
}

void SectorSearch::preset(std::span<const float> values, std::span<const Direction> directions) {
    preset_ = true;
    const int w = x1_ - x0_;
    for (int y = y0_; y < y1_; ++y) {
        // Row pointers in locals: the byte stores may alias anything, so through the members the
        // compiler reloaded every array's address for every cell.
        const std::size_t o = static_cast<std::size_t>(y - y0_) * w;
        const std::size_t b = static_cast<std::size_t>(local(x0_, y));
        const float* const v_in = values.data() + o;
        const Direction* const d_in = directions.data() + o;
        const std::uint8_t* const kind = kind_.data() + b;
        Fixed* const dist = dist_.data() + b;
        std::uint8_t* const goal_out = goal_.data() + b;
        std::uint8_t* const via = via_.data() + b;
        for (int x = 0; x < w; ++x) {
            // Selects, not branches: walls and unreached cells are scattered.
            const float raw = v_in[x];
            const bool take = (kind[x] == kRegion) & (raw < kUnreachable);
            const float v = tide::detail::bit_cast<float>(tide::detail::bit_cast<std::uint32_t>(raw) &
                                                          (0u - static_cast<unsigned>(take)));
            const bool goal = take & (d_in[x] == Direction::goal);
            const Fixed keep = Fixed{take} - 1;  // all ones when the cell keeps what it has
            dist[x] = (dist[x] & keep) | (to_fixed(static_cast<double>(v)) & ~keep);
            goal_out[x] = static_cast<std::uint8_t>(goal_out[x] | goal);
            const auto code = static_cast<std::uint8_t>(static_cast<unsigned>(d_in[x]) * !goal);
            via[x] = static_cast<std::uint8_t>((via[x] & keep) | (code & ~keep));
        }
    }
}

void SectorSearch::seed(int x, int y, double value) {
    if (x < x0_ - 1 || y < y0_ - 1 || x > x1_ || y > y1_) return;
    const std::int32_t i = local(x, y);
    // +inf, NaN and values no map can reach (2^46 and above: see to_fixed) seed nothing.
    if (kind_[static_cast<std::size_t>(i)] == kNone || !(value >= 0.0) || !(value < 0x1p46)) return;
    const Fixed v = to_fixed(value);
    if (kind_[static_cast<std::size_t>(i)] == kRegion) goal_[static_cast<std::size_t>(i)] = 1;
    seeds_.push_back({v, i});
}

void SectorSearch::run(std::span<const std::int32_t> stop_cells) {
    if (eight_) {
        run_impl<true>(stop_cells);
    } else {
        run_impl<false>(stop_cells);
    }
}

std::size_t SectorSearch::mark_stops(std::span<const std::int32_t> stop_cells) {
    std::size_t stops = 0;
    if (stop_.size() != kind_.size()) stop_.assign(kind_.size(), 0);
    for (std::int32_t c : stop_cells) {
        if (kind_[static_cast<std::size_t>(c)] == kRegion && !stop_[static_cast<std::size_t>(c)]) {
            stop_[static_cast<std::size_t>(c)] = 1;
            ++stops;
        }
    }
    return stops;
}

void SectorSearch::end_run(std::span<const std::int32_t> stop_cells) {
    for (std::int32_t c : stop_cells) stop_[static_cast<std::size_t>(c)] = 0;
    for (auto& k : kind_) k &= static_cast<std::uint8_t>(~kDone);
    for (auto& bk : buckets_) bk.size = 0;
}

// Buckets are stacks with room kept for one settled cell's offers, so an offer appends without a
// branch and counts only when it improves.
TIDE_ALWAYS_INLINE inline void SectorSearch::make_room(Bucket& bk) {
    if (bk.data.size() < bk.size + 8) bk.data.resize(std::max<std::size_t>(64, 2 * (bk.size + 8)));
}

// Offers from a settled cell y with value dy to the neighbours that would move into it. The
// neighbour x that moves into y in direction d sits at y - off[d]; a diagonal needs both cells
// beside the move passable: y - off[d -+ 1] seen from y. Flags are combined with & (walls are
// scattered: short-circuit branches would mispredict); only the bucket count depends on them.
template <bool Eight>
TIDE_ALWAYS_INLINE inline void SectorSearch::relax(Frontier& f, std::int32_t y, Fixed dy) {
    const Cost* const cost = f.cost;
    Fixed* const dist = f.dist;
    std::uint8_t* const via = f.via;
    const std::int32_t* const off = f.off;
    const Cost cy = cost[y];
    const Fixed po = dy + orth_[cy];
    const Fixed pd = dy + diag_[cy];
    const bool open_o[4] = {cost[y - off[0]] != kCostWall, cost[y - off[2]] != kCostWall, cost[y - off[4]] != kCostWall,
                            cost[y - off[6]] != kCostWall};
    Bucket& bo = buckets_[static_cast<std::size_t>(po >> f.shift) & f.mask];
    Bucket& bd = buckets_[static_cast<std::size_t>(pd >> f.shift) & f.mask];
    make_room(bo);
    make_room(bd);
    // The stacks' tops in locals: the byte stores into `via` may alias anything in memory, so
    // with the buckets' own fields the compiler reloaded them after every offer. When the
    // orthogonal and diagonal prices share a bucket (it depends on where the value lies in
    // its bucket: a branch on it mispredicts), the diagonal offers go on after the orthogonal
    // ones in that one stack, chosen with selects.
    auto offer = [&](int d, Fixed v, bool legal_move, std::int32_t* stack, std::size_t& top) TIDE_ALWAYS_INLINE {
        const std::int32_t x = y - off[d];
        // Old values read first, so the selects are cmovs: as `ok ? v : dist[x]` the
        // compiler branched around the read, and improvements are scattered.
        const Fixed was = dist[x];
        const std::uint8_t was_via = via[x];
        const bool ok = legal_move & (v < was);
        dist[x] = ok ? v : was;
        via[x] = ok ? static_cast<std::uint8_t>(d) : was_via;
        stack[top] = x;
        top += ok;
    };
    const bool same = &bo == &bd;
    const std::size_t o0 = bo.size, d0 = bd.size;
    std::int32_t* const so = bo.data.data();
    std::int32_t* const sd_own = bd.data.data();
    std::size_t to = o0;
    offer(0, po, true, so, to);
    offer(2, po, true, so, to);
    offer(4, po, true, so, to);
    offer(6, po, true, so, to);
    if constexpr (Eight) {
        std::int32_t* const sd = same ? so : sd_own;
        const std::size_t td0 = same ? to : d0;
        std::size_t td = td0;
        offer(1, pd, open_o[0] & open_o[1], sd, td);
        offer(3, pd, open_o[1] & open_o[2], sd, td);
        offer(5, pd, open_o[2] & open_o[3], sd, td);
        offer(7, pd, open_o[3] & open_o[0], sd, td);
        f.queued += (to - o0) + (td - td0);
        bo.size = same ? td : to;
        bd.size = td;  // the same field as bo.size when the buckets are one: td is its top
    } else {
        f.queued += to - o0;
        bo.size = to;
    }
}

template <bool Eight>
void SectorSearch::run_impl(std::span<const std::int32_t> stop_cells) {
    // Ties on the cell: the order of equal values is never the standard library's choice (lockstep).
    std::sort(seeds_.begin(), seeds_.end(),
              [](const Seed& a, const Seed& b) { return a.value != b.value ? a.value < b.value : a.cell < b.cell; });
    Frontier f{dist_.data(), via_.data(), cost_.data(), {}, ring_ - 1, shift_, 0};
    std::copy(off_, off_ + 8, f.off);
    Fixed* const dist = f.dist;
    std::uint8_t* const state = kind_.data();  // kDone marks settled cells (read once per pop)
    const std::size_t mask = f.mask;
    const int shift = f.shift;
    std::size_t next_seed = 0;
    std::size_t stops_left = mark_stops(stop_cells);
    const bool stopping = stops_left > 0;
    const bool record = preset_;  // a lowering: write_lowered() writes back only what it settles
    lowered_.clear();
    std::uint64_t b = 0;
    for (;;) {
        if (f.queued == 0) {
            if (next_seed == seeds_.size()) break;
            b = seeds_[next_seed].value >> shift;
        } else {
            while (buckets_[static_cast<std::size_t>(b) & mask].size == 0 &&
                   !(next_seed < seeds_.size() && (seeds_[next_seed].value >> shift) <= b)) {
                ++b;
            }
        }
        // Seeds reached: a goal in the rectangle takes its value and is queued; a frame cell is
        // settled on the spot (it never takes a value from the search, so its seed is final).
        for (; next_seed < seeds_.size() && (seeds_[next_seed].value >> shift) <= b; ++next_seed) {
            const Seed& sd = seeds_[next_seed];
            if (kind_[static_cast<std::size_t>(sd.cell)] == kRegion) {
                if (sd.value < dist[sd.cell]) {
                    dist[sd.cell] = sd.value;
                    Bucket& bk = buckets_[static_cast<std::size_t>(sd.value >> shift) & mask];
                    make_room(bk);
                    bk.data[bk.size++] = sd.cell;
                    ++f.queued;
                }
            } else {
                relax<Eight>(f, sd.cell, sd.value);
            }
        }
        // The bucket's cells are final (see field_builder.cpp): settle them.
        Bucket& bucket = buckets_[static_cast<std::size_t>(b) & mask];
        while (bucket.size > 0) {
            const std::int32_t y = bucket.data[--bucket.size];
            --f.queued;
            if ((state[y] & kDone) || (dist[y] >> shift) != b) continue;  // settled, or a stale entry
            state[y] |= kDone;
            if (record) lowered_.push_back(y);
            if (stopping && stop_[static_cast<std::size_t>(y)] && --stops_left == 0) {
                end_run(stop_cells);
                return;
            }
            relax<Eight>(f, y, dist[y]);
        }
        ++b;
    }
    end_run(stop_cells);
}

void SectorSearch::write_field(std::span<float> values, std::span<Direction> directions) const {
    constexpr std::uint32_t kInfBits = 0x7f800000u;  // +inf
    static_assert(tide::detail::bit_cast<std::uint32_t>(kUnreachable) == kInfBits);
    constexpr auto kWall = static_cast<std::uint32_t>(Direction::wall);
    constexpr auto kUnreachableCode = static_cast<std::uint32_t>(Direction::unreachable);
    // The move of a cell is the one its final value came through (the search records it). Masks
    // instead of branches: walls and unreached cells are scattered.
    const int w = x1_ - x0_;
    for (int y = y0_; y < y1_; ++y) {
        const std::size_t o = static_cast<std::size_t>(y - y0_) * w;
        const std::size_t b = static_cast<std::size_t>(local(x0_, y));
        const Fixed* const dist = dist_.data() + b;
        const std::uint8_t* const kind = kind_.data() + b;
        const std::uint8_t* const goal = goal_.data() + b;
        const std::uint8_t* const via = via_.data() + b;
        float* const v_out = values.data() + o;
        Direction* const d_out = directions.data() + o;
        for (int x = 0; x < w; ++x) {
            const Fixed d = dist[x];
            const std::uint32_t region = (kind[x] & ~kDone) == kRegion;
            const std::uint32_t reached = region & static_cast<std::uint32_t>(d != kInf);
            const std::uint32_t keep = 0u - reached;  // all ones when reached
            // kInf is masked away (selects on floats became branches).
            const std::uint32_t bits =
                (tide::detail::bit_cast<std::uint32_t>(fixed_value(d)) & keep) | (kInfBits & ~keep);
            v_out[x] = tide::detail::bit_cast<float>(bits);
            const std::uint32_t move = reached_code(goal[x], d, via[x]);
            const std::uint32_t none = kWall - region * (kWall - kUnreachableCode);
            d_out[x] = static_cast<Direction>((move & keep) | (none & ~keep));
        }
    }
}

void SectorSearch::write_lowered(std::span<float> values, std::span<Direction> directions) const {
    TIDE_ASSERT(preset_);
    const int w = x1_ - x0_;
    for (const std::int32_t i : lowered_) {
        // Settled region cells only: reached, so the value is finite and the code a move or goal.
        const std::size_t o = static_cast<std::size_t>(i / pw_ - 2) * w + static_cast<std::size_t>(i % pw_ - 2);
        const Fixed d = dist_[static_cast<std::size_t>(i)];
        values[o] = fixed_value(d);
        directions[o] = static_cast<Direction>(
            reached_code(goal_[static_cast<std::size_t>(i)], d, via_[static_cast<std::size_t>(i)]));
    }
}

}  // namespace tide::hier_detail
