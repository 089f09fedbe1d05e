// "Would this block?" (FieldBuilder::would_block): reachability after hypothetical walls, from the
// flow tree of the current field, without touching the map.
//
// A reachable cell whose flow path avoids the new walls (and the diagonals they would cut) keeps
// that path, so it stays reachable. Only the cells whose flow runs through the walls (the subtree
// of the flow tree below them) can lose their way; each of them is rescued when a legal move
// (under the new walls) leads to a cell that keeps its path or was rescued already: a search
// inward from the edge of that subtree. What is not rescued is cut off. Moves are symmetric (a
// move's legality depends only on the two cells and its corners), so "has a path to a goal" is
// "is connected to a goal", and the rescue order does not matter.

#include <string>

#include "../grid/cell_checks.hpp"
#include "move_codes.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

constexpr std::uint8_t kWalled = 1;    // would become a wall
constexpr std::uint8_t kAffected = 2;  // its flow runs through a walled cell
constexpr std::uint8_t kRescued = 4;   // affected, but connected to a cell that keeps its path

// The sizes and cells of a would_block() query: an error naming the first that does not fit.
Result<void> check_query(const CostField& cost, const FlowField& field, std::span<const Cell> walls,
                         std::span<const Cell> spawns) {
    const int w = cost.width();
    const int h = cost.height();
    if (field.width() != w || field.height() != h) {
        return Error{"would_block: the field is " + std::to_string(field.width()) + "x" +
                     std::to_string(field.height()) + ", the map " + std::to_string(w) + "x" + std::to_string(h)};
    }
    for (const auto* list : {&walls, &spawns}) {
        for (const Cell& c : *list) {
            if (!cost.contains(c)) {
                return Error{ErrorCode::off_map, std::string("would_block: ") + (list == &walls ? "wall" : "spawn") +
                                                     " cell " + detail::cell_text(c) + " is off the " +
                                                     std::to_string(w) + "x" + std::to_string(h) + " map"};
            }
        }
    }
    return {};
}

}  // namespace

// One would_block() query in phases: mark the walls, find the cells whose flow runs through them,
// rescue those still connected, count what is left. Flags are set only on cells listed in
// affected_ (the affected ones) and touched_ (the walled ones), so clear_flags() undoes them.
struct FieldBuilder::BlockQuery {
    FieldBuilder& builder;
    const int w;
    const int h;
    const int step;  // 1, or 2 with 4 directions: orthogonal moves only
    std::uint8_t* const flags;
    const Direction* const dir;
    const Cost* const cells;

    std::int32_t index(int x, int y) const { return static_cast<std::int32_t>(y * w + x); }
    // True when the cell at (x, y) is on the map and moves in direction code k.
    bool moves(int x, int y, int k) const {
        return x >= 0 && y >= 0 && x < w && y < h && dir[index(x, y)] == static_cast<Direction>(k);
    }
    void add(int x, int y) {
        const std::int32_t i = index(x, y);
        if ((flags[i] & (kAffected | kWalled)) != 0) return;
        flags[i] |= kAffected;
        builder.affected_.push_back(i);
    }
    // Open under the new walls.
    bool open(int x, int y) const {
        if (x < 0 || y < 0 || x >= w || y >= h) return false;
        const std::int32_t i = index(x, y);
        return cells[i] != kCostWall && (flags[i] & kWalled) == 0;
    }
    // The move k from (x, y) is legal under the new walls (corner rule included).
    bool legal(int x, int y, int k) const {
        if (!open(x + kDirectionDx[k], y + kDirectionDy[k])) return false;
        if ((k & 1) == 0) return true;
        return open(x + kDirectionDx[(k + 7) & 7], y + kDirectionDy[(k + 7) & 7]) &&
               open(x + kDirectionDx[(k + 1) & 7], y + kDirectionDy[(k + 1) & 7]);
    }
    void clear_flags() {
        for (const std::int32_t i : builder.affected_) flags[i] = 0;
        for (const std::int32_t i : builder.touched_) flags[i] = 0;
    }

    // 1. The walled cells (not walls already), once each, into touched_.
    void mark_walls(std::span<const Cell> walls) {
        for (const Cell& c : walls) {
            const std::int32_t i = index(c.x, c.y);
            if (cells[i] == kCostWall || (flags[i] & kWalled) != 0) continue;
            flags[i] |= kWalled;
            builder.touched_.push_back(i);
        }
    }

    // 2. Affected: moves into a walled cell, diagonals whose corner it is, and their subtrees.
    void find_affected() {
        for (const std::int32_t i : builder.touched_) {
            const int x = i % w;
            const int y = i / w;
            for (int k = 0; k < kDirectionCount; k += step) {
                const int nx = x + kDirectionDx[k];
                const int ny = y + kDirectionDy[k];
                if (moves(nx, ny, (k + 4) & 7)) add(nx, ny);
            }
            for (int o = 0; o < kDirectionCount && step == 1; o += 2) {
                const int o2 = (o + 2) & 7;
                const int ax = x + kDirectionDx[o], ay = y + kDirectionDy[o];
                const int bx = x + kDirectionDx[o2], by = y + kDirectionDy[o2];
                // a -> b and b -> a are diagonal moves with this cell as a corner.
                const int k = fields_detail::kCornerMove[o];
                if (moves(ax, ay, k)) add(ax, ay);
                if (moves(bx, by, (k + 4) & 7)) add(bx, by);
            }
        }
        const std::pmr::vector<std::int32_t>& affected = builder.affected_;
        for (std::size_t q = 0; q < affected.size(); ++q) {
            const int x = affected[q] % w;
            const int y = affected[q] / w;
            for (int k = 0; k < kDirectionCount; k += step) {
                const int nx = x + kDirectionDx[k];
                const int ny = y + kDirectionDy[k];
                if (moves(nx, ny, (k + 4) & 7)) add(nx, ny);
            }
        }
    }

    // 3. Rescue: legal moves (new walls included) to a cell that keeps its path, then to rescued
    // cells. Returns how many affected cells were rescued.
    std::size_t rescue() {
        std::size_t rescued_end = 0;  // affected_[0, rescued_end) are rescued, in the order found
        auto& queue = builder.rescue_;
        queue.clear();
        for (const std::int32_t i : builder.affected_) {
            const int x = i % w;
            const int y = i / w;
            for (int k = 0; k < kDirectionCount; k += step) {
                if (!legal(x, y, k)) continue;
                const std::int32_t j = index(x + kDirectionDx[k], y + kDirectionDy[k]);
                const auto d = static_cast<std::uint8_t>(dir[j]);
                if ((flags[j] & kAffected) == 0 && d <= static_cast<std::uint8_t>(Direction::goal)) {
                    flags[i] |= kRescued;
                    queue.push_back(i);
                    break;
                }
            }
        }
        for (; rescued_end < queue.size(); ++rescued_end) {
            const int x = queue[rescued_end] % w;
            const int y = queue[rescued_end] / w;
            for (int k = 0; k < kDirectionCount; k += step) {
                if (!legal(x, y, k)) continue;
                const std::int32_t j = index(x + kDirectionDx[k], y + kDirectionDy[k]);
                if ((flags[j] & (kAffected | kRescued)) == kAffected) {
                    flags[j] |= kRescued;
                    queue.push_back(j);
                }
            }
        }
        return queue.size();
    }

    // 4. The answer: what is affected and not rescued is cut off.
    BlockAnswer answer(const FlowField& field, std::span<const Cell> spawns, std::size_t rescued) const {
        BlockAnswer a;
        a.examined_cells = builder.affected_.size();
        a.cut_off_cells = builder.affected_.size() - rescued;
        for (const Cell& s : spawns) {
            const std::int32_t i = index(s.x, s.y);
            const bool was_reachable = field.reachable(s.x, s.y);
            const bool lost = (flags[i] & kWalled) != 0 || (flags[i] & (kAffected | kRescued)) == kAffected;
            a.cut_off_spawns += was_reachable && lost ? 1 : 0;
        }
        a.blocks = spawns.empty() ? a.cut_off_cells > 0 : a.cut_off_spawns > 0;
        return a;
    }
};

Result<BlockAnswer> FieldBuilder::would_block(const CostField& cost, const FlowField& field, const FieldParams& params,
                                              std::span<const Cell> walls, std::span<const Cell> spawns) {
    if (auto r = check_query(cost, field, walls, spawns); !r) return r.error();
    const std::size_t n = cost.size();
    if (block_flags_.size() != n) block_flags_.assign(n, 0);
    affected_.clear();
    touched_.clear();  // the walled cells, to clear their flags
    BlockQuery query{*this,
                     cost.width(),
                     cost.height(),
                     params.connectivity == Connectivity::eight ? 1 : 2,
                     block_flags_.data(),
                     field.directions().data(),
                     cost.cells().data()};
    query.mark_walls(walls);
    query.find_affected();
    const std::size_t rescued = query.rescue();
    const BlockAnswer answer = query.answer(field, spawns, rescued);
    query.clear_flags();
    return answer;
}

}  // namespace tide
