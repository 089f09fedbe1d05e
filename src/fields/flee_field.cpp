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
//
// Repair (repair_flee): the state keeps D's search (repaired by the goal-field repair first), V,
// every cell's move and the end of its path. A cell's move is its *support*: V(x) = price + V(y)
// along its move, or V(x) = s(x) at a safe spot. After the edit and D's repair, as in the goal
// repair: cells whose support got worse (a move into a dearer cell or across a new wall corner, a
// safe spot whose start value rose) and everything whose flow runs through them forget their
// value; each takes min(s(x), its best move into a cell that kept its value); cells whose start
// value fell, whose incoming moves got cheaper or that were just reached are queued; a Dijkstra
// in exact value order lowers what it can. Values are then those of a fresh build (they are the
// unique fixed point); moves are recomputed for the cells whose value changed and their
// neighbours, ends for every cell whose path runs through a changed move or value, in value order.
// Mixed fields (repair_mixed) repair D, recompute the combined cost of the cells D changed, and
// repair the goal search on the combined costs with those changes.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "../grid/cell_checks.hpp"
#include "move_codes.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

using namespace fields_detail;

constexpr std::int64_t kFleeNone = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kFleeUnknown = std::numeric_limits<std::int64_t>::max();  // repair: value forgotten

// Per padded cell flags of a flee repair (FieldBuilder::flags_, cleared before it returns).
constexpr std::uint8_t kAffected = 1;    // lost its support: value recomputed
constexpr std::uint8_t kTouched = 2;     // value changed
constexpr std::uint8_t kMoveDone = 8;    // move recomputed
constexpr std::uint8_t kEndQueued = 16;  // end recomputed

// Start value of a reached cell: -round(factor x D), D in fixed point.
std::int64_t start_value(double factor, std::uint64_t d) {
    return -static_cast<std::int64_t>(std::llround(factor * static_cast<double>(d)));
}

// The refusal of an edit that walls one of `cells` (goals or dangers: `what`), or nothing.
template <typename Changes>
Result<void> refuse_walled(const Changes& changes, std::span<const Cell> cells, int pw, const char* what) {
    for (const auto& c : changes) {
        if (c.after != kCostWall) continue;
        for (const Cell& g : cells) {
            if ((g.y + 1) * pw + g.x + 1 == c.cell) {
                return Error{ErrorCode::on_wall, std::string("repair: the edit turns ") + what + " " +
                                                     detail::cell_text(g) + " into a wall (build a field for the " +
                                                     "remaining " + what + "s instead)"};
            }
        }
    }
    return {};
}

// The flee grid as one pass sees it: D's words (cost in the low byte, walls 255), V, prices.
struct FleeGrid {
    const std::uint64_t* dist;
    const std::int64_t* value;
    const std::uint64_t* orth;
    const std::uint64_t* diag;
    std::int32_t off[kDirectionCount];
    bool eight;

    bool wall(std::size_t i) const { return (dist[i] & 0xFF) == kCostWall; }
    std::int64_t price(int k, std::uint64_t c) const {
        return static_cast<std::int64_t>((k & 1) != 0 ? diag[c] : orth[c]);
    }
    // A diagonal move k from x needs both cells beside it open (the same for its reverse).
    bool corners_open(std::size_t x, int k) const {
        return (k & 1) == 0 || (!wall(x + off[k - 1]) && !wall(x + off[(k + 1) & 7]));
    }
    // Direction code of cell x: wall, unreachable, or the legal move of least (price + V(y)), ties
    // to the lower rank (E, S, W, N, SE, SW, NW, NE), when that equals V(x); else a safe spot.
    std::uint8_t move(std::size_t x) const {
        if (wall(x)) return kWallCode;
        if (value[x] == kFleeNone) return kUnreachableCode;
        constexpr int kMovesByRank[kDirectionCount] = {0, 2, 4, 6, 1, 3, 5, 7};
        std::int64_t best = std::numeric_limits<std::int64_t>::max();
        int best_k = -1;
        for (int r = 0; r < (eight ? kDirectionCount : kDirectionCount / 2); ++r) {
            const int k = kMovesByRank[r];
            const std::size_t to = x + off[k];
            if (value[to] == kFleeNone || !corners_open(x, k)) continue;  // a wall, the border
            const std::int64_t cand = value[to] + price(k, dist[to] & 0xFF);
            if (cand < best) {
                best = cand;
                best_k = k;
            }
        }
        return best_k >= 0 && best <= value[x] ? static_cast<std::uint8_t>(best_k) : kGoalCode;
    }
};

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

Result<RepairStats> FieldBuilder::repair_flee(const CostField& cost, FlowField& field, FieldRepairState& state) {
    RepairStats stats;
    stats.changed_cells = changed_.size();
    if (changed_.empty()) return stats;
    flee_changes_.assign(changed_.begin(), changed_.end());  // the D repair consumes changed_
    const bool eight = state.params_.connectivity == Connectivity::eight;
    const double factor = state.flee_factor_;

    // 1. D. An edit that walls a danger is refused before anything changes.
    if (auto r = refuse_walled(changed_, state.goals_, state.width_ + 2, "danger"); !r) return r.error();
    auto d = repair_changes(cost, nullptr, state);
    if (!d) return d.error();
    auto full = [&]() -> Result<RepairStats> {
        flee_relax(cost, state.words_.data(), state.ranks_.data(), factor, eight, field, &state);
        stats.rebuilt = true;
        stats.touched_cells = static_cast<std::size_t>(state.width_) * state.height_;
        return stats;
    };
    if (d->rebuilt) return full();
    flee_dirty_.assign(touched_.begin(), touched_.end());  // every cell whose D, move or cost changed

    const int pw = state.width_ + 2;
    const Fixed* const dist = state.words_.data();
    const Code* const via = state.ranks_.data();
    std::int64_t* const value = state.flee_values_.data();
    std::uint8_t* const moves = state.flee_moves_.data();
    std::int32_t* const ends = state.flee_ends_.data();
    std::uint8_t* const flags = flags_.data();
    const FleeGrid grid{dist, value, orth_price_, diag_price_, {1, pw + 1, pw, pw - 1, -1, -pw - 1, -pw, -pw + 1},
                        eight};
    const std::int32_t* const off = grid.off;
    const int step = eight ? 1 : 2;
    auto reached = [via](std::int32_t p) { return static_cast<std::uint8_t>(via[p]) <= kGoalCode; };
    affected_.clear();
    touched_.clear();
    flee_list_.clear();
    auto clear_flags = [&] {
        for (std::int32_t p : affected_) flags[p] = 0;
        for (std::int32_t p : touched_) flags[p] = 0;
        for (std::int32_t p : flee_list_) flags[p] = 0;
    };
    auto touch = [&](std::int32_t p) {
        if ((flags[p] & kTouched) == 0) {
            flags[p] |= kTouched;
            touched_.push_back(p);
        }
    };
    auto add_affected = [&](std::int32_t p) {
        if ((flags[p] & kAffected) != 0 || value[p] == kFleeNone) return;
        flags[p] |= kAffected;
        affected_.push_back(p);
    };
    // The heap of cells to lower (flee_seeds_ as scratch), smallest value first.
    flee_seeds_.clear();
    auto later = [](const FleeEntry& a, const FleeEntry& b) { return a.value > b.value; };
    auto push = [&](std::int64_t v, std::int32_t p) {
        flee_seeds_.push_back({v, p});
        std::push_heap(flee_seeds_.begin(), flee_seeds_.end(), later);
    };

    // 2. Start values. A cell no danger reaches any more loses its value (its whole pocket does:
    // every cell of it is in the list); one newly reached is recomputed; a safe spot whose start
    // rose lost its support; a start below the value lowers it.
    for (const std::int32_t p : flee_dirty_) {
        if (!reached(p)) {
            if (value[p] != kFleeNone) {
                value[p] = kFleeNone;
                touch(p);
            }
            continue;
        }
        const std::int64_t s = start_value(factor, dist[p] >> 8);
        if (value[p] == kFleeNone) {
            value[p] = kFleeUnknown;  // newly reached (a wall opened, a pocket joined)
            add_affected(p);
        } else if (moves[p] == kGoalCode && s > value[p]) {
            add_affected(p);
        } else if (s < value[p]) {
            value[p] = s;
            moves[p] = kGoalCode;  // its support is now its start value
            touch(p);
            push(s, p);
        }
    }
    // 3. Terrain: moves into a dearer cell and diagonals whose corner became a wall lost their support.
    for (const Change& c : flee_changes_) {
        if (c.after == kCostWall) moves[c.cell] = kWallCode;
        if (c.after <= c.before) continue;
        for (int k = 0; k < kDirectionCount; k += step) {
            const std::int32_t x = c.cell + off[k];
            if (moves[x] == ((k + 4) & 7)) add_affected(x);
        }
        if (eight && c.after == kCostWall) {
            for (int o = 0; o < kDirectionCount; o += 2) {
                const std::int32_t a = c.cell + off[o];
                const std::int32_t b = c.cell + off[(o + 2) & 7];
                const int ab = kCornerMove[o];
                if (moves[a] == ab) add_affected(a);
                if (moves[b] == ((ab + 4) & 7)) add_affected(b);
            }
        }
    }
    // ... and everything whose flow runs through them.
    const std::size_t open = static_cast<std::size_t>(state.width_) * state.height_ - state.histogram_[kCostWall];
    const std::size_t limit = std::max<std::size_t>(open / 16, 256);
    for (std::size_t i = 0; i < affected_.size(); ++i) {
        const std::int32_t y = affected_[i];
        for (int k = 0; k < kDirectionCount; k += step) {
            const std::int32_t x = y + off[k];
            if (moves[x] == ((k + 4) & 7)) add_affected(x);
        }
        if (affected_.size() > limit) {
            clear_flags();
            return full();
        }
    }
    stats.affected_cells = affected_.size();
    for (const std::int32_t p : affected_) {
        value[p] = kFleeUnknown;
        touch(p);
    }

    // 4. Seeds: affected cells from their start value or a neighbour that kept its value; cells
    // whose incoming moves got cheaper offer their values again.
    for (const std::int32_t x : affected_) {
        std::int64_t best = start_value(factor, dist[x] >> 8);
        for (int k = 0; k < kDirectionCount; k += step) {
            const std::int32_t y = x + off[k];
            if ((flags[y] & kAffected) != 0 || value[y] == kFleeNone || !grid.corners_open(x, k)) continue;
            best = std::min(best, value[y] + grid.price(k, dist[y] & 0xFF));
        }
        value[x] = best;
        push(best, x);
    }
    auto requeue = [&](std::int32_t p) {
        if ((flags[p] & kAffected) == 0 && value[p] != kFleeNone) push(value[p], p);
    };
    for (const Change& c : flee_changes_) {
        if (c.after >= c.before) continue;
        requeue(c.cell);
        if (eight && c.before == kCostWall) {
            for (int o = 0; o < kDirectionCount; o += 2) requeue(c.cell + off[o]);
        }
    }

    // 5. Lower, in exact value order: settling y offers each neighbour x the price of x's move into y.
    std::size_t settled = 0;
    while (!flee_seeds_.empty()) {
        std::pop_heap(flee_seeds_.begin(), flee_seeds_.end(), later);
        const FleeEntry e = flee_seeds_.back();
        flee_seeds_.pop_back();
        const std::int32_t y = e.cell;
        if (value[y] != e.value) continue;  // superseded by a lower value
        if (++settled > limit) {
            clear_flags();
            return full();
        }
        const Fixed c = dist[y] & 0xFF;
        for (int k = 0; k < kDirectionCount; k += step) {
            const std::int32_t x = y + off[k];
            if (value[x] == kFleeNone || !grid.corners_open(y, k)) continue;
            const std::int64_t cand = e.value + grid.price(k, c);
            if (cand < value[x]) {
                value[x] = cand;
                touch(x);
                push(cand, x);
            }
        }
    }

    // 6. Moves: a cell's move depends on its value and its neighbours' values, costs and walls,
    // so the cells whose value or cost changed and their neighbours get theirs again. A changed
    // move or value changes the end of every path through it: those ends are recomputed, in
    // value order (a cell's next cell has a lower value).
    for (const Change& c : flee_changes_) touch(c.cell);
    const std::size_t changed_values = touched_.size();
    for (std::size_t i = 0; i < changed_values; ++i) {
        const std::int32_t t = touched_[i];
        for (int k = -1; k < kDirectionCount; ++k) {
            const std::int32_t p = k < 0 ? t : t + off[k];
            if ((flags[p] & kMoveDone) != 0 || p < pw || p >= pw * (state.height_ + 1) || p % pw == 0 ||
                p % pw == pw - 1) {
                continue;  // done, or the border
            }
            flags[p] |= kMoveDone;
            flee_list_.push_back(p);
            const std::uint8_t m = grid.move(static_cast<std::size_t>(p));
            if (m != moves[p]) {
                moves[p] = m;
                touch(p);
            }
        }
    }
    // Upstream of every changed move or value.
    const std::size_t moved = flee_list_.size();
    for (const std::int32_t p : touched_) {
        if ((flags[p] & kEndQueued) == 0) {
            flags[p] |= kEndQueued;
            flee_list_.push_back(p);
        }
    }
    for (std::size_t i = moved; i < flee_list_.size(); ++i) {
        const std::int32_t y = flee_list_[i];
        for (int k = 0; k < kDirectionCount; k += step) {
            const std::int32_t x = y + off[k];
            if (moves[x] == ((k + 4) & 7) && (flags[x] & kEndQueued) == 0) {
                flags[x] |= kEndQueued;
                flee_list_.push_back(x);
            }
        }
    }
    std::sort(flee_list_.begin() + static_cast<std::ptrdiff_t>(moved), flee_list_.end(),
              [value](std::int32_t a, std::int32_t b) { return value[a] < value[b]; });
    for (std::size_t i = moved; i < flee_list_.size(); ++i) {
        const std::int32_t x = flee_list_[i];
        const std::uint8_t m = moves[x];
        if (m < kDirectionCount) {
            ends[x] = ends[x + off[m]];
        } else if (m == kGoalCode) {
            ends[x] = x;
        }
    }
    flee_output(value, moves, ends, flee_list_, field);
    stats.touched_cells = touched_.size();
    settled_ = settled;
    clear_flags();
    return stats;
}

Result<void> FieldBuilder::check_danger_cost(const DangerCost& danger) const {
    if (danger.weight < 0 || danger.weight > kCostMax - 1) {
        return Error{"danger weight " + std::to_string(danger.weight) + " is outside 0..253"};
    }
    if (!(danger.radius > 0.0 && danger.radius <= 65536.0)) {
        return Error{"danger radius " + number_text(danger.radius) + " is outside (0, 65536]"};
    }
    return {};
}

// Sets the cells of `out` (padded indices; all cells when empty) to their combined cost: the cost
// of `cost` plus the danger term from D (dist, via, in fixed point with `frac` fraction bits).
// extra = round(weight x (R - D) / R) for D < R, in integers: R and D in the same fixed point (R
// below 2^41, so weight x 2 (R - D) stays far inside 64 bits).
void FieldBuilder::danger_costs(const CostField& cost, const Fixed* dist, const Code* via, int frac,
                                const DangerCost& danger, std::span<const std::int32_t> cells, CostField& out) const {
    const auto radius = static_cast<std::uint64_t>(std::llround(std::ldexp(danger.radius, frac)));
    const auto weight = static_cast<std::uint64_t>(danger.weight);
    const int w = cost.width();
    const int pw = w + 2;
    auto one = [&](std::size_t x, int xx, int yy) {
        const Cost c = cost.at(xx, yy);
        std::uint64_t extra = 0;
        if (static_cast<std::uint8_t>(via[x]) <= kGoalCode) {  // not a wall, and some danger reaches it
            const Fixed d = dist[x] >> 8;
            if (d < radius) extra = (2 * weight * (radius - d) + radius) / (2 * radius);
        }
        out.set(xx, yy, static_cast<Cost>(std::min<std::uint64_t>(c == kCostWall ? kCostWall : kCostMax, c + extra)));
    };
    if (cells.empty()) {
        for (int yy = 0; yy < cost.height(); ++yy) {
            const std::size_t p0 = static_cast<std::size_t>(yy + 1) * pw + 1;
            for (int xx = 0; xx < w; ++xx) one(p0 + static_cast<std::size_t>(xx), xx, yy);
        }
        return;
    }
    for (const std::int32_t p : cells) one(static_cast<std::size_t>(p), p % pw - 1, p / pw - 1);
}

Result<CostField> FieldBuilder::danger_cost_field(const CostField& cost, std::span<const Cell> dangers,
                                                  const DangerCost& danger, const FieldParams& params) {
    if (auto r = check_danger_cost(danger); !r) return r.error();
    if (auto r = check_dangers(cost, dangers); !r) return r.error();
    if (auto r = integrate(cost, dangers, params, dist_, via_); !r) return r.error();
    CostField out = cost;
    danger_costs(cost, dist_.data(), via_.data(), frac_, danger, {}, out);
    return out;
}

Result<void> FieldBuilder::build_mixed(const CostField& cost, std::span<const Cell> goals,
                                       std::span<const Cell> dangers, const DangerCost& danger,
                                       const FieldParams& params, FlowField& out) {
    auto combined = danger_cost_field(cost, dangers, danger, params);
    if (!combined) return combined.error();
    return build(*combined, goals, params, out);
}

Result<void> FieldBuilder::build_mixed(const CostField& cost, std::span<const Cell> goals,
                                       std::span<const Cell> dangers, const DangerCost& danger,
                                       const FieldParams& params, FlowField& out, FieldRepairState& state) {
    if (auto r = check_danger_cost(danger); !r) return r;
    if (auto r = check_dangers(cost, dangers); !r) return r;
    if (goals.empty()) return Error{"no goal given"};
    for (const Cell& g : goals) {
        if (auto r = detail::check_open_cell(cost, g, "goal"); !r) return r;
    }
    std::pmr::memory_resource* const memory = state.goals_.get_allocator().resource();
    FieldRepairState d(memory);
    if (auto r = integrate(cost, dangers, params, d.words_, d.ranks_); !r) return r;
    keep_search(cost, dangers, params, d);
    CostField combined(cost, memory);
    danger_costs(cost, d.words_.data(), d.ranks_.data(), frac_, danger, {}, combined);
    if (auto r = build(combined, goals, params, out, state); !r) return r;
    state.dangers_.assign(d.goals_.begin(), d.goals_.end());
    state.danger_ = danger;
    state.danger_state_.push_back(std::move(d));
    state.combined_.emplace(std::move(combined));
    return {};
}

Result<RepairStats> FieldBuilder::repair_mixed(const CostField& cost, FlowField& field, FieldRepairState& state) {
    RepairStats stats;
    stats.changed_cells = changed_.size();
    if (changed_.empty()) return stats;
    const int pw = state.width_ + 2;
    // Refused before anything changes: a goal or a danger walled.
    if (auto r = refuse_walled(changed_, state.goals_, pw, "goal"); !r) return r.error();
    if (auto r = refuse_walled(changed_, state.dangers_, pw, "danger"); !r) return r.error();
    FieldRepairState& d = state.danger_state_.front();
    auto dr = repair_changes(cost, nullptr, d);
    if (!dr) return dr.error();
    // The combined cost of every cell whose D (or cost) changed, and the changes it makes.
    CostField& combined = *state.combined_;
    flee_dirty_.clear();
    if (dr->rebuilt) {
        for (int y = 0; y < state.height_; ++y)
            for (int x = 0; x < state.width_; ++x) flee_dirty_.push_back((y + 1) * pw + x + 1);
    } else {
        flee_dirty_.assign(touched_.begin(), touched_.end());
    }
    changed_.clear();
    for (const std::int32_t p : flee_dirty_) {
        const Cost before = combined.at(p % pw - 1, p / pw - 1);
        changed_.push_back({p, before, before});
    }
    danger_costs(cost, d.words_.data(), d.ranks_.data(), d.frac_, state.danger_, flee_dirty_, combined);
    std::size_t kept = 0;
    for (Change& c : changed_) {
        c.after = combined.at(c.cell % pw - 1, c.cell / pw - 1);
        if (c.after != c.before) changed_[kept++] = c;
    }
    changed_.resize(kept);
    auto r = repair_changes(combined, &field, state);
    if (!r) return r.error();  // cannot happen: goals were checked above
    stats.affected_cells = r->affected_cells;
    stats.touched_cells = r->touched_cells;
    stats.rebuilt = r->rebuilt || dr->rebuilt;
    return stats;
}

}  // namespace tide
