// HierarchicalField::route() and its phases (HierarchicalField::State, plan_state.hpp): the start
// sectors' nodes and fields, the route their traces follow, corner fill and corridor, the route's
// nodes and fields goal first, then settling (settling.cpp).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "../grid/cell_checks.hpp"
#include "plan_state.hpp"

namespace tide {

using hier_detail::kInf;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Result<RouteStats> HierarchicalField::route(std::span<const Cell> starts) {
    State& s = *s_;
    for (const Cell& c : starts) {
        if (!s.cost->contains(c)) return detail::outside_error("start", c, s.cost->width(), s.cost->height());
    }
    const auto t0 = std::chrono::steady_clock::now();
    const SectorGraph& graph = *s.graph;
    RouteStats stats;
    std::vector<int> start_sectors;
    for (const Cell& c : starts) start_sectors.push_back(graph.sector_of(c.x, c.y));
    std::sort(start_sectors.begin(), start_sectors.end());
    start_sectors.erase(std::unique(start_sectors.begin(), start_sectors.end()), start_sectors.end());
    if (s.routed_already(starts)) {
        stats.nodes_settled = s.settled_count;
        return stats;
    }

    // 1-2. The start sectors' nodes, then their fields (so units move at once).
    double search_ms = 0.0, fields_ms = 0.0;
    auto t = std::chrono::steady_clock::now();
    s.settle_start_nodes(start_sectors);
    search_ms += ms_since(t);
    const std::uint32_t first_build = s.builds + 1;
    t = std::chrono::steady_clock::now();
    s.build_start_fields(start_sectors, t0, stats);
    fields_ms += ms_since(t);
    if (stats.first_field_ms == 0.0) stats.first_field_ms = ms_since(t0);

    // 3-5. The route: the sectors the starts' traces cross and the chains of best next nodes they
    // continue on, then corner fill and corridor.
    State::RouteWay way;
    way.on_route.assign(static_cast<std::size_t>(graph.sector_count()), 0);
    way.chain.assign(graph.nodes().size(), 0);
    way.traced = s.cells_to_trace(starts, first_build);
    s.trace_routes(way);
    stats.route_sectors = way.sectors.size();
    if (s.config.fill_corners) s.fill_corners(way);
    s.widen(way);

    // 6-7. Their nodes, then their fields, goal first: each seeded with the fields built before it.
    t = std::chrono::steady_clock::now();
    s.settle_route_nodes(way.sectors);
    search_ms += ms_since(t);
    const std::vector<int> ordered = s.goal_first(way.sectors);
    t = std::chrono::steady_clock::now();
    const std::vector<int> todo = s.fields_to_build(ordered, first_build, stats);
    s.build_route_fields(todo, stats);

    // 8. Settling: fields lowered where a neighbour built later would lower them.
    const auto settle_t0 = std::chrono::steady_clock::now();
    s.settle_fields(todo, stats);
    stats.settle_ms = ms_since(settle_t0);
    for (int sec : way.sectors) s.fields[static_cast<std::size_t>(sec)]->routed = true;
    fields_ms += ms_since(t);
    stats.nodes_settled = s.settled_count;
    stats.search_ms = search_ms;
    stats.fields_ms = fields_ms;
    return stats;
}

bool HierarchicalField::State::needs_work(Cell c) const {
    const SectorField* f = fields[static_cast<std::size_t>(graph->sector_of(c.x, c.y))].get();
    return f == nullptr || !f->routed;
}

bool HierarchicalField::State::routed_already(std::span<const Cell> starts) const {
    if (!started) return false;
    for (const Cell& c : starts) {
        if (needs_work(c)) return false;
    }
    return true;
}

void HierarchicalField::State::settle_start_nodes(const std::vector<int>& start_sectors) {
    start();
    for (int sec : start_sectors) add_target(sec);
    rekey();
    search_targets();
}

void HierarchicalField::State::build_start_fields(const std::vector<int>& start_sectors,
                                                  std::chrono::steady_clock::time_point t0, RouteStats& stats) {
    for (int sec : start_sectors) {
        if (fields[static_cast<std::size_t>(sec)]) continue;
        build_field(sec);
        if (stats.first_field_ms == 0.0) stats.first_field_ms = ms_since(t0);
        ++stats.fields_built;
    }
}

std::vector<Cell> HierarchicalField::State::cells_to_trace(std::span<const Cell> starts,
                                                           std::uint32_t first_build) const {
    std::vector<Cell> cells;
    for (const Cell& c : starts) {
        const SectorField* f = fields[static_cast<std::size_t>(graph->sector_of(c.x, c.y))].get();
        if (needs_work(c) || !f || f->build >= first_build) cells.push_back(c);
    }
    std::sort(cells.begin(), cells.end(), [&](const Cell& a, const Cell& b) {
        const int sa = graph->sector_of(a.x, a.y), sb = graph->sector_of(b.x, b.y);
        return sa != sb ? sa < sb : (a.y != b.y ? a.y < b.y : a.x < b.x);
    });
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    std::vector<Cell> picked;
    for (std::size_t b = 0; b < cells.size();) {
        const int home = graph->sector_of(cells[b].x, cells[b].y);
        std::size_t e = b;
        while (e < cells.size() && graph->sector_of(cells[e].x, cells[e].y) == home) ++e;
        const std::size_t step = (e - b + 31) / 32;
        for (std::size_t i = b; i < e; i += step) picked.push_back(cells[i]);
        b = e;
    }
    return picked;
}

void HierarchicalField::State::trace_routes(RouteWay& way) {
    std::vector<std::uint8_t> traced_into(static_cast<std::size_t>(graph->sector_count()), 0);
    for (const Cell& c0 : way.traced) {
        const int home = graph->sector_of(c0.x, c0.y);
        way.add(home);
        int x = c0.x, y = c0.y;
        for (std::size_t steps = 0; steps <= cost->size(); ++steps) {
            const int sec = graph->sector_of(x, y);
            const SectorField* f = fields[static_cast<std::size_t>(sec)].get();
            if (f == nullptr) {
                // Entered a sector without a field: continue on the chain of its best node here.
                way.add(sec);
                if (traced_into[static_cast<std::size_t>(sec)]) break;
                traced_into[static_cast<std::size_t>(sec)] = 1;
                const std::int32_t best = entry_node(sec, Cell{x, y});
                if (best >= 0) follow_chain(way, best);
                break;
            }
            if (sec != home) {
                if (traced_into[static_cast<std::size_t>(sec)]) break;
                traced_into[static_cast<std::size_t>(sec)] = 1;
            }
            const Direction d = f->directions[static_cast<std::size_t>(y - f->y0) * f->width + (x - f->x0)];
            if (!is_move(d)) break;
            x += kDirectionDx[static_cast<int>(d)];
            y += kDirectionDy[static_cast<int>(d)];
        }
    }
}

void HierarchicalField::State::follow_chain(RouteWay& way, std::int32_t from) const {
    const auto nodes = graph->nodes();
    for (std::int32_t n = from;
         n >= 0 && !way.chain[static_cast<std::size_t>(n)] && g[static_cast<std::size_t>(n)] < kInf;
         n = next[static_cast<std::size_t>(n)]) {
        way.chain[static_cast<std::size_t>(n)] = 1;
        const Cell c = nodes[static_cast<std::size_t>(n)].cell;
        way.add(graph->sector_of(c.x, c.y));
    }
}

void HierarchicalField::State::fill_corners(RouteWay& way) const {
    std::vector<Cell> near;
    if (config.corner_reach >= 0) {
        const auto nodes = graph->nodes();
        for (std::size_t n = 0; n < nodes.size(); ++n)
            if (way.chain[n]) near.push_back(nodes[n].cell);
        near.insert(near.end(), way.traced.begin(), way.traced.end());
    }
    auto near_way = [&](int cx, int cy) {
        if (config.corner_reach < 0) return true;
        for (const Cell& c : near)
            if (std::max(std::abs(c.x - cx), std::abs(c.y - cy)) <= config.corner_reach) return true;
        return false;
    };
    const int side = graph->sector_size();
    const std::size_t count = way.sectors.size();
    for (std::size_t i = 0; i < count; ++i) {
        const int sx = way.sectors[i] % graph->sectors_x(), sy = way.sectors[i] / graph->sectors_x();
        for (int dy = -1; dy <= 1; dy += 2) {
            for (int dx = -1; dx <= 1; dx += 2) {
                const int tx = sx + dx, ty = sy + dy;
                if (tx < 0 || ty < 0 || tx >= graph->sectors_x() || ty >= graph->sectors_y()) continue;
                if (!way.on_route[static_cast<std::size_t>(ty * graph->sectors_x() + tx)]) continue;
                // The grid point the two sectors share.
                if (!near_way((sx + (dx > 0 ? 1 : 0)) * side, (sy + (dy > 0 ? 1 : 0)) * side)) continue;
                way.add(sy * graph->sectors_x() + tx);
                way.add(ty * graph->sectors_x() + sx);
            }
        }
    }
}

void HierarchicalField::State::widen(RouteWay& way) const {
    const bool short_route = way.sectors.size() <= static_cast<std::size_t>(config.short_route);
    for (int ring = 0; ring < config.corridor + (short_route ? 1 : 0); ++ring) {
        const std::size_t count = way.sectors.size();
        for (std::size_t i = 0; i < count; ++i) {
            for (int k = 0; k < kDirectionCount; ++k) {
                const int t = neighbour(way.sectors[i], k);
                if (t >= 0) way.add(t);
            }
        }
    }
}

void HierarchicalField::State::settle_route_nodes(const std::vector<int>& route) {
    for (int sec : route) add_target(sec, false);
    search_targets();
}

std::vector<int> HierarchicalField::State::goal_first(const std::vector<int>& route) const {
    std::vector<double> key(route.size(), kInf);
    for (std::size_t i = 0; i < route.size(); ++i) {
        const int sec = route[i];
        if (!goals_by_sector[static_cast<std::size_t>(sec)].empty()) key[i] = 0.0;
        for (std::int32_t n = graph->node_begin(sec); n < graph->node_begin(sec + 1); ++n) {
            key[i] = std::min(key[i], g[static_cast<std::size_t>(n)]);
        }
    }
    std::vector<std::size_t> order(route.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return key[a] != key[b] ? key[a] < key[b] : route[a] < route[b]; });
    std::vector<int> sorted;
    sorted.reserve(order.size());
    for (std::size_t i : order) sorted.push_back(route[i]);
    return sorted;
}

std::vector<int> HierarchicalField::State::fields_to_build(const std::vector<int>& route, std::uint32_t first_build,
                                                           RouteStats& stats) const {
    std::vector<int> todo;
    for (int sec : route) {
        const SectorField* f = fields[static_cast<std::size_t>(sec)].get();
        if (f != nullptr && f->build < first_build) continue;
        if (f != nullptr) ++stats.fields_rebuilt;
        todo.push_back(sec);
    }
    return todo;
}

void HierarchicalField::State::build_route_fields(const std::vector<int>& todo, RouteStats& stats) {
    std::vector<int> level(static_cast<std::size_t>(graph->sector_count()), -1);
    for (int pass = 0; pass <= config.refine_passes; ++pass) {
        int waves = 0;
        for (int sec : todo) {
            int lv = 0;
            for (int k = 0; k < kDirectionCount; k += 2) {
                const int t = neighbour(sec, k);
                if (t >= 0) lv = std::max(lv, level[static_cast<std::size_t>(t)] + 1);
            }
            level[static_cast<std::size_t>(sec)] = lv;
            waves = std::max(waves, lv + 1);
        }
        std::vector<std::vector<int>> by_wave(static_cast<std::size_t>(waves));
        for (int sec : todo) by_wave[static_cast<std::size_t>(level[static_cast<std::size_t>(sec)])].push_back(sec);
        build_levels(by_wave, level);
        stats.fields_built += todo.size();
        for (int sec : todo) level[static_cast<std::size_t>(sec)] = -1;
        if (pass > 0) stats.fields_rebuilt += todo.size();
    }
}

}  // namespace tide
