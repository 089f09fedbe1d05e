// Baselines of `tide bench fields`. The textbook and 4-direction builds are written the way
// tutorials write them on purpose (std::priority_queue of (distance, index) pairs with lazy
// deletion, vectors sized per call, bounds checks in the neighbour loop): they are the yardstick
// Tide is measured against, so they must stay plain, but not deliberately slow.

#include "baselines.hpp"

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/dijkstra_shortest_paths_no_color_map.hpp>
#include <boost/property_map/property_map.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

#include "tide/field_builder.hpp"
#include "tide/generate.hpp"

namespace tide::bench {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSqrt2 = 1.4142135623730951;  // FieldParams' default diagonal factor

std::string cell_string(Cell c) {
    return "(" + std::to_string(c.x) + ", " + std::to_string(c.y) + ")";
}

void require_goal(const CostField& cost, Cell goal, const char* who) {
    if (!cost.passable(goal.x, goal.y)) {
        throw std::runtime_error(std::string(who) + ": goal " + cell_string(goal) + " is off the map or on a wall");
    }
}

}  // namespace

void textbook_field(const CostField& cost, Cell goal, TextbookField& out) {
    require_goal(cost, goal, "textbook field");
    const int w = cost.width();
    const int h = cost.height();
    const std::size_t n = static_cast<std::size_t>(w) * h;
    const std::span<const Cost> c = cost.cells();

    // Dijkstra from the goal. A neighbour x of the popped cell y reaches the goal through y by
    // paying for the move x -> y, which costs length * cost(y).
    std::vector<double> dist(n, kInf);
    using Item = std::pair<double, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
    const int start = goal.y * w + goal.x;
    dist[start] = 0.0;
    open.push({0.0, start});
    while (!open.empty()) {
        const auto [d, i] = open.top();
        open.pop();
        if (d > dist[i]) continue;  // stale entry
        const int x = i % w;
        const int y = i / w;
        const double enter = c[i];
        for (int k = 0; k < kDirectionCount; ++k) {
            const int nx = x + kDirectionDx[k];
            const int ny = y + kDirectionDy[k];
            if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
            const int j = ny * w + nx;
            if (c[j] == kCostWall) continue;
            double length = 1.0;
            if (kDirectionDx[k] != 0 && kDirectionDy[k] != 0) {
                if (c[y * w + nx] == kCostWall || c[ny * w + x] == kCostWall) continue;  // no corner cutting
                length = kSqrt2;
            }
            const double nd = d + length * enter;
            if (nd < dist[j]) {
                dist[j] = nd;
                open.push({nd, j});
            }
        }
    }

    // Flow: every cell points at its legal neighbour with the lowest integration value.
    constexpr std::uint8_t kNone = kDirectionCount;
    std::vector<std::uint8_t> direction(n, kNone);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const int i = y * w + x;
            if (i == start || dist[i] == kInf) continue;
            double best = kInf;
            for (int k = 0; k < kDirectionCount; ++k) {
                const int nx = x + kDirectionDx[k];
                const int ny = y + kDirectionDy[k];
                if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                const int j = ny * w + nx;
                if (c[j] == kCostWall) continue;
                if (kDirectionDx[k] != 0 && kDirectionDy[k] != 0 &&
                    (c[y * w + nx] == kCostWall || c[ny * w + x] == kCostWall)) {
                    continue;
                }
                if (dist[j] < best) {
                    best = dist[j];
                    direction[i] = static_cast<std::uint8_t>(k);
                }
            }
        }
    }
    out.dist = std::move(dist);
    out.direction = std::move(direction);
}

void dijkstra_map_4dir(const CostField& cost, Cell goal, std::vector<double>& out) {
    require_goal(cost, goal, "4-direction Dijkstra map");
    static constexpr int kDx[4] = {1, 0, -1, 0};
    static constexpr int kDy[4] = {0, 1, 0, -1};
    const int w = cost.width();
    const int h = cost.height();
    const std::span<const Cost> c = cost.cells();
    std::vector<double> dist(static_cast<std::size_t>(w) * h, kInf);
    using Item = std::pair<double, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
    const int start = goal.y * w + goal.x;
    dist[start] = 0.0;
    open.push({0.0, start});
    while (!open.empty()) {
        const auto [d, i] = open.top();
        open.pop();
        if (d > dist[i]) continue;
        const int x = i % w;
        const int y = i / w;
        const double nd = d + c[i];
        for (int k = 0; k < 4; ++k) {
            const int nx = x + kDx[k];
            const int ny = y + kDy[k];
            if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
            const int j = ny * w + nx;
            if (c[j] == kCostWall) continue;
            if (nd < dist[j]) {
                dist[j] = nd;
                open.push({nd, j});
            }
        }
    }
    out = std::move(dist);
}

// ---- Boost.Graph ------------------------------------------------------------------------------

namespace {
struct EdgeWeight {
    double weight;
};
// 32-bit vertex and edge indices: the smallest and fastest CSR layout (measured against 64-bit);
// maps up to 16384^2 fit.
using CsrGraph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, EdgeWeight,
                                                    boost::no_property, std::uint32_t, std::uint32_t>;
}  // namespace

struct BoostDijkstra::Graph {
    CsrGraph g;
};

BoostDijkstra::BoostDijkstra(const CostField& cost) : width_(cost.width()) {
    const int w = cost.width();
    const int h = cost.height();
    const std::size_t n = static_cast<std::size_t>(w) * h;
    const std::span<const Cost> c = cost.cells();
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    std::vector<EdgeWeight> weights;
    edges.reserve(n * 6);
    weights.reserve(n * 6);
    // Reversed graph, sources in increasing order: for every legal move x -> y, an edge y -> x
    // weighted with the forward cost length * cost(y).
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            if (c[i] == kCostWall) continue;
            for (int k = 0; k < kDirectionCount; ++k) {
                const int nx = x + kDirectionDx[k];
                const int ny = y + kDirectionDy[k];
                if (!cost.passable(nx, ny)) continue;
                double length = 1.0;
                if (k & 1) {
                    if (!cost.passable(nx, y) || !cost.passable(x, ny)) continue;
                    length = kSqrt2;
                }
                edges.emplace_back(static_cast<std::uint32_t>(i),
                                   static_cast<std::uint32_t>(static_cast<std::size_t>(ny) * w + nx));
                weights.push_back({length * c[i]});
            }
        }
    }
    graph_ = std::make_unique<Graph>(Graph{
        CsrGraph(boost::edges_are_sorted, edges.begin(), edges.end(), weights.begin(), static_cast<std::uint32_t>(n))});
    dist_.assign(n, kInf);
}

BoostDijkstra::~BoostDijkstra() = default;

std::size_t BoostDijkstra::edge_count() const noexcept {
    return boost::num_edges(graph_->g);
}

// The no-color-map variant: about 10-20% faster than dijkstra_shortest_paths on these graphs (both
// measured), so the reference is Boost at its best.
void BoostDijkstra::run(Cell goal) {
    const CsrGraph& g = graph_->g;
    const auto source = static_cast<std::uint32_t>(static_cast<std::size_t>(goal.y) * width_ + goal.x);
    boost::dijkstra_shortest_paths(
        g, source,
        boost::predecessor_map(boost::dummy_property_map())
            .distance_map(boost::make_iterator_property_map(dist_.data(), boost::get(boost::vertex_index, g)))
            .weight_map(boost::get(&EdgeWeight::weight, g))
            .distance_inf(kInf));
}

// ---- A* and helpers ------------------------------------------------------------------------

double astar_units(PathFinder& finder, std::span<const Cell> starts, Cell goal) {
    double total = 0.0;
    for (const Cell& s : starts) {
        const Result<double> r = finder.find_path(s, goal);
        if (!r) throw std::runtime_error("A*: " + r.error().message);
        if (*r == kInf) throw std::runtime_error("A*: no path from " + cell_string(s) + " to " + cell_string(goal));
        total += *r;
    }
    return total;
}

double max_relative_difference(std::span<const double> values, const FieldBuilder& builder, int width, int height) {
    double worst = 0.0;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const double a = values[static_cast<std::size_t>(y) * width + x];
            const double b = builder.exact_integration(x, y);
            if (a == b) continue;  // includes both +inf
            if (a == kInf || b == kInf) return kInf;
            worst = std::max(worst, std::abs(a - b) / std::max(std::abs(a), std::abs(b)));
        }
    }
    return worst;
}

Result<Cell> bench_goal(const CostField& cost) {
    const int w = cost.width();
    const int h = cost.height();
    const std::span<const Cost> c = cost.cells();
    auto legal = [&](int x, int y, int k) {
        const int nx = x + kDirectionDx[k];
        const int ny = y + kDirectionDy[k];
        if (!cost.passable(nx, ny)) return false;
        return (k & 1) == 0 || (cost.passable(nx, y) && cost.passable(x, ny));
    };
    // Label the regions (moves are symmetric, so reachability is too) with a flat BFS.
    std::vector<std::int32_t> label(c.size(), -1);
    std::vector<std::int32_t> queue;
    queue.reserve(c.size());
    std::int32_t best_label = -1;
    std::size_t best_size = 0;
    std::int32_t next_label = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (c[i] == kCostWall || label[i] >= 0) continue;
        queue.clear();
        queue.push_back(static_cast<std::int32_t>(i));
        label[i] = next_label;
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const int x = queue[head] % w;
            const int y = queue[head] / w;
            for (int k = 0; k < kDirectionCount; ++k) {
                if (!legal(x, y, k)) continue;
                const std::int32_t j = (y + kDirectionDy[k]) * w + x + kDirectionDx[k];
                if (label[j] >= 0) continue;
                label[j] = next_label;
                queue.push_back(j);
            }
        }
        if (queue.size() > best_size) {
            best_size = queue.size();
            best_label = next_label;
        }
        ++next_label;
    }
    if (best_label < 0) return Error{"the map has no passable cell"};
    const std::int64_t cx = w / 2;
    const std::int64_t cy = h / 2;
    Cell best{};
    std::int64_t best_d2 = std::numeric_limits<std::int64_t>::max();
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            if (label[static_cast<std::size_t>(y) * w + x] != best_label) continue;
            const std::int64_t d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
            if (d2 < best_d2) {
                best_d2 = d2;
                best = {x, y};
            }
        }
    }
    return best;
}

std::vector<Cell> random_reachable_starts(const FlowField& field, Cell goal, int count, std::uint64_t seed) {
    const std::span<const float> v = field.integration();
    const std::size_t goal_index = static_cast<std::size_t>(goal.y) * field.width() + goal.x;
    std::size_t reachable = 0;
    for (std::size_t i = 0; i < v.size(); ++i) reachable += (v[i] != kUnreachable && i != goal_index);
    if (reachable == 0 && count > 0) throw std::runtime_error("no cell other than the goal reaches the goal");
    SplitMix64 rng{seed};
    std::vector<Cell> starts;
    starts.reserve(static_cast<std::size_t>(count));
    while (static_cast<int>(starts.size()) < count) {
        const std::size_t i = rng.next() % v.size();
        if (v[i] == kUnreachable || i == goal_index) continue;
        starts.push_back({static_cast<int>(i % field.width()), static_cast<int>(i / field.width())});
    }
    return starts;
}

}  // namespace tide::bench
