// The repair of a flee field after terrain edits (FieldBuilder::repair_flee). flee_field.cpp says
// what the field holds; docs/flee.md has the definitions.
//
// The state keeps D's search (repaired by the goal-field repair first), V,
// every cell's move and the end of its path. A cell's move is its *support*: V(x) = price + V(y)
// along its move, or V(x) = s(x) at a safe spot. After the edit and D's repair, as in the goal
// repair: cells whose support got worse (a move into a dearer cell or across a new wall corner, a
// safe spot whose start value rose) and everything whose flow runs through them forget their
// value; each takes min(s(x), its best move into a cell that kept its value); cells whose start
// value fell, whose incoming moves got cheaper or that were just reached are queued; a Dijkstra
// in exact value order lowers what it can. Values are then those of a fresh build (they are the
// unique fixed point); moves are recomputed for the cells whose value changed and their
// neighbours, ends for every cell whose path runs through a changed move or value, in value order.

#include <algorithm>
#include <cstdint>
#include <limits>

#include "field_errors.hpp"
#include "flee_grid.hpp"
#include "move_codes.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

using namespace fields_detail;

constexpr std::int64_t kFleeUnknown = std::numeric_limits<std::int64_t>::max();  // repair: value forgotten

// Per padded cell flags of a flee repair (FieldBuilder::flags_, cleared before it returns).
constexpr std::uint8_t kAffected = 1;    // lost its support: value recomputed
constexpr std::uint8_t kTouched = 2;     // value changed
constexpr std::uint8_t kMoveDone = 8;    // move recomputed
constexpr std::uint8_t kEndQueued = 16;  // end recomputed

}  // namespace

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

}  // namespace tide
