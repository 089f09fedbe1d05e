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

// Heap order of the lower phase: the smallest value on top (a type, so the heap calls inline).
struct Later {
    template <class Entry>
    bool operator()(const Entry& a, const Entry& b) const {
        return a.value > b.value;
    }
};

}  // namespace

// One repair of a flee field's values, moves and ends once D is repaired, in the phases of the file
// comment (repair_flee() runs them). Every flag it sets is on a cell listed in affected_, touched_
// or flee_list_, so clear_flags() undoes them all.
struct FieldBuilder::FleeRepair {
    FieldBuilder& builder;
    const Fixed* const dist;
    const Code* const via;
    std::int64_t* const value;
    std::uint8_t* const moves;
    std::int32_t* const ends;
    std::uint8_t* const flags;
    const int pw;
    const int height;
    const bool eight;
    const int step;  // 1, or 2 with 4 directions: orthogonal moves only
    const double factor;
    const FleeGrid grid;
    const std::size_t limit;  // cells past which a full relaxation is cheaper

    FleeRepair(FieldBuilder& b, FieldRepairState& s)
        : builder(b),
          dist(s.words_.data()),
          via(s.ranks_.data()),
          value(s.flee_values_.data()),
          moves(s.flee_moves_.data()),
          ends(s.flee_ends_.data()),
          flags(b.flags_.data()),
          pw(s.width_ + 2),
          height(s.height_),
          eight(s.params_.connectivity == Connectivity::eight),
          step(eight ? 1 : 2),
          factor(s.flee_factor_),
          grid{dist, value, b.orth_price_, b.diag_price_, {1, pw + 1, pw, pw - 1, -1, -pw - 1, -pw, -pw + 1}, eight},
          limit(std::max<std::size_t>((static_cast<std::size_t>(s.width_) * s.height_ - s.histogram_[kCostWall]) / 16,
                                      256)) {}

    bool reached(std::int32_t p) const { return static_cast<std::uint8_t>(via[p]) <= kGoalCode; }
    void touch(std::int32_t p) {
        if ((flags[p] & kTouched) == 0) {
            flags[p] |= kTouched;
            builder.touched_.push_back(p);
        }
    }
    void add_affected(std::int32_t p) {
        if ((flags[p] & kAffected) != 0 || value[p] == kFleeNone) return;
        flags[p] |= kAffected;
        builder.affected_.push_back(p);
    }
    // The heap of cells to lower (flee_seeds_ as scratch), smallest value first.
    void push(std::int64_t v, std::int32_t p) {
        builder.flee_seeds_.push_back({v, p});
        std::push_heap(builder.flee_seeds_.begin(), builder.flee_seeds_.end(), Later{});
    }
    void clear_flags() {
        for (std::int32_t p : builder.affected_) flags[p] = 0;
        for (std::int32_t p : builder.touched_) flags[p] = 0;
        for (std::int32_t p : builder.flee_list_) flags[p] = 0;
    }

    // 2. Start values. A cell no danger reaches any more loses its value (its whole pocket does:
    // every cell of it is in the list); one newly reached is recomputed; a safe spot whose start
    // rose lost its support; a start below the value lowers it.
    void start_values() {
        builder.flee_seeds_.clear();
        for (const std::int32_t p : builder.flee_dirty_) {
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
    }

    // 3. Terrain: moves into a dearer cell and diagonals whose corner became a wall lost their
    // support, and so did everything whose flow runs through them; they forget their values.
    // False past the limit.
    bool raise() {
        const std::int32_t* const off = grid.off;
        for (const Change& c : builder.flee_changes_) {
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
        std::pmr::vector<std::int32_t>& affected = builder.affected_;
        for (std::size_t i = 0; i < affected.size(); ++i) {
            const std::int32_t y = affected[i];
            for (int k = 0; k < kDirectionCount; k += step) {
                const std::int32_t x = y + off[k];
                if (moves[x] == ((k + 4) & 7)) add_affected(x);
            }
            if (affected.size() > limit) return false;
        }
        for (const std::int32_t p : affected) {
            value[p] = kFleeUnknown;
            touch(p);
        }
        return true;
    }

    // 4. Seeds: affected cells from their start value or a neighbour that kept its value; cells
    // whose incoming moves got cheaper offer their values again.
    void seed() {
        const std::int32_t* const off = grid.off;
        for (const std::int32_t x : builder.affected_) {
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
        for (const Change& c : builder.flee_changes_) {
            if (c.after >= c.before) continue;
            requeue(c.cell);
            if (eight && c.before == kCostWall) {
                for (int o = 0; o < kDirectionCount; o += 2) requeue(c.cell + off[o]);
            }
        }
    }

    // 5. Lower, in exact value order: settling y offers each neighbour x the price of x's move into
    // y; `settled` counts the cells settled. False past the limit.
    bool lower(std::size_t& settled) {
        // Locals, not members, in the hot loop: the flag stores (bytes) could alias any member.
        std::int64_t* const value = this->value;
        std::uint8_t* const flags = this->flags;
        const FleeGrid grid = this->grid;
        const int step = this->step;
        const std::size_t limit = this->limit;
        std::pmr::vector<FleeEntry>& heap = builder.flee_seeds_;
        auto touch = [&](std::int32_t p) {
            if ((flags[p] & kTouched) == 0) {
                flags[p] |= kTouched;
                builder.touched_.push_back(p);
            }
        };
        while (!heap.empty()) {
            std::pop_heap(heap.begin(), heap.end(), Later{});
            const FleeEntry e = heap.back();
            heap.pop_back();
            const std::int32_t y = e.cell;
            if (value[y] != e.value) continue;  // superseded by a lower value
            if (++settled > limit) return false;
            const Fixed c = grid.dist[y] & 0xFF;
            for (int k = 0; k < kDirectionCount; k += step) {
                const std::int32_t x = y + grid.off[k];
                if (value[x] == kFleeNone || !grid.corners_open(y, k)) continue;
                const std::int64_t cand = e.value + grid.price(k, c);
                if (cand < value[x]) {
                    value[x] = cand;
                    touch(x);
                    heap.push_back({cand, x});
                    std::push_heap(heap.begin(), heap.end(), Later{});
                }
            }
        }
        return true;
    }

    // 6. Moves: a cell's move depends on its value and its neighbours' values, costs and walls,
    // so the cells whose value or cost changed and their neighbours get theirs again.
    void redo_moves() {
        for (const Change& c : builder.flee_changes_) touch(c.cell);
        std::pmr::vector<std::int32_t>& touched = builder.touched_;
        const std::size_t changed_values = touched.size();
        for (std::size_t i = 0; i < changed_values; ++i) {
            const std::int32_t t = touched[i];
            for (int k = -1; k < kDirectionCount; ++k) {
                const std::int32_t p = k < 0 ? t : t + grid.off[k];
                if ((flags[p] & kMoveDone) != 0 || p < pw || p >= pw * (height + 1) || p % pw == 0 ||
                    p % pw == pw - 1) {
                    continue;  // done, or the border
                }
                flags[p] |= kMoveDone;
                builder.flee_list_.push_back(p);
                const std::uint8_t m = grid.move(static_cast<std::size_t>(p));
                if (m != moves[p]) {
                    moves[p] = m;
                    touch(p);
                }
            }
        }
    }

    // 7. Ends: a changed move or value changes the end of every path through it. Those ends are
    // recomputed in value order (a cell's next cell has a lower value); flee_list_ lists them after
    // the cells whose moves were recomputed.
    void redo_ends() {
        std::pmr::vector<std::int32_t>& list = builder.flee_list_;
        const std::size_t moved = list.size();
        for (const std::int32_t p : builder.touched_) {
            if ((flags[p] & kEndQueued) == 0) {
                flags[p] |= kEndQueued;
                list.push_back(p);
            }
        }
        for (std::size_t i = moved; i < list.size(); ++i) {
            const std::int32_t y = list[i];
            for (int k = 0; k < kDirectionCount; k += step) {
                const std::int32_t x = y + grid.off[k];
                if (moves[x] == ((k + 4) & 7) && (flags[x] & kEndQueued) == 0) {
                    flags[x] |= kEndQueued;
                    list.push_back(x);
                }
            }
        }
        std::sort(list.begin() + static_cast<std::ptrdiff_t>(moved), list.end(),
                  [value = value](std::int32_t a, std::int32_t b) {  // ties on the cell (lockstep)
                      return value[a] != value[b] ? value[a] < value[b] : a < b;
                  });
        for (std::size_t i = moved; i < list.size(); ++i) {
            const std::int32_t x = list[i];
            const std::uint8_t m = moves[x];
            if (m < kDirectionCount) {
                ends[x] = ends[x + grid.off[m]];
            } else if (m == kGoalCode) {
                ends[x] = x;
            }
        }
    }
};

Result<RepairStats> FieldBuilder::repair_flee(const CostField& cost, FlowField& field, FieldRepairState& state) {
    RepairStats stats;
    stats.changed_cells = changed_.size();
    if (changed_.empty()) return stats;
    flee_changes_.assign(changed_.begin(), changed_.end());  // the D repair consumes changed_

    // 1. D. An edit that walls a danger is refused before anything changes.
    if (auto r = refuse_walled(changed_, state.goals_, state.width_ + 2, "danger"); !r) return r.error();
    auto d = repair_changes(cost, nullptr, state);
    if (!d) return d.error();
    auto full = [&]() -> Result<RepairStats> {
        flee_relax(cost, state.words_.data(), state.ranks_.data(), state.flee_factor_,
                   state.params_.connectivity == Connectivity::eight, field, &state);
        stats.rebuilt = true;
        stats.touched_cells = static_cast<std::size_t>(state.width_) * state.height_;
        return stats;
    };
    if (d->rebuilt) return full();
    flee_dirty_.assign(touched_.begin(), touched_.end());  // every cell whose D, move or cost changed

    affected_.clear();
    touched_.clear();
    flee_list_.clear();
    FleeRepair pass(*this, state);
    pass.start_values();
    if (!pass.raise()) {
        pass.clear_flags();
        return full();
    }
    stats.affected_cells = affected_.size();
    pass.seed();
    std::size_t settled = 0;
    if (!pass.lower(settled)) {
        pass.clear_flags();
        return full();
    }
    pass.redo_moves();
    pass.redo_ends();
    flee_output(pass.value, pass.moves, pass.ends, flee_list_, field);
    stats.touched_cells = touched_.size();
    settled_ = settled;
    pass.clear_flags();
    return stats;
}

}  // namespace tide
