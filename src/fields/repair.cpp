// Exact incremental repair of a field after terrain edits (FieldBuilder::repair).
//
// The state keeps what the build computed: every cell's exact fixed-point value and its move (by
// tie rank), in the builder's padded layout. A fresh build's result is a function of the map
// alone: value(x) = min over legal moves x -> y of price(move into y) + value(y), and the move is
// the lowest-ranked move reaching that minimum (see integration.cpp). The repair restores
// exactly that, touching only the cells whose value or move changes:
//
// 1. Apply the new costs. A cell turned into a wall loses its value and move; a wall opened has
//    no value yet.
// 2. Raise: a cell whose move became dearer or illegal (its target got dearer or became a wall,
//    or a wall now cuts the corner of its diagonal) lost its support, and so did every cell whose
//    flow passes through it: the subtree of the flow tree below it. Those cells are the
//    *affected* set; their values are forgotten. Every other cell's flow path is intact and no
//    dearer, so its old value is still an achievable upper bound.
// 3. Seed: each affected cell takes the best move into an unaffected neighbour (ties by rank);
//    cells whose incoming moves became cheaper (a lowered cost, a wall opened, a corner freed)
//    are queued with their values so they offer them again.
// 4. Lower: a Dijkstra over the queued cells, in exact value order; a settled cell offers each
//    neighbour its move, improving the value (and move) or, on an exact tie, the move's rank.
//    Every optimal move is offered to a cell before it settles (it comes from a strictly lower
//    value), so values and moves end as a fresh build's, bit for bit.
//
// A repair that would touch much of the map is slower per cell than a build (a binary heap
// against the builder's bucket queue), so past a sixteenth of the open cells it gives up and
// rebuilds; the same when the edit changes the fixed-point scale (huge maps only).

#include <algorithm>
#include <cmath>
#include <string>

#include "../grid/cell_checks.hpp"
#include "move_codes.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

using namespace fields_detail;

// Per padded cell flags of one repair (all cleared before it returns).
constexpr std::uint8_t kAffected = 1;  // lost its support: value recomputed
constexpr std::uint8_t kTouched = 2;   // value, move or cost rewritten: copied to the field at the end
constexpr std::uint8_t kListed = 4;    // in changed_ already

std::uint8_t byte(detail::MoveRank r) {
    return static_cast<std::uint8_t>(r);
}

// Heap order of the lower phase: the smallest value on top (a type, so the heap calls inline).
struct Later {
    template <class Entry>
    bool operator()(const Entry& a, const Entry& b) const {
        return a.value > b.value;
    }
};

}  // namespace

Result<void> FieldBuilder::check_repair(const CostField& cost, const FlowField& field,
                                        const FieldRepairState& state) const {
    if (state.empty()) return Error{"repair: the state holds no build (build the field with a FieldRepairState first)"};
    if (state.width_ != cost.width() || state.height_ != cost.height() || field.width() != cost.width() ||
        field.height() != cost.height()) {
        return Error{"repair: the field is " + std::to_string(field.width()) + "x" + std::to_string(field.height()) +
                     " and its state " + std::to_string(state.width_) + "x" + std::to_string(state.height_) +
                     ", the map " + std::to_string(cost.width()) + "x" + std::to_string(cost.height())};
    }
    return {};
}

// Readies the per-cell flags for the state's map and empties the change list; returns the padded width.
int FieldBuilder::start_changes(const FieldRepairState& state) {
    const int pw = state.width_ + 2;
    const std::size_t n = static_cast<std::size_t>(pw) * (state.height_ + 2);
    if (flags_.size() != n) flags_.assign(n, 0);
    changed_.clear();
    return pw;
}

Result<RepairStats> FieldBuilder::repair(const CostField& cost, std::span<const Cell> changed, FlowField& field,
                                         FieldRepairState& state) {
    if (auto r = check_repair(cost, field, state); !r) return r.error();
    for (const Cell& c : changed) {
        if (!cost.contains(c)) {
            return Error{ErrorCode::off_map, "repair: changed cell " + detail::cell_text(c) + " is off the " +
                                                 std::to_string(cost.width()) + "x" + std::to_string(cost.height()) +
                                                 " map"};
        }
    }
    // The changes against the costs of the search that runs on `cost` (a mixed field's goal search
    // runs on the combined costs: its danger search holds the plain ones).
    FieldRepairState& search = state.danger_state_.empty() ? state : state.danger_state_.front();
    const int pw = start_changes(search);
    const Fixed* const words = search.words_.data();
    const Cost* const cells = cost.cells().data();
    for (const Cell& c : changed) {
        const std::int32_t p = (c.y + 1) * pw + (c.x + 1);
        const Cost after = cells[static_cast<std::size_t>(c.y) * cost.width() + c.x];
        const auto before = static_cast<Cost>(words[p] & 0xFF);
        if (before == after || (flags_[p] & kListed) != 0) continue;
        flags_[p] |= kListed;
        changed_.push_back({p, before, after});
    }
    for (const Change& c : changed_) flags_[c.cell] = 0;
    return repair_kind(cost, field, state);
}

Result<RepairStats> FieldBuilder::repair_rect(const CostField& cost, int x0, int y0, int x1, int y1, FlowField& field,
                                              FieldRepairState& state) {
    if (auto r = check_repair(cost, field, state); !r) return r.error();
    x0 = std::max(x0, 0);
    y0 = std::max(y0, 0);
    x1 = std::min(x1, cost.width() - 1);
    y1 = std::min(y1, cost.height() - 1);
    FieldRepairState& search = state.danger_state_.empty() ? state : state.danger_state_.front();
    const int pw = start_changes(search);
    const Fixed* const words = search.words_.data();
    const Cost* const cells = cost.cells().data();
    for (int y = y0; y <= y1; ++y) {
        for (int x = x0; x <= x1; ++x) {
            const std::int32_t p = (y + 1) * pw + (x + 1);
            const Cost after = cells[static_cast<std::size_t>(y) * cost.width() + x];
            const auto before = static_cast<Cost>(words[p] & 0xFF);
            if (before != after) changed_.push_back({p, before, after});
        }
    }
    return repair_kind(cost, field, state);
}

// The repair of changed_ for the state's kind of field.
Result<RepairStats> FieldBuilder::repair_kind(const CostField& cost, FlowField& field, FieldRepairState& state) {
    if (state.kind_ == FieldKind::flee) return repair_flee(cost, field, state);
    if (!state.danger_state_.empty()) return repair_mixed(cost, field, state);
    return repair_changes(cost, &field, state);
}

Result<void> FieldBuilder::rebuild(const CostField& cost, FlowField* field, FieldRepairState& state) {
    if (auto r = integrate(cost, state.goals_, state.params_, state.words_, state.ranks_); !r) return r;
    if (field) write_field(cost, *field);
    state.frac_ = frac_;
    return {};
}

// One repair of a search's values and moves for changed_, in the phases of the file comment
// (repair_changes() runs them). Every flag it sets is on a cell listed in changed_, affected_ or
// touched_, so clear_flags() undoes them all.
struct FieldBuilder::GoalRepair {
    FieldBuilder& builder;
    FieldRepairState& state;
    Fixed* const dist;
    Code* const via;
    std::uint8_t* const flags;
    const int pw;
    const bool eight;
    const int step;  // 1, or 2 with 4 directions: orthogonal moves only
    const std::int32_t off[kDirectionCount];
    std::size_t limit = 0;  // cells past which a rebuild is cheaper

    GoalRepair(FieldBuilder& b, FieldRepairState& s)
        : builder(b),
          state(s),
          dist(s.words_.data()),
          via(s.ranks_.data()),
          flags(b.flags_.data()),
          pw(s.width_ + 2),
          eight(s.params_.connectivity == Connectivity::eight),
          step(eight ? 1 : 2),
          off{1, pw + 1, pw, pw - 1, -1, -pw - 1, -pw, -pw + 1} {}

    bool is_wall(std::int32_t p) const { return (dist[p] & 0xFF) == kCostWall; }
    // True when the cell at p moves in direction code k.
    bool moves(std::int32_t p, int k) const { return via[p] == Code{kRankOfCode[k]}; }
    // A diagonal move k from p needs both cells beside it open (the same for its reverse).
    bool corners_open(std::int32_t p, int k) const {
        return !is_wall(p + off[(k + 7) & 7]) && !is_wall(p + off[(k + 1) & 7]);
    }
    void touch(std::int32_t p) {
        if ((flags[p] & kTouched) == 0) {
            flags[p] |= kTouched;
            builder.touched_.push_back(p);
        }
    }
    void add_affected(std::int32_t p) {
        if ((flags[p] & kAffected) != 0 || byte(via[p]) >= kDirectionCount) return;
        flags[p] |= kAffected;
        builder.affected_.push_back(p);
    }
    void push(Fixed value, std::int32_t p) {
        builder.heap_.push_back({value, p});
        std::push_heap(builder.heap_.begin(), builder.heap_.end(), Later{});
    }
    void clear_flags() {
        for (const Change& c : builder.changed_) flags[c.cell] = 0;
        for (std::int32_t p : builder.affected_) flags[p] = 0;
        for (std::int32_t p : builder.touched_) flags[p] = 0;
    }

    // An edit that walls a goal is refused before anything changes.
    Result<void> refuse_walled_goals() const {
        for (const Change& c : builder.changed_) {
            if (c.after == kCostWall && byte(via[c.cell]) == kGoalCode) {
                const int x = c.cell % pw - 1;
                const int y = c.cell / pw - 1;
                return Error{ErrorCode::on_wall, "repair: the edit turns goal " + detail::cell_text({x, y}) +
                                                     " into a wall (build a field for the remaining goals instead)"};
            }
        }
        return {};
    }

    // Counts the new costs in the state's histogram and sets the limit. False when a fresh build
    // on the edited map would use another fixed-point scale (the open cells and the dearest cost
    // set it): then only a rebuild gives its bits.
    bool count_costs() {
        std::size_t open = 0;
        for (const Change& c : builder.changed_) {
            --state.histogram_[c.before];
            ++state.histogram_[c.after];
        }
        for (int c = 1; c < kCostWall; ++c) open += state.histogram_[c];
        Cost hi = 1;
        for (int c = kCostMax; c > 1; --c) {
            if (state.histogram_[c] != 0) {
                hi = static_cast<Cost>(c);
                break;
            }
        }
        limit = std::max<std::size_t>(open / 16, 256);
        return fraction_bits(open, hi) == state.frac_;
    }

    // 1. New costs. Cells opened need a value: they join the affected set directly. Returns how many.
    std::size_t apply_costs() {
        for (const Change& c : builder.changed_) {
            touch(c.cell);
            if (c.after == kCostWall) {
                dist[c.cell] = kCostWall;  // value 0, cost 255, as the builder leaves walls
                via[c.cell] = Code{kWallCode};
            } else if (c.before == kCostWall) {
                dist[c.cell] = (kNotReached << 8) | c.after;
                via[c.cell] = Code{kUnreachableCode};
                flags[c.cell] |= kAffected;
                builder.affected_.push_back(c.cell);
            } else {
                dist[c.cell] = (dist[c.cell] & ~Fixed{0xFF}) | c.after;
            }
        }
        return builder.affected_.size();
    }

    // 2. Raise: moves into a dearer cell, diagonals whose corner became a wall, and everything
    // whose flow runs through them (affected_ after the `opened` cells) lose their values. False
    // past the limit.
    bool raise(std::size_t opened) {
        for (const Change& c : builder.changed_) {
            if (c.after <= c.before) continue;
            for (int k = 0; k < kDirectionCount; k += step) {
                const std::int32_t x = c.cell + off[k];
                if (moves(x, (k + 4) & 7)) add_affected(x);
            }
            if (eight && c.after == kCostWall) {
                for (int o = 0; o < kDirectionCount; o += 2) {
                    const std::int32_t a = c.cell + off[o];
                    const std::int32_t b = c.cell + off[(o + 2) & 7];
                    const int ab = kCornerMove[o];
                    if (moves(a, ab)) add_affected(a);
                    if (moves(b, (ab + 4) & 7)) add_affected(b);
                }
            }
        }
        std::pmr::vector<std::int32_t>& affected = builder.affected_;
        for (std::size_t i = opened; i < affected.size(); ++i) {
            const std::int32_t y = affected[i];
            for (int k = 0; k < kDirectionCount; k += step) {
                const std::int32_t x = y + off[k];
                if (moves(x, (k + 4) & 7)) add_affected(x);
            }
            if (affected.size() > limit) return false;
        }
        for (std::size_t i = opened; i < affected.size(); ++i) {
            const std::int32_t p = affected[i];
            dist[p] = (kNotReached << 8) | (dist[p] & 0xFF);
            via[p] = Code{kUnreachableCode};
            touch(p);
        }
        return true;
    }

    // 3. Seeds: affected cells from their unaffected neighbours; cells whose incoming moves got cheaper.
    void seed() {
        builder.heap_.clear();
        for (const std::int32_t x : builder.affected_) {
            Fixed best = kNotReached;
            std::uint8_t rank = kUnreachableCode;
            for (int k = 0; k < kDirectionCount; k += step) {
                const std::int32_t y = x + off[k];
                if ((flags[y] & kAffected) != 0 || byte(via[y]) > kGoalCode) continue;
                if ((k & 1) != 0 && !corners_open(x, k)) continue;
                const Fixed cand =
                    (dist[y] >> 8) + ((k & 1) != 0 ? builder.diag_price_ : builder.orth_price_)[dist[y] & 0xFF];
                const std::uint8_t r = kRankOfCode[k];
                if (cand < best || (cand == best && r < rank)) {
                    best = cand;
                    rank = r;
                }
            }
            if (best < kNotReached) {
                dist[x] = (best << 8) | (dist[x] & 0xFF);
                via[x] = Code{rank};
                push(best, x);
            }
        }
        auto requeue = [&](std::int32_t p) {
            if ((flags[p] & kAffected) == 0 && byte(via[p]) <= kGoalCode) push(dist[p] >> 8, p);
        };
        for (const Change& c : builder.changed_) {
            if (c.after >= c.before) continue;
            requeue(c.cell);
            if (eight && c.before == kCostWall) {
                for (int o = 0; o < kDirectionCount; o += 2) requeue(c.cell + off[o]);
            }
        }
    }

    // 4. Lower, in exact value order; `settled` counts the cells settled. False past the limit.
    bool lower(std::size_t& settled) {
        // Locals, not members, in the hot loop: the flag stores (bytes) could alias any member.
        Fixed* const dist = this->dist;
        Code* const via = this->via;
        std::uint8_t* const flags = this->flags;
        const int step = this->step;
        const std::int32_t off[kDirectionCount] = {1, pw + 1, pw, pw - 1, -1, -pw - 1, -pw, -pw + 1};
        std::pmr::vector<QueueEntry>& heap = builder.heap_;
        auto touch = [&](std::int32_t p) {
            if ((flags[p] & kTouched) == 0) {
                flags[p] |= kTouched;
                builder.touched_.push_back(p);
            }
        };
        auto is_wall = [dist](std::int32_t p) { return (dist[p] & 0xFF) == kCostWall; };
        auto corners_open = [&](std::int32_t p, int k) {
            return !is_wall(p + off[(k + 7) & 7]) && !is_wall(p + off[(k + 1) & 7]);
        };
        while (!heap.empty()) {
            std::pop_heap(heap.begin(), heap.end(), Later{});
            const QueueEntry e = heap.back();
            heap.pop_back();
            const std::int32_t y = e.cell;
            if ((dist[y] >> 8) != e.value) continue;  // superseded by a lower value
            if (++settled > limit) return false;
            const Fixed d = e.value;
            const Fixed c = dist[y] & 0xFF;
            for (int k = 0; k < kDirectionCount; k += step) {
                const std::int32_t x = y + off[k];
                const Fixed wx = dist[x];
                if ((wx & 0xFF) == kCostWall) continue;
                if ((k & 1) != 0 && !corners_open(y, k)) continue;
                const Fixed cand = d + ((k & 1) != 0 ? builder.diag_price_[c] : builder.orth_price_[c]);
                const std::uint8_t r = kRankOfCode[(k + 4) & 7];  // x moves back toward y
                const Fixed old = wx >> 8;
                if (cand < old) {
                    dist[x] = (cand << 8) | (wx & 0xFF);
                    via[x] = Code{r};
                    touch(x);
                    push(cand, x);
                } else if (cand == old && r < byte(via[x])) {
                    via[x] = Code{r};
                    touch(x);
                }
            }
        }
        return true;
    }

    // Copies the cells it rewrote to the field.
    void write(FlowField& field) const {
        const int w = state.width_;
        const double scale = std::ldexp(1.0, -state.frac_);
        float* const integration = field.integration_.data();
        Direction* const directions = field.directions_.data();
        for (const std::int32_t p : builder.touched_) {
            const int x = p % pw - 1;
            const int y = p / pw - 1;
            const std::size_t u = static_cast<std::size_t>(y) * w + x;
            integration[u] = to_float(dist[p] >> 8, via[p], scale);
            directions[u] = static_cast<Direction>(kRankToCode[byte(via[p])]);
        }
    }
};

// Repairs the search of `state` (its values and moves) for changed_ and, when `field` is given,
// writes the cells it rewrote to it; touched_ lists them afterwards (unless it rebuilt).
Result<RepairStats> FieldBuilder::repair_changes(const CostField& cost, FlowField* field, FieldRepairState& state) {
    RepairStats stats;
    stats.changed_cells = changed_.size();
    affected_.clear();
    touched_.clear();
    GoalRepair pass(*this, state);
    if (auto r = pass.refuse_walled_goals(); !r) {
        pass.clear_flags();
        return r.error();
    }
    if (changed_.empty()) return stats;
    auto give_up = [&]() -> Result<RepairStats> {
        pass.clear_flags();
        if (auto r = rebuild(cost, field, state); !r) return r.error();
        stats.rebuilt = true;
        stats.affected_cells = affected_.size();
        stats.touched_cells = static_cast<std::size_t>(state.width_) * state.height_;
        return stats;
    };
    if (!pass.count_costs()) return give_up();

    set_prices(state.frac_, state.params_.diagonal_factor);
    pw_ = pass.pw;
    ph_ = state.height_ + 2;
    last_dist_ = pass.dist;
    last_via_ = pass.via;
    const std::size_t opened = pass.apply_costs();
    if (!pass.raise(opened)) return give_up();
    stats.affected_cells = affected_.size();
    pass.seed();
    std::size_t settled = 0;
    if (!pass.lower(settled)) return give_up();

    stats.touched_cells = touched_.size();
    settled_ = settled;
    pass.clear_flags();
    if (field) pass.write(*field);
    return stats;
}

}  // namespace tide
