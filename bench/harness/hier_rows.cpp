#include "hier_rows.hpp"

#include <algorithm>
#include <chrono>

#include "tide/field_builder.hpp"
#include "tide/hierarchy.hpp"
#include "timing.hpp"

namespace tide::bench {
namespace {

/// Passable cells of the `window` x `window` square in the corner at (cx, cy), nearest the corner
/// first (Chebyshev distance, then row, then column).
std::vector<Cell> corner_cells(const CostField& cost, int cx, int cy, int window) {
    const int w = std::min(window, cost.width()), h = std::min(window, cost.height());
    const int x0 = cx == 0 ? 0 : cost.width() - w, y0 = cy == 0 ? 0 : cost.height() - h;
    std::vector<Cell> cells;
    for (int y = y0; y < y0 + h; ++y) {
        for (int x = x0; x < x0 + w; ++x) {
            if (cost.passable(x, y)) cells.push_back({x, y});
        }
    }
    auto d = [&](const Cell& c) { return std::max(std::abs(c.x - cx), std::abs(c.y - cy)); };
    std::stable_sort(cells.begin(), cells.end(), [&](const Cell& a, const Cell& b) { return d(a) < d(b); });
    return cells;
}

}  // namespace

Result<std::pair<Cell, Cell>> corner_route(const CostField& cost, const SectorGraph& graph) {
    // Goal near the bottom-right corner, start near the top-left one, joined by a path (a goal in a
    // walled-in pocket is skipped).
    const std::vector<Cell> goals = corner_cells(cost, cost.width() - 1, cost.height() - 1, 32);
    const std::vector<Cell> starts = corner_cells(cost, 0, 0, 32);
    for (std::size_t g = 0; g < goals.size() && g < 20; ++g) {
        auto made = HierarchicalField::create(cost, graph, std::span<const Cell>(&goals[g], 1));
        if (!made) return made.error();
        for (std::size_t s = 0; s < starts.size() && s < 50; ++s) {
            if (made->reachable(starts[s].x, starts[s].y)) return std::pair<Cell, Cell>{starts[s], goals[g]};
        }
    }
    return Error{"hierarchical bench: no path between cells near opposite corners of the map"};
}

Result<HierBenchResult> run_hier_bench(const CostField& cost, const HierBenchSettings& settings,
                                       const std::function<void(const std::string&)>& progress) {
    HierBenchResult out;
    out.width = cost.width();
    out.height = cost.height();
    SectorConfig config;
    config.sector_size = settings.sector;
    config.portal_limit = std::min(config.portal_limit, settings.sector);
    out.sector_cells = settings.sector * settings.sector;

    progress("sector graph build");
    const auto t_graph = std::chrono::steady_clock::now();
    auto graph_result = SectorGraph::build(cost, config);
    if (!graph_result) return graph_result.error();
    out.graph_ms = ms_since(t_graph);
    const SectorGraph& graph = graph_result.value();
    out.graph_bytes = graph.memory_bytes();
    out.nodes = graph.nodes().size();
    out.portals = graph.portals().size();
    out.sectors = static_cast<std::size_t>(graph.sector_count());

    progress("choosing corner cells");
    auto ends = corner_route(cost, graph);
    if (!ends) return ends.error();
    out.start = ends->first;
    out.goal = ends->second;

    const std::span<const Cell> goal(&out.goal, 1), start(&out.start, 1);
    RouteConfig route;
    route.settle_budget = settings.settle_budget;
    route.corner_reach = settings.corner_reach;
    route.jobs = settings.jobs;
    std::vector<double> first, search, fields, settle;
    for (int rep = -1; rep < settings.reps; ++rep) {
        progress("cold route query " + std::to_string(rep + 1) + "/" + std::to_string(settings.reps));
        const auto t0 = std::chrono::steady_clock::now();
        auto made = HierarchicalField::create(cost, graph, goal, route);
        if (!made) return made.error();
        HierarchicalField& field = made.value();
        auto routed = field.route(start);
        if (!routed) return routed.error();
        const RouteStats stats = routed.value();
        const double ms = ms_since(t0);
        out.fields_built = stats.fields_built;
        out.route_sectors = stats.route_sectors;
        out.nodes_settled = stats.nodes_settled;
        out.field_bytes = field.field_bytes();
        out.memory_bytes = field.memory_bytes();
        if (rep < 0) {  // the warm-up also checks the path
            auto path = hierarchical_path_cost(field, cost, out.start);
            if (!path) return path.error();
            out.path_cost = path.value();
            continue;
        }
        out.query_samples.push_back(ms);
        first.push_back(stats.first_field_ms);
        search.push_back(stats.search_ms);
        fields.push_back(stats.fields_ms);
        settle.push_back(stats.settle_ms);
    }
    std::vector<double> q = out.query_samples;
    out.query_ms = median(q);
    out.first_field_ms = median(first);
    out.search_ms = median(search);
    out.fields_ms = median(fields);
    out.settle_ms = median(settle);

    if (settings.exact) {
        progress("flat field for the exact path cost");
        FlowField flat;
        FieldBuilder builder;
        if (auto r = builder.build(cost, goal, config.params, flat); !r) return r.error();
        out.exact_cost = flow_path_cost(cost, flat, config.params, out.start);
    }
    return out;
}

}  // namespace tide::bench
