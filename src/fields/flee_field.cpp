// Flee fields (AI "safety maps") and the danger term of mixed fields. See docs/flee.md.
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
#include <cstdio>
#include <limits>
#include <string>

#include "../grid/cell_checks.hpp"
#include "move_codes.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

using namespace fields_detail;

constexpr std::int64_t kFleeNone = std::numeric_limits<std::int64_t>::min();

std::string number_text(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace

Result<void> FieldBuilder::check_dangers(const CostField& cost, std::span<const Cell> dangers) const {
    if (dangers.empty()) return Error{"no danger given"};
    for (const Cell& d : dangers) {
        if (auto r = detail::check_open_cell(cost, d, "danger"); !r) return r;
    }
    return {};
}

Result<void> FieldBuilder::build_flee(const CostField& cost, std::span<const Cell> dangers, const FleeParams& flee,
                                      const FieldParams& params, FlowField& out) {
    const double factor = flee.factor;
    if (!(factor > 0.0 && factor <= kMaxFleeFactor)) {  // NaN fails too
        return Error{"flee factor " + number_text(factor) + " is outside (0, " + number_text(kMaxFleeFactor) + "]"};
    }
    if (auto r = check_dangers(cost, dangers); !r) return r;
    if (auto r = integrate(cost, dangers, params, dist_, via_); !r) return r;

    const bool eight = params.connectivity == Connectivity::eight;
    const std::size_t n = static_cast<std::size_t>(pw_) * ph_;
    const std::int32_t off[kDirectionCount] = {1, pw_ + 1, pw_, pw_ - 1, -1, -pw_ - 1, -pw_, -pw_ + 1};
    const Fixed* const dist = dist_.data();
    const Code* const via = via_.data();
    auto reached = [via](std::size_t i) { return static_cast<std::uint8_t>(via[i]) <= kGoalCode; };
    auto is_wall = [dist](std::size_t i) { return (dist[i] & 0xFF) == kCostWall; };
    auto price = [this](int k, Fixed c) {
        return static_cast<std::int64_t>((k & 1) != 0 ? diag_price_[c] : orth_price_[c]);
    };

    // Start values, and the sources in ascending order (ties by cell, though any order is exact).
    flee_value_.resize(n);
    flee_seeds_.clear();
    std::int64_t* const value = flee_value_.data();
    for (std::size_t i = 0; i < n; ++i) {
        if (reached(i)) {
            const auto d = static_cast<double>(dist[i] >> 8);
            value[i] = -static_cast<std::int64_t>(std::llround(factor * d));
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
                  [](const FleeEntry& a, const FleeEntry& b) { return a.value < b.value; });
    }

    const Fixed max_move = eight ? diag_price_[kCostMax] : orth_price_[kCostMax];
    const std::size_t ring = static_cast<std::size_t>(max_move >> shift) + 2;
    if (flee_ring_.size() < ring) flee_ring_.resize(ring);
    for (std::size_t b = 0; b < ring; ++b) flee_ring_[b].clear();
    flee_order_.clear();
    std::size_t queued = 0;  // entries in the ring
    auto settle = [&](std::int32_t y, std::int64_t v) {
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

    // The flow: each reached cell's best move, kept when it is as good as the cell's value.
    const int w = cost.width();
    const int h = cost.height();
    const std::size_t cells = static_cast<std::size_t>(w) * h;
    out.width_ = w;
    out.height_ = h;
    out.kind_ = FieldKind::flee;
    out.integration_.resize(cells);
    out.directions_.resize(cells);
    out.to_stop_.resize(cells);
    constexpr int kMovesByRank[kDirectionCount] = {0, 2, 4, 6, 1, 3, 5, 7};
    const int moves = eight ? kDirectionCount : kDirectionCount / 2;
    for (int yy = 0; yy < h; ++yy) {
        const std::size_t p0 = static_cast<std::size_t>(yy + 1) * pw_ + 1;
        Direction* drow = out.directions_.data() + static_cast<std::size_t>(yy) * w;
        for (int xx = 0; xx < w; ++xx) {
            const std::size_t x = p0 + static_cast<std::size_t>(xx);
            if (!reached(x)) {
                drow[xx] = is_wall(x) ? Direction::wall : Direction::unreachable;
                continue;
            }
            std::int64_t best = std::numeric_limits<std::int64_t>::max();
            int best_k = -1;
            for (int r = 0; r < moves; ++r) {
                const int k = kMovesByRank[r];
                const std::size_t to = x + off[k];
                if (value[to] == kFleeNone) continue;  // a wall, the border
                if ((k & 1) != 0 && (is_wall(x + off[k - 1]) || is_wall(x + off[(k + 1) & 7]))) continue;
                const std::int64_t cand = value[to] + price(k, dist[to] & 0xFF);
                if (cand < best) {
                    best = cand;
                    best_k = k;
                }
            }
            drow[xx] = best_k >= 0 && best <= value[x] ? static_cast<Direction>(best_k) : Direction::goal;
        }
    }

    // Where each path stops, in settle order (a cell's next cell has a lower value: settled before).
    flee_stop_.resize(n);
    std::int64_t* const stop = flee_stop_.data();
    for (const std::int32_t x : flee_order_) {
        const int yy = x / pw_ - 1;
        const int xx = x % pw_ - 1;
        const Direction d = out.directions_[static_cast<std::size_t>(yy) * w + xx];
        stop[x] = is_move(d) ? stop[x + off[static_cast<int>(d)]] : value[x];
    }

    const double scale = std::ldexp(1.0, -frac_);
    for (int yy = 0; yy < h; ++yy) {
        const std::size_t p0 = static_cast<std::size_t>(yy + 1) * pw_ + 1;
        float* irow = out.integration_.data() + static_cast<std::size_t>(yy) * w;
        float* srow = out.to_stop_.data() + static_cast<std::size_t>(yy) * w;
        for (int xx = 0; xx < w; ++xx) {
            const std::size_t x = p0 + static_cast<std::size_t>(xx);
            if (value[x] == kFleeNone) {
                irow[xx] = srow[xx] = kUnreachable;
            } else {
                irow[xx] = static_cast<float>(static_cast<double>(value[x]) * scale);
                srow[xx] = static_cast<float>(static_cast<double>(value[x] - stop[x]) * scale);
            }
        }
    }
    return {};
}

Result<CostField> FieldBuilder::danger_cost_field(const CostField& cost, std::span<const Cell> dangers,
                                                  const DangerCost& danger, const FieldParams& params) {
    if (danger.weight < 0 || danger.weight > kCostMax - 1) {
        return Error{"danger weight " + std::to_string(danger.weight) + " is outside 0..253"};
    }
    if (!(danger.radius > 0.0 && danger.radius <= 65536.0)) {
        return Error{"danger radius " + number_text(danger.radius) + " is outside (0, 65536]"};
    }
    if (auto r = check_dangers(cost, dangers); !r) return r.error();
    if (auto r = integrate(cost, dangers, params, dist_, via_); !r) return r.error();

    // extra = round(weight x (R - D) / R) for D < R, in integers: R and D in the same fixed point
    // (R below 2^41, so weight x 2 (R - D) stays far inside 64 bits).
    const auto radius = static_cast<std::uint64_t>(std::llround(std::ldexp(danger.radius, frac_)));
    const auto weight = static_cast<std::uint64_t>(danger.weight);
    CostField out = cost;
    const int w = cost.width();
    const int h = cost.height();
    for (int yy = 0; yy < h; ++yy) {
        const std::size_t p0 = static_cast<std::size_t>(yy + 1) * pw_ + 1;
        for (int xx = 0; xx < w; ++xx) {
            const std::size_t x = p0 + static_cast<std::size_t>(xx);
            if (static_cast<std::uint8_t>(via_[x]) > kGoalCode) continue;  // a wall, or no danger reaches it
            const Fixed d = dist_[x] >> 8;
            if (d >= radius) continue;
            const std::uint64_t extra = (2 * weight * (radius - d) + radius) / (2 * radius);
            const Cost c = cost.at(xx, yy);
            out.set(xx, yy, static_cast<Cost>(std::min<std::uint64_t>(kCostMax, c + extra)));
        }
    }
    return out;
}

Result<void> FieldBuilder::build_mixed(const CostField& cost, std::span<const Cell> goals,
                                       std::span<const Cell> dangers, const DangerCost& danger,
                                       const FieldParams& params, FlowField& out) {
    auto combined = danger_cost_field(cost, dangers, danger, params);
    if (!combined) return combined.error();
    return build(*combined, goals, params, out);
}

}  // namespace tide
