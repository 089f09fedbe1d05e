// Flee fields (AI "safety maps"): building them. See docs/flee.md; their repair is flee_repair.cpp.
//
// D, the least cost from every cell to the nearest danger, is the ordinary integration with the
// dangers as goals, in the builder's unsigned fixed point (frac_ fraction bits). The flee value
// V lives in the same units but signed: every reached cell starts at s(x) = -round(factor x D(x))
// (one IEEE double multiplication, rounded to the nearest unit: the same bits on every machine),
// and V(x) = min(s(x), min over legal moves x -> y of (price of the move + V(y))). That is a
// multi-source Dijkstra whose sources are all reached cells with their start values. Prices are
// positive, so it is exact with any monotone priority queue; here buckets one cost unit wide (see
// the relaxation below). Offers go over
// reversed moves and charge forward prices, as in the integration: settling y offers its
// neighbour x the price of x's move into y (length x cost of y).
//
// V <= 0 and V >= -factor x max D, and max D < 2^55 (the builder picks frac_ so), so with
// factor <= 64 every value fits an int64. Walls and cells no danger reaches hold kFleeNone, the
// lowest int64, which no offer is below; they are never offered to anyway (moves are symmetric).
//
// The flow is a second pass: the legal move of least (price + V(y)), ties to the lower rank
// (E, S, W, N, SE, SW, NW, NE). It is the cell's move when that equals V(x) (it never is lower);
// otherwise staying beats every move and the cell is a safe spot. Every move lowers V by a
// positive price, so the flow has no cycles. to_stop (the cost of the remaining path to the safe
// spot) is V(x) - V(end of x's path), filled in settle order, in which a cell's next cell comes first.

#include <algorithm>
#include <cmath>
#include <string>

#include "../grid/always_inline.hpp"
#include "../grid/cell_checks.hpp"
#include "field_errors.hpp"
#include "flee_grid.hpp"
#include "move_codes.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

using namespace fields_detail;

}  // namespace

Result<void> FieldBuilder::check_dangers(const CostField& cost, std::span<const Cell> dangers) const {
    if (dangers.empty()) return Error{"no danger given"};
    for (const Cell& d : dangers) {
        if (auto r = detail::check_open_cell(cost, d, "danger"); !r) return r;
    }
    return {};
}

Result<void> FieldBuilder::check_flee_factor(double factor) const {
    if (!(factor > 0.0 && factor <= kMaxFleeFactor)) {  // NaN fails too
        return Error{"flee factor " + number_text(factor) + " is outside (0, " + number_text(kMaxFleeFactor) + "]"};
    }
    return {};
}

Result<void> FieldBuilder::build_flee(const CostField& cost, std::span<const Cell> dangers, const FleeParams& flee,
                                      const FieldParams& params, FlowField& out) {
    if (auto r = check_flee_factor(flee.factor); !r) return r;
    if (auto r = check_dangers(cost, dangers); !r) return r;
    if (auto r = integrate(cost, dangers, params, dist_, via_); !r) return r;
    flee_relax(cost, dist_.data(), via_.data(), flee.factor, params.connectivity == Connectivity::eight, out, nullptr);
    return {};
}

Result<void> FieldBuilder::build_flee(const CostField& cost, std::span<const Cell> dangers, const FleeParams& flee,
                                      const FieldParams& params, FlowField& out, FieldRepairState& state) {
    if (auto r = check_flee_factor(flee.factor); !r) return r;
    if (auto r = check_dangers(cost, dangers); !r) return r;
    if (auto r = integrate(cost, dangers, params, state.words_, state.ranks_); !r) return r;
    keep_search(cost, dangers, params, state);
    state.kind_ = FieldKind::flee;
    state.flee_factor_ = flee.factor;
    state.dangers_.clear();
    state.danger_state_.clear();
    state.combined_.reset();
    flee_relax(cost, state.words_.data(), state.ranks_.data(), flee.factor, params.connectivity == Connectivity::eight,
               out, &state);
    return {};
}

// V from D (dist, via: a search just run, at frac_), the moves and ends, and the field `out`;
// with a state, V, moves and ends are kept there.
void FieldBuilder::flee_relax(const CostField& cost, const Fixed* dist, const Code* via, double factor, bool eight,
                              FlowField& out, FieldRepairState* state) {
    const std::size_t n = static_cast<std::size_t>(pw_) * ph_;
    std::pmr::vector<std::int64_t>& values = state ? state->flee_values_ : flee_value_;
    const std::int32_t off[kDirectionCount] = {1, pw_ + 1, pw_, pw_ - 1, -1, -pw_ - 1, -pw_, -pw_ + 1};
    auto reached = [via](std::size_t i) { return static_cast<std::uint8_t>(via[i]) <= kGoalCode; };
    auto is_wall = [dist](std::size_t i) { return (dist[i] & 0xFF) == kCostWall; };
    auto price = [this](int k, Fixed c) {
        return static_cast<std::int64_t>((k & 1) != 0 ? diag_price_[c] : orth_price_[c]);
    };

    // Start values, and the sources in ascending order (ties by cell, though any order is exact).
    values.resize(n);
    flee_seeds_.clear();
    std::int64_t* const value = values.data();
    for (std::size_t i = 0; i < n; ++i) {
        if (reached(i)) {
            value[i] = start_value(factor, dist[i] >> 8);
            flee_seeds_.push_back({value[i], static_cast<std::int32_t>(i)});
        } else {
            value[i] = kFleeNone;
        }
    }
    // The relaxation: a Dijkstra in buckets of one cost unit (2^frac_, at most the cheapest move),
    // so every offer lands in a later bucket than the cell it comes from, and the cells of one
    // bucket may be settled in any order. Sources only need sorting by bucket: a counting sort
    // when the buckets are few, else a full sort. The cells a relaxation improved wait in a ring of
    // buckets (offers reach at most the dearest move ahead). An entry is live when it still holds
    // its cell's value: values only go down, each entry is a strict improvement, and a settled cell
    // is offered nothing below its value.
    const std::size_t seeds = flee_seeds_.size();
    std::int64_t base = 0, top = 0;
    for (const FleeEntry& e : flee_seeds_) {
        base = std::min(base, e.value);
        top = std::max(top, e.value);
    }
    const int shift = frac_;
    auto bucket_of = [base, shift](std::int64_t v) { return static_cast<std::uint64_t>(v - base) >> shift; };
    const std::uint64_t buckets = seeds > 0 ? bucket_of(top) + 1 : 0;
    if (buckets <= static_cast<std::uint64_t>(seeds) + 1024) {
        flee_count_.assign(buckets + 1, 0);
        for (const FleeEntry& e : flee_seeds_) ++flee_count_[bucket_of(e.value) + 1];
        for (std::uint64_t b = 0; b < buckets; ++b) flee_count_[b + 1] += flee_count_[b];
        flee_sorted_.resize(seeds);
        for (const FleeEntry& e : flee_seeds_) flee_sorted_[flee_count_[bucket_of(e.value)]++] = e;
        flee_seeds_.swap(flee_sorted_);
    } else {
        std::sort(flee_seeds_.begin(), flee_seeds_.end(),
                  [](const FleeEntry& a, const FleeEntry& b) {  // ties on the cell (lockstep)
                      return a.value != b.value ? a.value < b.value : a.cell < b.cell;
                  });
    }

    const Fixed max_move = eight ? diag_price_[kCostMax] : orth_price_[kCostMax];
    const std::size_t ring = static_cast<std::size_t>(max_move >> shift) + 2;
    if (flee_ring_.size() < ring) flee_ring_.resize(ring);
    for (std::size_t b = 0; b < ring; ++b) flee_ring_[b].clear();
    flee_order_.clear();
    std::size_t queued = 0;                                                 // entries in the ring
    auto settle = [&](std::int32_t y, std::int64_t v) TIDE_ALWAYS_INLINE {  // the hot loop: never a call
        flee_order_.push_back(y);
        const Fixed c = dist[y] & 0xFF;
        for (int k = 0; k < kDirectionCount; k += eight ? 1 : 2) {
            // Corner rule: the move between x and y (either way) needs both cells beside it open.
            if ((k & 1) != 0 && (is_wall(y + off[k - 1]) || is_wall(y + off[(k + 1) & 7]))) continue;
            const std::int32_t x = y + off[k];
            const std::int64_t cand = v + price(k, c);
            if (value[x] == kFleeNone || cand >= value[x]) continue;
            value[x] = cand;
            flee_ring_[bucket_of(cand) % ring].push_back({cand, x});
            ++queued;
        }
    };
    std::size_t next_seed = 0;
    std::uint64_t cur = seeds > 0 ? bucket_of(flee_seeds_[0].value) : 0;
    while (next_seed < seeds || queued > 0) {
        for (; next_seed < seeds && bucket_of(flee_seeds_[next_seed].value) == cur; ++next_seed) {
            const FleeEntry e = flee_seeds_[next_seed];
            if (e.value == value[e.cell]) settle(e.cell, e.value);
        }
        auto& bucket = flee_ring_[cur % ring];
        for (std::size_t i = 0; i < bucket.size(); ++i) {  // settling appends to later buckets only
            const FleeEntry e = bucket[i];
            if (e.value == value[e.cell]) settle(e.cell, e.value);
        }
        queued -= bucket.size();
        bucket.clear();
        cur = queued == 0 && next_seed < seeds ? bucket_of(flee_seeds_[next_seed].value) : cur + 1;
    }

    // The flow: each cell's move, then where each path ends, in settle order (a cell's next cell
    // has a lower value: settled before).
    std::pmr::vector<std::uint8_t>& moves = state ? state->flee_moves_ : flee_move_;
    std::pmr::vector<std::int32_t>& ends = state ? state->flee_ends_ : flee_end_;
    moves.resize(n);
    ends.resize(n);
    const FleeGrid grid{
        dist, value, orth_price_, diag_price_, {off[0], off[1], off[2], off[3], off[4], off[5], off[6], off[7]}, eight};
    for (std::size_t i = 0; i < n; ++i) moves[i] = grid.move(i);
    for (const std::int32_t x : flee_order_) {
        const std::uint8_t m = moves[static_cast<std::size_t>(x)];
        ends[static_cast<std::size_t>(x)] = m < kDirectionCount ? ends[static_cast<std::size_t>(x + off[m])] : x;
    }
    out.width_ = cost.width();
    out.height_ = cost.height();
    out.kind_ = FieldKind::flee;
    const std::size_t cells = static_cast<std::size_t>(cost.width()) * cost.height();
    out.integration_.resize(cells);
    out.directions_.resize(cells);
    out.to_stop_.resize(cells);
    flee_output(value, moves.data(), ends.data(), {}, out);
}

// Writes cells of a flee field from the padded V, moves and ends: all of them when `cells` (padded
// indices) is empty.
void FieldBuilder::flee_output(const std::int64_t* value, const std::uint8_t* moves, const std::int32_t* ends,
                               std::span<const std::int32_t> cells, FlowField& out) const {
    const int w = out.width_;
    const int pw = w + 2;
    const double scale = std::ldexp(1.0, -frac_);
    auto write = [&](std::size_t x, std::size_t u) {
        out.directions_[u] = static_cast<Direction>(moves[x]);
        if (value[x] == kFleeNone) {
            out.integration_[u] = out.to_stop_[u] = kUnreachable;
        } else {
            out.integration_[u] = static_cast<float>(static_cast<double>(value[x]) * scale);
            out.to_stop_[u] = static_cast<float>(static_cast<double>(value[x] - value[ends[x]]) * scale);
        }
    };
    if (cells.empty()) {
        for (int yy = 0; yy < out.height_; ++yy) {
            const std::size_t p0 = static_cast<std::size_t>(yy + 1) * pw + 1;
            const std::size_t u0 = static_cast<std::size_t>(yy) * w;
            for (int xx = 0; xx < w; ++xx) write(p0 + xx, u0 + xx);
        }
        return;
    }
    for (const std::int32_t p : cells) {
        write(static_cast<std::size_t>(p),
              static_cast<std::size_t>(p / pw - 1) * w + static_cast<std::size_t>(p % pw - 1));
    }
}

}  // namespace tide
