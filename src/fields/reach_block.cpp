#include "reach_block.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "../grid/cell_checks.hpp"

namespace tide::detail {
namespace {

constexpr int kLocalMargin = 4;  // cells round the walls' box the local check may walk through

// Cells reachable from `sources` over the free cells of `cost` inside [x0, x1] x [y0, y1], not in
// `extra` (cells walled in addition: flag 1), by moves of `connectivity` with the corner rule.
// Marks them 2 in `mark` (indexed inside the window); returns how many.
std::size_t flood(const CostField& cost, int x0, int y0, int x1, int y1, std::span<const Cell> sources,
                  Connectivity connectivity, std::vector<std::uint8_t>& mark, std::vector<std::int32_t>& queue) {
    const int w = x1 - x0 + 1;
    const auto at = [&](int x, int y) -> std::uint8_t& {
        return mark[static_cast<std::size_t>(y - y0) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x - x0)];
    };
    const auto open = [&](int x, int y) {
        return x >= x0 && y >= y0 && x <= x1 && y <= y1 && cost.passable(x, y) && at(x, y) != 1;
    };
    queue.clear();
    std::size_t reached = 0;
    for (const Cell& s : sources) {
        if (!open(s.x, s.y) || at(s.x, s.y) == 2) continue;
        at(s.x, s.y) = 2;
        queue.push_back((s.y - y0) * w + (s.x - x0));
        ++reached;
    }
    const int steps = connectivity == Connectivity::eight ? kDirectionCount : kDirectionCount / 2;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const int x = x0 + queue[head] % w, y = y0 + queue[head] / w;
        for (int k = 0; k < steps; ++k) {
            const int d = connectivity == Connectivity::eight ? k : 2 * k;
            const int nx = x + kDirectionDx[d], ny = y + kDirectionDy[d];
            if (!open(nx, ny) || at(nx, ny) == 2) continue;
            if ((d & 1) != 0 && (!open(nx, y) || !open(x, ny))) continue;  // no corner cutting
            at(nx, ny) = 2;
            queue.push_back((ny - y0) * w + (nx - x0));
            ++reached;
        }
    }
    return reached;
}

}  // namespace

Result<BlockAnswer> reach_would_block(const CostField& cost, std::span<const Cell> goals, Connectivity connectivity,
                                      std::span<const Cell> walls, std::span<const Cell> spawns) {
    const int W = cost.width(), H = cost.height();
    for (const Cell& c : walls)
        if (!cost.contains(c)) return outside_error("would_block: wall", c, W, H);
    for (const Cell& c : spawns)
        if (!cost.contains(c)) return outside_error("would_block: spawn", c, W, H);
    BlockAnswer out;
    // The walls that change something, and their box.
    std::vector<Cell> fresh;
    int bx0 = W, by0 = H, bx1 = -1, by1 = -1;
    for (const Cell& c : walls) {
        if (!cost.passable(c.x, c.y)) continue;
        fresh.push_back(c);
        bx0 = std::min(bx0, c.x), by0 = std::min(by0, c.y), bx1 = std::max(bx1, c.x), by1 = std::max(by1, c.y);
    }
    std::sort(fresh.begin(), fresh.end(), [](Cell a, Cell b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
    const auto walled = [&fresh](Cell c) {
        return std::binary_search(fresh.begin(), fresh.end(), c,
                                  [](Cell a, Cell b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    };
    std::vector<std::uint8_t> mark;
    std::vector<std::int32_t> queue;
    const auto mark_walls = [&](int x0, int y0, int w) {
        for (const Cell& c : fresh)
            if (c.x >= x0 && c.y >= y0 && c.x - x0 < w)
                mark[static_cast<std::size_t>(c.y - y0) * static_cast<std::size_t>(w) +
                     static_cast<std::size_t>(c.x - x0)] = 1;
    };
    if (fresh.empty()) return out;
    // A walled goal or spawn needs the whole map: is the goal's part still reached from the
    // others, was the spawn reachable at all (a spawn walled over counts when it was)?
    bool local = true;
    for (const Cell& g : goals) local = local && !walled(g);
    for (const Cell& s : spawns) local = local && !walled(s);

    // 1. Local: the free cells next to the walls, connected to each other near them?
    if (local) {
        const int x0 = std::max(0, bx0 - kLocalMargin), y0 = std::max(0, by0 - kLocalMargin);
        const int x1 = std::min(W - 1, bx1 + kLocalMargin), y1 = std::min(H - 1, by1 + kLocalMargin);
        const int w = x1 - x0 + 1;
        mark.assign(static_cast<std::size_t>(w) * static_cast<std::size_t>(y1 - y0 + 1), 0);
        mark_walls(x0, y0, w);
        std::vector<Cell> ring;
        for (const Cell& c : fresh) {
            for (int d = 0; d < kDirectionCount; ++d) {
                const Cell n{c.x + kDirectionDx[d], c.y + kDirectionDy[d]};
                if (cost.contains(n) && cost.passable(n.x, n.y) && !walled(n)) ring.push_back(n);
            }
        }
        std::size_t reached = 0;
        if (!ring.empty()) reached = flood(cost, x0, y0, x1, y1, {ring.data(), 1}, connectivity, mark, queue);
        out.examined_cells = reached;
        bool joined = true;
        for (const Cell& r : ring) {
            joined = joined && mark[static_cast<std::size_t>(r.y - y0) * static_cast<std::size_t>(w) +
                                    static_cast<std::size_t>(r.x - x0)] == 2;
        }
        if (joined) return out;  // nothing cut off
    }

    // 2. Over the whole map: the cells that reach a goal now, and those that still do.
    mark.assign(static_cast<std::size_t>(W) * static_cast<std::size_t>(H), 0);
    flood(cost, 0, 0, W - 1, H - 1, goals, connectivity, mark, queue);
    std::vector<std::uint8_t> before = mark;
    mark.assign(mark.size(), 0);
    mark_walls(0, 0, W);
    flood(cost, 0, 0, W - 1, H - 1, goals, connectivity, mark, queue);
    out.examined_cells += 2 * static_cast<std::size_t>(W) * static_cast<std::size_t>(H);
    for (std::size_t i = 0; i < mark.size(); ++i) out.cut_off_cells += before[i] == 2 && mark[i] == 0 ? 1 : 0;
    for (const Cell& s : spawns) {
        const std::size_t i =
            static_cast<std::size_t>(s.y) * static_cast<std::size_t>(W) + static_cast<std::size_t>(s.x);
        if (before[i] == 2 && mark[i] != 2) ++out.cut_off_spawns;  // cut off, or walled over (mark 1)
    }
    out.blocks = spawns.empty() ? out.cut_off_cells > 0 : out.cut_off_spawns > 0;
    return out;
}

}  // namespace tide::detail
