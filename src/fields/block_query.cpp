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

}  // namespace

Result<BlockAnswer> FieldBuilder::would_block(const CostField& cost, const FlowField& field, const FieldParams& params,
                                              std::span<const Cell> walls, std::span<const Cell> spawns) {
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
    const std::size_t n = static_cast<std::size_t>(w) * h;
    if (block_flags_.size() != n) block_flags_.assign(n, 0);
    std::uint8_t* const flags = block_flags_.data();
    const Direction* const dir = field.directions().data();
    const Cost* const cells = cost.cells().data();
    const int step = params.connectivity == Connectivity::eight ? 1 : 2;
    affected_.clear();
    touched_.clear();  // the walled cells, to clear their flags

    auto index = [w](int x, int y) { return static_cast<std::int32_t>(y * w + x); };
    // True when the cell at (x, y) is on the map and moves in direction code k.
    auto moves = [&](int x, int y, int k) {
        return x >= 0 && y >= 0 && x < w && y < h && dir[index(x, y)] == static_cast<Direction>(k);
    };
    auto add = [&](int x, int y) {
        const std::int32_t i = index(x, y);
        if ((flags[i] & (kAffected | kWalled)) != 0) return;
        flags[i] |= kAffected;
        affected_.push_back(i);
    };
    for (const Cell& c : walls) {
        const std::int32_t i = index(c.x, c.y);
        if (cells[i] == kCostWall || (flags[i] & kWalled) != 0) continue;
        flags[i] |= kWalled;
        touched_.push_back(i);
    }
    // Roots: moves into a walled cell, and diagonals whose corner it is.
    for (const std::int32_t i : touched_) {
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
    // Their subtrees.
    for (std::size_t q = 0; q < affected_.size(); ++q) {
        const int x = affected_[q] % w;
        const int y = affected_[q] / w;
        for (int k = 0; k < kDirectionCount; k += step) {
            const int nx = x + kDirectionDx[k];
            const int ny = y + kDirectionDy[k];
            if (moves(nx, ny, (k + 4) & 7)) add(nx, ny);
        }
    }
    // Rescue: legal moves (new walls included) to a cell that keeps its path, then to rescued cells.
    auto open = [&](int x, int y) {
        if (x < 0 || y < 0 || x >= w || y >= h) return false;
        const std::int32_t i = index(x, y);
        return cells[i] != kCostWall && (flags[i] & kWalled) == 0;
    };
    auto legal = [&](int x, int y, int k) {
        if (!open(x + kDirectionDx[k], y + kDirectionDy[k])) return false;
        if ((k & 1) == 0) return true;
        return open(x + kDirectionDx[(k + 7) & 7], y + kDirectionDy[(k + 7) & 7]) &&
               open(x + kDirectionDx[(k + 1) & 7], y + kDirectionDy[(k + 1) & 7]);
    };
    std::size_t rescued_end = 0;  // affected_[0, rescued_end) are rescued, in the order found
    auto& queue = rescue_;
    queue.clear();
    for (const std::int32_t i : affected_) {
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

    BlockAnswer answer;
    answer.examined_cells = affected_.size();
    answer.cut_off_cells = affected_.size() - queue.size();
    for (const Cell& s : spawns) {
        const std::int32_t i = index(s.x, s.y);
        const bool was_reachable = field.reachable(s.x, s.y);
        const bool lost = (flags[i] & kWalled) != 0 || (flags[i] & (kAffected | kRescued)) == kAffected;
        answer.cut_off_spawns += was_reachable && lost ? 1 : 0;
    }
    answer.blocks = spawns.empty() ? answer.cut_off_cells > 0 : answer.cut_off_spawns > 0;
    for (const std::int32_t i : affected_) flags[i] = 0;
    for (const std::int32_t i : touched_) flags[i] = 0;
    return answer;
}

}  // namespace tide
