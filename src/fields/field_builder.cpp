// Reverse Dijkstra with an exact bucket queue, and the flow pass.
//
// Why a bucket queue is exact here: every move costs at least w = (smallest passable cost) x
// min(1, diagonal factor). Buckets are [k*w, (k+1)*w). When bucket k is reached, every queued cell
// in it is final: any cell settled from it gets at least k*w + w, i.e. a later bucket. So cells
// inside one bucket may be settled in any order (we use LIFO) and the distances are the true
// least costs, computed in double precision; no approximation. For the same reason every offer
// made after a cell was settled is larger than its value, so "offer < current value" alone
// rejects settled cells (and walls, which hold -1) without a per-cell state. Only floor(max move / w) + 3
// buckets are ever live, so they form a ring; a bitmap of non-empty buckets finds the next one.
//
// The grid is padded with a one-cell wall border, so neighbour access needs no bounds checks.

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "tide/assert.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

// Tie rank of each move: straight moves first (E, S, W, N), then diagonals (SE, SW, NW, NE).
// The extra entries rank "no move yet" (the initial `via` value) last.
constexpr std::uint8_t kNoMove = kDirectionCount;
constexpr std::uint8_t kRank[kDirectionCount + 1] = {0, 4, 1, 5, 2, 6, 3, 7, 8};

std::string cell_text(Cell c) {
    return "(" + std::to_string(c.x) + ", " + std::to_string(c.y) + ")";
}

}  // namespace

FieldBuilder::FieldBuilder(std::pmr::memory_resource* memory)
    : memory_(memory),
      cost_(memory),
      dist_(memory),
      next_(memory),
      prev_(memory),
      via_(memory),
      head_(memory),
      occupied_(memory) {}

Result<void> FieldBuilder::integrate(const CostField& cost, std::span<const Cell> goals, const FieldParams& params) {
    const bool eight = params.connectivity == Connectivity::eight;
    const double diag = params.diagonal_factor;
    if (!(diag >= 1.0 && diag <= 2.0)) {  // checked in 4-direction mode too: a bad value is a bug either way
        return Error{"diagonal factor " + std::to_string(diag) + " is outside 1..2"};
    }
    if (goals.empty()) return Error{"no goal given"};
    const int w = cost.width();
    const int h = cost.height();
    for (const Cell& g : goals) {
        if (!cost.contains(g)) {
            return Error{"goal " + cell_text(g) + " is outside the " + std::to_string(w) + "x" + std::to_string(h) +
                         " map"};
        }
        if (cost.at(g) == kCostWall) return Error{"goal " + cell_text(g) + " is on a wall"};
    }

    pw_ = w + 2;
    ph_ = h + 2;
    const std::size_t n = static_cast<std::size_t>(pw_) * ph_;
    cost_.resize(n);
    dist_.resize(n);
    next_.resize(n);
    prev_.resize(n);
    via_.resize(n);

    // Padded copy of the costs and the start distances: +inf for open cells, -1 for walls and the
    // border. A wall's negative distance makes every offer to it fail the `cand < dist` test, and
    // so does a settled cell's (see the header comment), so the hot loop needs no state array.
    Cost lo = kCostMax;
    Cost hi = 1;
    const Cost* src = cost.cells().data();
    constexpr double kInf = std::numeric_limits<double>::infinity();
    std::fill_n(cost_.begin(), pw_, kCostWall);
    std::fill_n(cost_.begin() + static_cast<std::ptrdiff_t>(n - pw_), pw_, kCostWall);
    std::fill_n(dist_.begin(), pw_, -1.0);
    std::fill_n(dist_.begin() + static_cast<std::ptrdiff_t>(n - pw_), pw_, -1.0);
    for (int y = 0; y < h; ++y) {
        const std::size_t r = static_cast<std::size_t>(y + 1) * pw_;
        Cost* row = cost_.data() + r;
        double* drow = dist_.data() + r;
        row[0] = kCostWall;
        row[pw_ - 1] = kCostWall;
        drow[0] = -1.0;
        drow[pw_ - 1] = -1.0;
        std::copy_n(src + static_cast<std::size_t>(y) * w, w, row + 1);
        for (int x = 1; x <= w; ++x) {
            const Cost c = row[x];
            const bool open = c != kCostWall;
            drow[x] = open ? kInf : -1.0;
            if (open) {
                lo = std::min(lo, c);
                hi = std::max(hi, c);
            }
        }
    }
    std::fill(via_.begin(), via_.end(), kNoMove);

    const double len_diag = eight ? diag : 1.0;
    const double width = static_cast<double>(lo);  // lo x min(1, diag); diag >= 1
    const double inv_width = 1.0 / width;
    const double max_move = static_cast<double>(hi) * len_diag;
    const std::size_t ring = static_cast<std::size_t>(std::floor(max_move / width)) + 3;
    // Reserve the largest ring any map can need (254 x 2 / 1 + 3 buckets), so a later build on a map
    // of the same size but a wider cost range allocates nothing either.
    constexpr std::size_t kMaxRing = static_cast<std::size_t>(kCostMax) * 2 + 3;
    head_.reserve(kMaxRing);
    occupied_.reserve((kMaxRing + 63) / 64);
    head_.assign(ring, -1);
    occupied_.assign((ring + 63) / 64, 0);

    std::int32_t* const next = next_.data();
    std::int32_t* const prev = prev_.data();
    std::int32_t* const head = head_.data();
    std::uint64_t* const occupied = occupied_.data();
    double* const dist = dist_.data();
    std::uint8_t* const via = via_.data();
    const Cost* const pc = cost_.data();

    // A list head's prev holds -(slot + 2), so unlinking never needs a per-cell slot array.
    auto link = [&](std::int32_t c, std::size_t s) __attribute__((always_inline)) {
        const std::int32_t old = head[s];
        next[c] = old;
        prev[c] = -static_cast<std::int32_t>(s) - 2;
        if (old >= 0) prev[old] = c;
        head[s] = c;
        occupied[s >> 6] |= std::uint64_t{1} << (s & 63);
    };
    auto unlink = [&](std::int32_t c) __attribute__((always_inline)) {
        const std::int32_t p = prev[c];
        const std::int32_t nx = next[c];
        if (p >= 0) {
            next[p] = nx;
        } else {
            const std::size_t s = static_cast<std::size_t>(-p - 2);
            head[s] = nx;
            if (nx < 0) occupied[s >> 6] &= ~(std::uint64_t{1} << (s & 63));
        }
        if (nx >= 0) prev[nx] = p;
    };

    std::size_t queued = 0;
    for (const Cell& g : goals) {
        const std::int32_t c = (g.y + 1) * pw_ + (g.x + 1);
        if (dist[c] == 0.0) continue;  // duplicate goal
        dist[c] = 0.0;
        link(c, 0);
        ++queued;
    }

    const std::int32_t off[kDirectionCount] = {1, pw_ + 1, pw_, pw_ - 1, -1, -pw_ - 1, -pw_, -pw_ + 1};
    std::uint64_t bucket = 0;  // absolute bucket number of the slot being drained
    std::size_t slot = 0;      // bucket % ring
    std::size_t settled = 0;
    const std::size_t words = occupied_.size();

    // Offers `cand` to cell x for its move `dir` (x -> the cell being settled). Every offer that can
    // be optimal reaches x before x is settled (it comes from a strictly earlier bucket), so keeping
    // the best offer, with exact ties going to the move of lower rank, yields the flow directly:
    // the same move a separate "argmin over neighbours" pass would pick, without that pass.
    auto relax = [&](std::int32_t x, double cand, std::uint8_t dir) __attribute__((always_inline)) {
        const double old = dist[x];
        if (cand < old) {
            if (old != kInf) {
                unlink(x);
            } else {
                ++queued;
            }
            dist[x] = cand;
            via[x] = dir;
            std::uint64_t b = static_cast<std::uint64_t>(cand * inv_width);
            if (b <= bucket) b = bucket + 1;  // rounding guard: a move never stays in the current bucket
            std::size_t s = slot + static_cast<std::size_t>(b - bucket);
            if (s >= ring) s -= ring;
            link(x, s);
        } else if (cand == old && kRank[dir] < kRank[via[x]]) {
            via[x] = dir;
        }
    };

    while (queued > 0) {
        // Find the next non-empty slot at or after the current one, circularly.
        const std::size_t start = slot;
        std::size_t word = start >> 6;
        std::uint64_t bits = occupied[word] & (~std::uint64_t{0} << (start & 63));
        while (bits == 0) {  // terminates: queued > 0 means some bit is set
            word = word + 1 == words ? 0 : word + 1;
            bits = occupied[word];
        }
        slot = word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
        bucket += (slot + ring - start) % ring;

        while (head[slot] >= 0) {
            const std::int32_t y = head[slot];
            unlink(y);
            --queued;
            ++settled;
            const double d = dist[y];
            const double c = static_cast<double>(pc[y]);
            const double orth = d + c;
            relax(y + off[0], orth, 4);  // the east neighbour reaches y by moving west
            relax(y + off[2], orth, 6);
            relax(y + off[4], orth, 0);
            relax(y + off[6], orth, 2);
            if (eight) {
                // Corner rule: a diagonal offer is +inf (never accepted) unless both cells beside it are open.
                const double dg = d + c * len_diag;
                const bool e = pc[y + off[0]] != kCostWall;
                const bool s = pc[y + off[2]] != kCostWall;
                const bool wv = pc[y + off[4]] != kCostWall;
                const bool nv = pc[y + off[6]] != kCostWall;
                relax(y + off[1], (s && e) ? dg : kInf, 5);
                relax(y + off[3], (s && wv) ? dg : kInf, 7);
                relax(y + off[5], (nv && wv) ? dg : kInf, 1);
                relax(y + off[7], (nv && e) ? dg : kInf, 3);
            }
        }
    }
    settled_ = settled;
    return {};
}

Result<void> FieldBuilder::build_integration(const CostField& cost, std::span<const Cell> goals,
                                             const FieldParams& params, std::pmr::vector<float>& out) {
    if (auto r = integrate(cost, goals, params); !r) return r;
    const int w = cost.width();
    const int h = cost.height();
    out.resize(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y) {
        const double* row = dist_.data() + static_cast<std::size_t>(y + 1) * pw_ + 1;
        float* dst = out.data() + static_cast<std::size_t>(y) * w;
        for (int x = 0; x < w; ++x) dst[x] = row[x] < 0.0 ? kUnreachable : static_cast<float>(row[x]);
    }
    return {};
}

Result<void> FieldBuilder::build(const CostField& cost, std::span<const Cell> goals, const FieldParams& params,
                                 FlowField& out) {
    if (auto r = integrate(cost, goals, params); !r) return r;
    const int w = cost.width();
    const int h = cost.height();
    const std::size_t cells = static_cast<std::size_t>(w) * h;
    out.width_ = w;
    out.height_ = h;
    out.integration_.resize(cells);
    out.directions_.resize(cells);

    const double* const dist = dist_.data();
    const std::uint8_t* const via = via_.data();
    for (int y = 0; y < h; ++y) {
        const std::size_t p0 = static_cast<std::size_t>(y + 1) * pw_ + 1;
        float* irow = out.integration_.data() + static_cast<std::size_t>(y) * w;
        Direction* drow = out.directions_.data() + static_cast<std::size_t>(y) * w;
        for (int x = 0; x < w; ++x) {
            const std::size_t p = p0 + static_cast<std::size_t>(x);
            const double dp = dist[p];
            // Walls hold -1 and cut-off cells +inf; costs are >= 1, so only goals hold 0.
            irow[x] = dp < 0.0 ? kUnreachable : static_cast<float>(dp);
            drow[x] = dp < 0.0                                        ? Direction::wall
                      : dp == std::numeric_limits<double>::infinity() ? Direction::unreachable
                      : dp == 0.0                                     ? Direction::goal
                                                                      : static_cast<Direction>(via[p]);
        }
    }
    return {};
}

double FieldBuilder::exact_integration(int x, int y) const {
    TIDE_ASSERT(x >= 0 && y >= 0 && x < pw_ - 2 && y < ph_ - 2);
    const double d = dist_[static_cast<std::size_t>(y + 1) * pw_ + (x + 1)];
    return d < 0.0 ? std::numeric_limits<double>::infinity() : d;
}

Result<FlowField> build_flow_field(const CostField& cost, std::span<const Cell> goals, const FieldParams& params) {
    FieldBuilder builder;
    FlowField field;
    if (auto r = builder.build(cost, goals, params, field); !r) return r.error();
    return field;
}

}  // namespace tide
