// The graph search of a HierarchicalField (HierarchicalField::State, plan_state.hpp).
//
// It is a reverse A*: g(node) is the cost from the node to the goals, found from the
// goal sectors (a Dijkstra inside each gives its nodes their cost to the goals) over partner edges
// (one orthogonal move across the border) and intra-sector edges. The heuristic is a lower bound
// of the cost from the sectors units stand in (the targets) to a node; targets can be added later
// (the open list is re-keyed then), so the search resumes instead of starting over. A target is
// done when all its nodes that can reach a goal are settled.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "../grid/always_inline.hpp"
#include "plan_state.hpp"

namespace tide {

using hier_detail::kInf;
using hier_detail::kInfF;

double HierarchicalField::State::heuristic(Cell c) const {
    const double lo = graph->cheapest_cost();
    const double diag = graph->config().params.diagonal_factor;
    const bool eight = graph->config().params.connectivity == Connectivity::eight;
    auto bound = [&](const Rect& r) {
        const int dx = std::max({0, r.x0 - c.x, c.x - r.x1});
        const int dy = std::max({0, r.y0 - c.y, c.y - r.y1});
        if (!eight) return lo * (dx + dy);
        const int a = std::max(dx, dy), b = std::min(dx, dy);
        return lo * ((a - b) + diag * b);
    };
    double best = kInf;
    if (target_rects.size() > 16) {
        best = bound(target_box);
    } else {
        for (const Rect& r : target_rects) best = std::min(best, bound(r));
    }
    if (best == kInf) best = 0.0;
    return best;
}

double HierarchicalField::State::node_heuristic(std::int32_t n) const {
    const double best = heuristic(graph->nodes()[static_cast<std::size_t>(n)].cell);
    const float* const to = graph->to_landmarks(n);
    const float* const from = graph->from_landmarks(n);
    const int L = graph->landmark_count();
    const float lm = L == 8 ? landmark_bound<8>(to, from, L) : landmark_bound<0>(to, from, L);
    return std::max(best, static_cast<double>(lm));
}

template <int N>
float HierarchicalField::State::landmark_bound(const float* to, const float* from, int count) const {
    const int L = N > 0 ? N : count;
    const float* const to_min = lm_to_min.data();
    const float* const from_max = lm_from_eff.data();
    float acc[N > 0 ? N : kMaxLandmarks];
    for (int l = 0; l < L; ++l) {
        const float a = (to_min[l] - to[l]) - 1e-6f * (to_min[l] + to[l]);
        const float b = (from[l] - from_max[l]) - 1e-6f * (from_max[l] + from[l]);
        float m = -kInfF;
        m = m < a ? a : m;
        m = m < b ? b : m;
        acc[l] = m;
    }
    float r = -kInfF;
    for (int l = 0; l < L; ++l) r = r < acc[l] ? acc[l] : r;
    return r;
}

void HierarchicalField::State::push(std::int32_t n) {
    open.push(g[static_cast<std::size_t>(n)] + h(n), n);
    // The row of costs into n, read when n is settled: the search crosses the map, so it was
    // rarely in cache by then (a quarter of the search's perf samples on that one load; the
    // prefetch takes about 3% off the search).
    const int s = graph->node_sector(n);
    const std::int32_t base = graph->node_begin(s), count = graph->node_begin(s + 1) - base;
    const float* row = graph->intra_costs(s).data() + static_cast<std::size_t>(n - base) * count;
    TIDE_PREFETCH(row);
    TIDE_PREFETCH(row + count - 1);
}

void HierarchicalField::State::start() {
    if (started) return;
    started = true;
    const std::size_t n = graph->nodes().size();
    g.assign(n, kInf);
    next.assign(n, -1);
    settled.assign(n, 0);
    goal_comp.assign(n, 0);
    h_cache.assign(n, 0.0);
    h_stamp.assign(n, 0);
    lm_to_min.assign(static_cast<std::size_t>(graph->landmark_count()), kInfF);
    lm_from_max.assign(static_cast<std::size_t>(graph->landmark_count()), -kInfF);
    refresh_from_bounds();
    ++h_gen;
    open.clear();
    const int sc = graph->sector_count();
    target.assign(static_cast<std::size_t>(sc), 0);
    unsettled.assign(static_cast<std::size_t>(sc), 0);
    target_rects.clear();
    target_box = {0, 0, -1, -1};
    pending = 0;
    settled_count = 0;
    const auto& cfg = graph->config();
    for (int s : goal_sectors) {
        int x0, y0, x1, y1;
        graph->sector_rect(s, x0, y0, x1, y1);
        search.load(*cost, x0, y0, x1, y1, cfg.params);
        seed_goals(s);
        search.run();
        for (std::int32_t i = graph->node_begin(s); i < graph->node_begin(s + 1); ++i) {
            const Cell c = graph->nodes()[static_cast<std::size_t>(i)].cell;
            const double v = search.value(search.local(c.x, c.y));
            if (v < g[static_cast<std::size_t>(i)]) {
                g[static_cast<std::size_t>(i)] = v;
                next[static_cast<std::size_t>(i)] = -1;
                note_g(s, v);
            }
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (g[i] == kInf) continue;
        goal_comp[static_cast<std::size_t>(graph->component(static_cast<std::int32_t>(i)))] = 1;
        push(static_cast<std::int32_t>(i));
    }
}

void HierarchicalField::State::note_g(int sec, double v) {
    if (sector_min_g.size() != fields.size()) sector_min_g.assign(fields.size(), kInf);
    sector_min_g[static_cast<std::size_t>(sec)] = std::min(sector_min_g[static_cast<std::size_t>(sec)], v);
}

void HierarchicalField::State::seed_goals(int s) {
    seed_goals(s, search);
}

void HierarchicalField::State::seed_goals(int s, SectorSearch& search) const {
    const int sx = s % graph->sectors_x(), sy = s / graph->sectors_x();
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const int tx = sx + dx, ty = sy + dy;
            if (tx < 0 || ty < 0 || tx >= graph->sectors_x() || ty >= graph->sectors_y()) continue;
            for (const Cell& c : goals_by_sector[static_cast<std::size_t>(ty * graph->sectors_x() + tx)]) {
                search.seed(c.x, c.y, 0.0);
            }
        }
    }
}

void HierarchicalField::State::add_target(int s, bool guide) {
    if (target[static_cast<std::size_t>(s)]) return;
    target[static_cast<std::size_t>(s)] = 1;
    if (!guide) {
        std::int32_t count = 0;
        for (std::int32_t i = graph->node_begin(s); i < graph->node_begin(s + 1); ++i) {
            if (in_goal_comp(i) && !settled[static_cast<std::size_t>(i)]) ++count;
        }
        unsettled[static_cast<std::size_t>(s)] = count;
        if (count > 0) ++pending;
        return;
    }
    stale_keys = true;
    int x0, y0, x1, y1;
    graph->sector_rect(s, x0, y0, x1, y1);
    const Rect r{x0, y0, x1 - 1, y1 - 1};
    target_rects.push_back(r);
    if (target_box.x1 < target_box.x0) {
        target_box = r;
    } else {
        target_box = {std::min(target_box.x0, r.x0), std::min(target_box.y0, r.y0), std::max(target_box.x1, r.x1),
                      std::max(target_box.y1, r.y1)};
    }
    std::int32_t count = 0;
    const int L = graph->landmark_count();
    for (std::int32_t i = graph->node_begin(s); i < graph->node_begin(s + 1); ++i) {
        if (!in_goal_comp(i)) continue;
        if (!settled[static_cast<std::size_t>(i)]) ++count;
        for (int l = 0; l < L; ++l) {
            const float to = graph->to_landmark(i, l), from = graph->from_landmark(i, l);
            if (to < kInfF)
                lm_to_min[static_cast<std::size_t>(l)] = std::min(lm_to_min[static_cast<std::size_t>(l)], to);
            if (from < kInfF)
                lm_from_max[static_cast<std::size_t>(l)] = std::max(lm_from_max[static_cast<std::size_t>(l)], from);
        }
    }
    refresh_from_bounds();
    unsettled[static_cast<std::size_t>(s)] = count;
    if (count > 0) ++pending;
}

void HierarchicalField::State::refresh_from_bounds() {
    lm_from_eff.resize(lm_from_max.size());
    for (std::size_t l = 0; l < lm_from_max.size(); ++l)
        lm_from_eff[l] = lm_from_max[l] > -kInfF ? lm_from_max[l] : kInfF;
}

void HierarchicalField::State::rekey() {
    if (!stale_keys) return;
    stale_keys = false;
    ++h_gen;
    open.rekey([&](std::int32_t n) { return g[static_cast<std::size_t>(n)] + h(n); });
}

double HierarchicalField::State::h(std::int32_t n) {
    if (h_stamp[static_cast<std::size_t>(n)] != h_gen) {
        h_stamp[static_cast<std::size_t>(n)] = h_gen;
        h_cache[static_cast<std::size_t>(n)] = node_heuristic(n);
    }
    return h_cache[static_cast<std::size_t>(n)];
}

void HierarchicalField::State::search_targets() {
    while (pending > 0 && !open.empty()) {
        const std::int32_t v = open.pop();
        if (settled[static_cast<std::size_t>(v)]) continue;
        settled[static_cast<std::size_t>(v)] = 1;
        ++settled_count;
        const int s = graph->node_sector(v);
        if (target[static_cast<std::size_t>(s)] && in_goal_comp(v) && --unsettled[static_cast<std::size_t>(s)] == 0) {
            --pending;
        }
        const double gv = g[static_cast<std::size_t>(v)];
        // Across the border: the partner moves orthogonally into v.
        const std::int32_t p = graph->nodes()[static_cast<std::size_t>(v)].partner;
        if (!settled[static_cast<std::size_t>(p)]) {
            const double nvp = gv + graph->node_cost(v);
            if (nvp < g[static_cast<std::size_t>(p)]) {
                g[static_cast<std::size_t>(p)] = nvp;
                note_g(graph->node_sector(p), nvp);
                next[static_cast<std::size_t>(p)] = v;
                push(p);
            }
        }
        // Inside the sector.
        const std::int32_t base = graph->node_begin(s), count = graph->node_begin(s + 1) - base;
        const float* intra = graph->intra_costs(s).data();
        const float* const into_v = intra + static_cast<std::size_t>(v - base) * count;  // costs u -> v
        for (std::int32_t i = 0; i < count; ++i) {
            const std::int32_t u = base + i;
            // One test instead of three branches (settled, unreachable, not better), which
            // mispredicted; +inf costs give +inf, which is never below g.
            const double nu = gv + static_cast<double>(into_v[i]);
            if ((settled[static_cast<std::size_t>(u)] == 0) & (nu < g[static_cast<std::size_t>(u)])) {
                g[static_cast<std::size_t>(u)] = nu;
                note_g(s, nu);
                next[static_cast<std::size_t>(u)] = v;
                push(u);
            }
        }
    }
}

std::int32_t HierarchicalField::State::entry_node(int sec, Cell c) {
    int x0, y0, x1, y1;
    graph->sector_rect(sec, x0, y0, x1, y1);
    search.load(*cost, x0, y0, x1, y1, graph->config().params);
    seed_goals(sec);
    const auto nodes = graph->nodes();
    const std::int32_t b = graph->node_begin(sec), e = graph->node_begin(sec + 1);
    for (std::int32_t i = b; i < e; ++i) {
        const Cell nc = nodes[static_cast<std::size_t>(i)].cell;
        if (g[static_cast<std::size_t>(i)] < kInf) search.seed(nc.x, nc.y, g[static_cast<std::size_t>(i)]);
    }
    if (c.x < x0 || c.y < y0 || c.x >= x1 || c.y >= y1 || !cost->passable(c.x, c.y)) return -1;
    const std::int32_t stop = search.local(c.x, c.y);
    search.run(std::span<const std::int32_t>(&stop, 1));
    int x = c.x, y = c.y;
    for (int steps = 0; steps < (x1 - x0) * (y1 - y0); ++steps) {
        const double v = search.value(search.local(x, y));
        if (!(v < kInf) || v == 0.0) return -1;
        for (std::int32_t i = b; i < e; ++i) {
            const Cell nc = nodes[static_cast<std::size_t>(i)].cell;
            if (nc.x == x && nc.y == y && v <= g[static_cast<std::size_t>(i)] + 1e-3) return i;
        }
        const int d = search.move(search.local(x, y));
        x += kDirectionDx[d];
        y += kDirectionDy[d];
        if (x < x0 || y < y0 || x >= x1 || y >= y1) return -1;
    }
    return -1;
}

void HierarchicalField::State::ensure_settled(int s) {
    start();
    add_target(s);
    rekey();
    search_targets();
}

std::int32_t HierarchicalField::State::unsettled_goal_nodes(int s) const {
    std::int32_t count = 0;
    for (std::int32_t i = graph->node_begin(s); i < graph->node_begin(s + 1); ++i) {
        count += !settled[static_cast<std::size_t>(i)] && in_goal_comp(i);
    }
    return count;
}

}  // namespace tide
