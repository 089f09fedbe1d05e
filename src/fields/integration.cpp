// The search every build runs: a reverse Dijkstra with an exact bucket queue, which also records
// the flow. The goal, flee and mixed builds (goal_field.cpp, flee_field.cpp, mixed_field.cpp) run
// it and read what it leaves in dist_ / via_ or in a FieldRepairState.
//
// Distances are fixed-point integers with 25 fractional bits: an orthogonal move into a cell of
// cost c adds exactly c, a diagonal one c x factor rounded to 2^-25 (an error below 1.5e-8 per
// move, and every move costs at least 1, so the relative error of any value stays below 1.5e-8).
// Integers make comparisons cheap, ties exact (the same moves sum to the same bits in any order)
// and results bit-identical on every machine. Each cell's 64-bit word packs (value << 8) | cost,
// so the hot loop reads one array for values, costs and walls; values have 55 bits, and the
// fraction shrinks below 25 bits only for maps whose longest possible path would not fit.
//
// Why a bucket queue is exact here: every move costs at least w = (smallest passable cost) x
// min(1, diagonal factor). Buckets are [k*w, (k+1)*w). When bucket k is reached, every queued cell
// in it is final: any cell settled from it gets at least k*w + w, i.e. a later bucket. So cells
// inside one bucket may be settled in any order (we use LIFO) and the distances are the true
// least costs; no approximation. For the same reason every offer
// made after a cell was settled is larger than its value, so "offer < current value" alone
// rejects settled cells (and walls, which hold -inf) without a per-cell state.
//
// Only floor(max move / w) + 3 buckets are ever live, so they form a ring. Each bucket is a
// circular doubly-linked list threaded through `links_`, with a sentinel node per bucket after the
// cells; a cell outside every list links to itself, so unlinking needs no branch. A bitmap marks
// buckets that may be non-empty (bits are cleared lazily) to find the next bucket quickly.
//
// The hot loop avoids unpredictable branches: the eight offers of a settled cell are applied with
// selects (a blocked diagonal offers NaN, which compares false), and only the improved cells, at
// most eight, go through the queue update. The grid is padded with a one-cell wall border, so
// neighbour access needs no bounds checks.

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "../grid/always_inline.hpp"
#include "../grid/cell_checks.hpp"
#include "move_codes.hpp"
#include "tide/assert.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

using namespace fields_detail;

// Largest ring any map can need: max move 254 x 2 over min move 1, plus 3.
constexpr std::size_t kMaxRing = static_cast<std::size_t>(kCostMax) * 2 + 3;

}  // namespace

FieldBuilder::FieldBuilder(std::pmr::memory_resource* memory)
    : dist_(memory),
      via_(memory),
      links_(memory),
      occupied_(memory),
      flags_(memory),
      affected_(memory),
      touched_(memory),
      changed_(memory),
      block_flags_(memory),
      rescue_(memory),
      heap_(memory),
      flee_value_(memory),
      flee_move_(memory),
      flee_end_(memory),
      flee_list_(memory),
      flee_dirty_(memory),
      flee_changes_(memory),
      flee_order_(memory),
      flee_seeds_(memory),
      flee_sorted_(memory),
      flee_count_(memory),
      flee_ring_(memory) {}

void FieldBuilder::set_prices(int frac, double diagonal_factor) {
    frac_ = frac;
    const double one = std::ldexp(1.0, frac);
    // Move prices in fixed point: orthogonal c exactly, diagonal c x factor rounded to 2^-frac.
    for (int c = 1; c <= kCostMax; ++c) {
        orth_price_[c] = static_cast<Fixed>(c) << frac;
        diag_price_[c] = static_cast<Fixed>(std::llround(c * diagonal_factor * one));
    }
}

int FieldBuilder::fraction_bits(std::size_t open_cells, Cost hi) {
    // 25 bits, fewer only when the longest possible path (every open cell once at the dearest
    // move) would not fit the 55 value bits; then 2^-frac is still below 8e-6.
    const std::uint64_t bound = static_cast<std::uint64_t>(open_cells) * (2u * hi + 1u);
    return std::min(kFractionBits, 55 - static_cast<int>(std::bit_width(bound)));
}

// One run of the search over the padded grid, in the phases integrate() calls: load the costs,
// size the bucket ring, queue the goals, drain the buckets.
struct FieldBuilder::Search {
    FieldBuilder& builder;
    Fixed* dist;
    Code* via;
    Link* links;                        // one node per padded cell, then one sentinel per bucket
    std::size_t n;                      // padded cells (the first sentinel's index)
    std::uint64_t* occupied = nullptr;  // one bit per possibly non-empty bucket
    std::size_t ring = 0;               // buckets in the ring
    std::size_t words = 0;              // 64-bit words of `occupied`
    int shift = 0;                      // bucket width: 2^shift fixed-point units

    // The cost range and open cells of the map, which set the fixed-point scale and the ring.
    struct CostRange {
        Cost lo;
        Cost hi;
        std::size_t open_cells;
    };

    // Takes cell c out of its bucket's list; a no-op for a cell in no list (it links to itself).
    TIDE_ALWAYS_INLINE static void unlink(Link* links, std::int32_t c) {
        const Link l = links[c];
        links[l.prev].next = l.next;
        links[l.next].prev = l.prev;
    }
    // Puts cell c first in the list of bucket s (sentinel n + s) and marks the bucket.
    TIDE_ALWAYS_INLINE static void link(Link* links, std::uint64_t* occupied, std::size_t n, std::int32_t c,
                                        std::size_t s) {
        const auto head = static_cast<std::int32_t>(n + s);
        const std::int32_t first = links[head].next;
        links[c] = {first, head};
        links[first].prev = c;
        links[head].next = c;
        occupied[s >> 6] |= std::uint64_t{1} << (s & 63);
    }
    // The first non-empty bucket at or after `start`, circularly; clears the stale bits it passes.
    // Some list must be non-empty (and so marked): cells are queued.
    TIDE_ALWAYS_INLINE static std::size_t next_bucket(const Link* links, std::uint64_t* occupied, std::size_t n,
                                                      std::size_t words, std::size_t start) {
        std::size_t s = start;
        for (;;) {
            std::size_t word = s >> 6;
            std::uint64_t bits = occupied[word] & (~std::uint64_t{0} << (s & 63));
            while (bits == 0) {
                word = word + 1 == words ? 0 : word + 1;
                bits = occupied[word];
            }
            s = word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
            if (links[n + s].next != static_cast<std::int32_t>(n + s)) return s;
            occupied[word] &= ~(std::uint64_t{1} << (s & 63));
        }
    }

    // 1. Padded copy of the costs and the start state: open cells "not reached" / unreachable,
    // walls and the border 0 / wall, every cell linked to itself (in no list).
    CostRange load(const CostField& cost) {
        constexpr Fixed kStartValue[2] = {0, kNotReached << 8};  // wall, open
        constexpr std::uint8_t kStartCode[2] = {kWallCode, kUnreachableCode};
        const int w = cost.width();
        const int h = cost.height();
        const int pw = builder.pw_;
        auto init_border = [&](std::size_t i) {
            dist[i] = kCostWall;  // value 0, cost 255
            via[i] = Code{kWallCode};
            links[i] = {static_cast<std::int32_t>(i), static_cast<std::int32_t>(i)};
        };
        for (std::size_t i = 0; i < static_cast<std::size_t>(pw); ++i) {
            init_border(i);
            init_border(n - pw + i);
        }
        Cost lo = kCostWall;
        Cost hi = 1;
        std::size_t open_cells = 0;
        const Cost* src = cost.cells().data();
        for (int y = 0; y < h; ++y) {
            const std::size_t r = static_cast<std::size_t>(y + 1) * pw;
            init_border(r);
            init_border(r + pw - 1);
            const Cost* srow = src + static_cast<std::size_t>(y) * w;
            for (int x = 0; x < w; ++x) {
                const std::size_t i = r + 1 + static_cast<std::size_t>(x);
                const Cost c = srow[x];
                const int open = c != kCostWall;
                dist[i] = kStartValue[open] | c;  // tables, not branches: walls are scattered at random
                open_cells += static_cast<std::size_t>(open);
                via[i] = Code{kStartCode[open]};
                links[i] = {static_cast<std::int32_t>(i), static_cast<std::int32_t>(i)};
                lo = std::min(lo, c);  // a wall's 255 only wins when nothing is open
                hi = std::max(hi, static_cast<Cost>(c * open));
            }
        }
        return {lo, hi, open_cells};
    }

    // 2. The ring of buckets, once the prices are set: the bucket width is the largest power of
    // two not above the cheapest move (lo, as diag >= 1); the ring spans the dearest move.
    void start_ring(const CostRange& range, bool eight) {
        shift = builder.frac_ + std::bit_width(static_cast<unsigned>(range.lo)) - 1;
        const Fixed max_move = eight ? builder.diag_price_[range.hi] : builder.orth_price_[range.hi];
        ring = static_cast<std::size_t>(max_move >> shift) + 3;
        words = (ring + 63) / 64;
        builder.occupied_.reserve((kMaxRing + 63) / 64);  // so a wider cost range later allocates nothing
        builder.occupied_.assign(words, 0);
        occupied = builder.occupied_.data();
        for (std::size_t s = 0; s < ring; ++s) {
            const auto head = static_cast<std::int32_t>(n + s);
            links[n + s] = {head, head};
        }
    }

    // 3. The goals, at value 0 in bucket 0; returns how many (duplicates once).
    std::size_t seed(std::span<const Cell> goals) {
        std::size_t queued = 0;
        for (const Cell& g : goals) {
            const std::int32_t c = (g.y + 1) * builder.pw_ + (g.x + 1);
            if (via[c] == Code{kGoalCode}) continue;  // duplicate goal
            dist[c] &= 0xFF;                          // value 0, keep the cost
            via[c] = Code{kGoalCode};
            link(links, occupied, n, c, 0);
            ++queued;
        }
        return queued;
    }

    // 4. Settles the buckets in order until none holds a cell; returns the cells settled.
    std::size_t drain(std::size_t queued, bool eight) {
        Fixed* const dist = this->dist;
        Code* const via = this->via;
        Link* const links = this->links;
        std::uint64_t* const occupied = this->occupied;
        const std::size_t n = this->n;
        const std::size_t ring = this->ring;
        const std::size_t words = this->words;
        const int shift = this->shift;
        const Fixed* const orth_price = builder.orth_price_;
        const Fixed* const diag_price = builder.diag_price_;
        const int pw = builder.pw_;
        const std::int32_t off[kDirectionCount] = {1, pw + 1, pw, pw - 1, -1, -pw - 1, -pw, -pw + 1};
        std::uint64_t bucket = 0;  // absolute bucket number of the slot being drained
        std::size_t slot = 0;      // bucket % ring
        std::size_t settled = 0;

        while (queued > 0) {
            const std::size_t s = next_bucket(links, occupied, n, words, slot);
            bucket += (s + ring - slot) % ring;
            slot = s;
            const auto head = static_cast<std::int32_t>(n + slot);

            for (std::int32_t y = links[head].next; y != head; y = links[head].next) {
                unlink(links, y);
                --queued;
                ++settled;
                const Fixed d = dist[y] >> 8;
                const Fixed c = dist[y] & 0xFF;
                // Offer each neighbour x its move into y (orthogonal d + c, diagonal d + c * factor).
                // Keeping the best offer, with exact ties going to the move of lower rank, yields the
                // flow directly: every offer that can be optimal reaches x before x is settled (it comes
                // from a strictly earlier bucket). The comparisons only fill bit masks; the (one or two)
                // improvements are applied afterwards, so no branch depends on a single comparison.
                // A word is (value << 8) | cost: an offer v becomes (v << 8) | 0xFF, which is lower than
                // a word exactly when v is lower than its value, whatever the cost byte.
                Fixed value[kDirectionCount];
                value[0] = value[2] = value[4] = value[6] = d + orth_price[c];
                unsigned better = 0;
                unsigned tie = 0;
                auto offer = [&](int k, Fixed cand) TIDE_ALWAYS_INLINE {
                    const Fixed old = dist[y + off[k]];
                    better |= static_cast<unsigned>(cand < old) << k;
                    tie |= static_cast<unsigned>(((old ^ cand) >> 8) == 0) << k;
                };
                const Fixed orth_word = (value[0] << 8) | 0xFF;
                offer(0, orth_word);
                offer(2, orth_word);
                offer(4, orth_word);
                offer(6, orth_word);
                if (eight) {
                    // Corner rule: a blocked diagonal offers kBlocked (all ones), which is never lower
                    // than or equal to any value.
                    const Fixed dg = d + diag_price[c];
                    value[1] = value[3] = value[5] = value[7] = dg;
                    const Fixed dg_word = (dg << 8) | 0xFF;
                    const Fixed e = (dist[y + off[0]] & 0xFF) == kCostWall;
                    const Fixed so = (dist[y + off[2]] & 0xFF) == kCostWall;
                    const Fixed we = (dist[y + off[4]] & 0xFF) == kCostWall;
                    const Fixed no = (dist[y + off[6]] & 0xFF) == kCostWall;
                    offer(1, dg_word | (0 - (so | e)));
                    offer(3, dg_word | (0 - (so | we)));
                    offer(5, dg_word | (0 - (no | we)));
                    offer(7, dg_word | (0 - (no | e)));
                }
                for (unsigned m = tie; m != 0; m &= m - 1) [[unlikely]] {
                        const int k = std::countr_zero(m);
                        Code& v = via[y + off[k]];
                        v = Code{std::min(static_cast<std::uint8_t>(v), kOfferRank[k])};
                    }
                for (unsigned m = better; m != 0; m &= m - 1) {
                    const int k = std::countr_zero(m);
                    const std::int32_t x = y + off[k];
                    const Fixed v = value[k];
                    dist[x] = (v << 8) | (dist[x] & 0xFF);
                    via[x] = Code{kOfferRank[k]};
                    queued += links[x].next == x;        // linked to itself: first time queued
                    unlink(links, x);                    // a no-op for a cell in no list
                    const std::uint64_t b = v >> shift;  // > bucket: every move is at least one bucket wide
                    std::size_t t = slot + static_cast<std::size_t>(b - bucket);
                    t = t >= ring ? t - ring : t;
                    link(links, occupied, n, x, t);
                }
            }
            occupied[slot >> 6] &= ~(std::uint64_t{1} << (slot & 63));
        }
        return settled;
    }
};

Result<void> FieldBuilder::integrate(const CostField& cost, std::span<const Cell> goals, const FieldParams& params,
                                     std::pmr::vector<Fixed>& dist_vec, std::pmr::vector<Code>& via_vec) {
    const double diag = params.diagonal_factor;
    if (!(diag >= 1.0 && diag <= 2.0)) {  // checked in 4-direction mode too: a bad value is a bug either way
        return Error{"diagonal factor " + std::to_string(diag) + " is outside 1..2"};
    }
    if (goals.empty()) return Error{"no goal given"};
    for (const Cell& g : goals) {
        if (auto r = detail::check_open_cell(cost, g, "goal"); !r) return r;
    }

    pw_ = cost.width() + 2;
    ph_ = cost.height() + 2;
    const std::size_t n = static_cast<std::size_t>(pw_) * ph_;
    dist_vec.resize(n);
    via_vec.resize(n);
    links_.resize(n + kMaxRing);  // cells, then one sentinel per bucket
    last_dist_ = dist_vec.data();
    last_via_ = via_vec.data();

    const bool eight = params.connectivity == Connectivity::eight;
    Search search{*this, dist_vec.data(), via_vec.data(), links_.data(), n};
    const Search::CostRange range = search.load(cost);
    set_prices(fraction_bits(range.open_cells, range.hi), diag);
    search.start_ring(range, eight);
    const std::size_t queued = search.seed(goals);
    settled_ = search.drain(queued, eight);
    return {};
}

// Records in `state` what the search just run into its words and ranks was: size, scale, settings,
// goals and the histogram of costs.
void FieldBuilder::keep_search(const CostField& cost, std::span<const Cell> goals, const FieldParams& params,
                               FieldRepairState& state) const {
    state.width_ = cost.width();
    state.height_ = cost.height();
    state.frac_ = frac_;
    state.params_ = params;
    state.goals_.assign(goals.begin(), goals.end());
    std::sort(state.goals_.begin(), state.goals_.end(),
              [](const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    state.goals_.erase(std::unique(state.goals_.begin(), state.goals_.end()), state.goals_.end());
    // Cells per cost, four partial counts so consecutive equal bytes do not serialise on one counter.
    std::array<std::array<std::uint32_t, 256>, 4> count{};
    const auto cells = cost.cells();
    std::size_t i = 0;
    for (; i + 4 <= cells.size(); i += 4) {
        ++count[0][cells[i]];
        ++count[1][cells[i + 1]];
        ++count[2][cells[i + 2]];
        ++count[3][cells[i + 3]];
    }
    for (; i < cells.size(); ++i) ++count[0][cells[i]];
    for (int c = 0; c < 256; ++c) state.histogram_[c] = count[0][c] + count[1][c] + count[2][c] + count[3][c];
}

double FieldBuilder::exact_integration(int x, int y) const {
    TIDE_ASSERT(x >= 0 && y >= 0 && x < pw_ - 2 && y < ph_ - 2);
    const std::size_t i = static_cast<std::size_t>(y + 1) * pw_ + (x + 1);
    return static_cast<std::uint8_t>(last_via_[i]) > kGoalCode
               ? std::numeric_limits<double>::infinity()
               : std::ldexp(static_cast<double>(last_dist_[i] >> 8), -frac_);
}

}  // namespace tide
