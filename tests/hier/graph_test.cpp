// The portal graph against references: intra-sector costs against a Dijkstra restricted to the
// sector, partner links, portal structure, and components against a flood fill of the whole map.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "hier/hier_checks.hpp"
#include "support/jobs.hpp"
#include "support/reference.hpp"
#include "tide/generate.hpp"
#include "tide/hierarchy.hpp"

namespace tide {
namespace {

struct GraphCase {
    CostField cost;
    SectorConfig config;
    std::string description;
};

// Random weighted maps (presets, full-range and dear costs), a maze, sector sizes 16 and 32, both
// connectivities, diagonal factors sqrt 2, 1.4 and 1, with and without merging.
std::vector<GraphCase> graph_cases() {
    std::vector<GraphCase> cases;
    const double factors[3] = {1.4142135623730951, 1.4, 1.0};
    int k = 0;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        for (int size : {16, 32}) {
            for (int variant = 0; variant < 4; ++variant, ++k) {
                SectorConfig config;
                config.sector_size = size;
                config.portal_limit = (k % 3 == 0) ? size : (k % 3 == 1) ? size / 2 : 5;
                config.merge_runs = (k % 2) == 0;
                if (variant == 3) {
                    config.params.connectivity = Connectivity::four;
                } else {
                    config.params.diagonal_factor = factors[variant];
                }
                const auto costs = static_cast<test::HierCosts>(k % 3);
                const int w = size == 16 ? 70 : 100;
                const int h = size == 16 ? 45 : 75;
                const double walls = 0.1 + 0.1 * static_cast<double>(seed);
                cases.push_back({test::weighted_map(w, h, walls, costs, seed * 100 + static_cast<std::uint64_t>(k)),
                                 config,
                                 "seed " + std::to_string(seed) + ", sector " + std::to_string(size) + ", limit " +
                                     std::to_string(config.portal_limit) + (config.merge_runs ? ", merged" : "") +
                                     ", walls " + std::to_string(walls) + ", costs " + std::to_string(k % 3) + ", " +
                                     test::params_text(config.params)});
            }
        }
    }
    SectorConfig maze_config;
    maze_config.sector_size = 16;
    maze_config.portal_limit = 16;
    cases.push_back({std::move(generate_maze(25, 20, 7).value()), maze_config, "maze 76x61"});
    return cases;
}

TEST(PortalGraph, IntraSectorCostsMatchARestrictedDijkstra) {
    std::size_t checked = 0;
    for (const GraphCase& c : graph_cases()) {
        SCOPED_TRACE(c.description);
        auto built = SectorGraph::build(c.cost, c.config);
        ASSERT_TRUE(built.ok()) << built.error().message;
        const SectorGraph& g = *built;
        int faults = 0;
        for (int s = 0; s < g.sector_count(); ++s) {
            int x0, y0, x1, y1;
            g.sector_rect(s, x0, y0, x1, y1);
            const std::int32_t base = g.node_begin(s);
            const std::int32_t count = g.node_begin(s + 1) - base;
            ASSERT_EQ(g.intra_costs(s).size(), static_cast<std::size_t>(count) * count);
            for (std::int32_t j = 0; j < count; ++j) {
                const Cell to = g.nodes()[static_cast<std::size_t>(base + j)].cell;
                const auto ref = test::reference_distances_in_rect(c.cost, {&to, 1}, c.config.params, x0, y0, x1, y1);
                for (std::int32_t i = 0; i < count; ++i) {
                    const Cell from = g.nodes()[static_cast<std::size_t>(base + i)].cell;
                    const double want = ref[static_cast<std::size_t>(from.y) * c.cost.width() + from.x];
                    const double got = g.intra_cost(base + i, base + j);
                    EXPECT_EQ(got, static_cast<double>(g.intra_costs(s)[static_cast<std::size_t>(j) * count + i]));
                    const bool ok = std::isinf(want) ? got == want : std::abs(got - want) <= 1e-4 * want + 1e-6;
                    if (!ok && faults++ < 5) {
                        ADD_FAILURE() << "sector " << s << ": intra_cost(" << base + i << " at (" << from.x << ", "
                                      << from.y << "), " << base + j << " at (" << to.x << ", " << to.y
                                      << ")) = " << got << ", reference " << want;
                    }
                    ++checked;
                }
            }
        }
    }
    EXPECT_GT(checked, 10000u);  // the cases do exercise the graph
}

TEST(PortalGraph, PartnersAndPortalsAreConsistent) {
    for (const GraphCase& c : graph_cases()) {
        SCOPED_TRACE(c.description);
        auto built = SectorGraph::build(c.cost, c.config);
        ASSERT_TRUE(built.ok()) << built.error().message;
        const SectorGraph& g = *built;
        const auto nodes = g.nodes();
        const auto portals = g.portals();
        ASSERT_EQ(nodes.size(), 2 * portals.size());
        ASSERT_EQ(g.node_begin(0), 0);
        ASSERT_EQ(static_cast<std::size_t>(g.node_begin(g.sector_count())), nodes.size());
        for (int s = 0; s < g.sector_count(); ++s) {
            ASSERT_LE(g.node_begin(s), g.node_begin(s + 1));
            for (std::int32_t i = g.node_begin(s); i < g.node_begin(s + 1); ++i) {
                const SectorNode& n = nodes[static_cast<std::size_t>(i)];
                SCOPED_TRACE("node " + std::to_string(i));
                ASSERT_TRUE(c.cost.passable(n.cell.x, n.cell.y));
                EXPECT_EQ(g.sector_of(n.cell.x, n.cell.y), s);
                ASSERT_GE(n.partner, 0);
                ASSERT_LT(static_cast<std::size_t>(n.partner), nodes.size());
                const SectorNode& m = nodes[static_cast<std::size_t>(n.partner)];
                EXPECT_EQ(m.partner, i);
                EXPECT_EQ(std::abs(m.cell.x - n.cell.x) + std::abs(m.cell.y - n.cell.y), 1);
                EXPECT_NE(g.sector_of(m.cell.x, m.cell.y), s);
                EXPECT_EQ(m.portal, n.portal);
                ASSERT_GE(n.portal, 0);
                const Portal& p = portals[static_cast<std::size_t>(n.portal)];
                EXPECT_TRUE(n.cell == p.node_a || n.cell == p.node_b);
                EXPECT_EQ(s, n.cell == p.node_a ? p.sector_a : p.sector_b);
                EXPECT_EQ(g.intra_cost(i, i), 0.0);
                EXPECT_EQ(g.component(i), g.component(n.partner));
            }
        }
        // Portals: within the limit, in order and disjoint along each border, and between them they
        // cover every position passable on both sides; nodes at crossable positions inside them.
        const int n = c.config.sector_size;
        std::vector<std::vector<std::pair<int, int>>> spans(static_cast<std::size_t>(g.sector_count()) * 2);
        for (const Portal& p : portals) {
            EXPECT_LE(p.last - p.first + 1, c.config.portal_limit);
            EXPECT_LE(p.first, p.last);
            EXPECT_EQ(p.sector_b, p.vertical ? p.sector_a + 1 : p.sector_a + g.sectors_x());
            const int pos = p.vertical ? p.node_a.y : p.node_a.x;
            EXPECT_GE(pos, p.first);
            EXPECT_LE(pos, p.last);
            EXPECT_EQ(p.node_b.x - p.node_a.x, p.vertical ? 1 : 0);
            EXPECT_EQ(p.node_b.y - p.node_a.y, p.vertical ? 0 : 1);
            EXPECT_EQ(p.vertical ? (p.node_a.x + 1) % n : (p.node_a.y + 1) % n, 0);
            spans[static_cast<std::size_t>(2 * p.sector_a + (p.vertical ? 0 : 1))].push_back({p.first, p.last});
        }
        for (int s = 0; s < g.sector_count(); ++s) {
            int x0, y0, x1, y1;
            g.sector_rect(s, x0, y0, x1, y1);
            for (int vertical = 0; vertical < 2; ++vertical) {
                const auto& list = spans[static_cast<std::size_t>(2 * s + (vertical ? 0 : 1))];
                for (std::size_t k = 1; k < list.size(); ++k) EXPECT_LT(list[k - 1].second, list[k].first);
                const bool edge = vertical ? x1 == c.cost.width() : y1 == c.cost.height();
                if (edge) {
                    EXPECT_TRUE(list.empty()) << "portal on the map's edge, sector " << s;
                    continue;
                }
                const int from = vertical ? y0 : x0, to = vertical ? y1 : x1;
                for (int k = from; k < to; ++k) {
                    const bool crossable = vertical ? c.cost.passable(x1 - 1, k) && c.cost.passable(x1, k)
                                                    : c.cost.passable(k, y1 - 1) && c.cost.passable(k, y1);
                    int covering = 0;
                    for (const auto& [f, l] : list) covering += (f <= k && k <= l) ? 1 : 0;
                    if (crossable) {
                        EXPECT_EQ(covering, 1) << "position " << k << ", sector " << s;
                    } else if (!c.config.merge_runs) {
                        EXPECT_EQ(covering, 0) << "position " << k << ", sector " << s;
                    }
                }
            }
        }
    }
}

TEST(PortalGraph, ComponentsMatchAFloodFill) {
    for (const GraphCase& c : graph_cases()) {
        SCOPED_TRACE(c.description);
        auto built = SectorGraph::build(c.cost, c.config);
        ASSERT_TRUE(built.ok()) << built.error().message;
        const SectorGraph& g = *built;
        const std::vector<int> flood = test::flood_labels(c.cost, c.config.params);
        const auto nodes = g.nodes();
        auto label_of = [&](std::size_t i) {
            return flood[static_cast<std::size_t>(nodes[i].cell.y) * c.cost.width() + nodes[i].cell.x];
        };
        int faults = 0;
        std::size_t joined = 0, apart = 0;
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            for (std::size_t j = i + 1; j < nodes.size(); ++j) {
                const bool connected = label_of(i) == label_of(j);
                const bool same =
                    g.component(static_cast<std::int32_t>(i)) == g.component(static_cast<std::int32_t>(j));
                (connected ? joined : apart) += 1;
                if (connected != same && faults++ < 5) {
                    ADD_FAILURE() << "nodes " << i << " (" << nodes[i].cell.x << ", " << nodes[i].cell.y << ") and "
                                  << j << " (" << nodes[j].cell.x << ", " << nodes[j].cell.y << "): flood fill says "
                                  << (connected ? "connected" : "apart") << ", components "
                                  << g.component(static_cast<std::int32_t>(i)) << " and "
                                  << g.component(static_cast<std::int32_t>(j));
                }
            }
        }
        EXPECT_GT(joined, 0u);
    }
}

TEST(PortalGraph, StatsAndMemory) {
    const CostField cost = test::weighted_map(100, 75, 0.2, test::HierCosts::presets, 5);
    SectorConfig config;
    config.sector_size = 32;
    auto g = SectorGraph::build(cost, config);
    ASSERT_TRUE(g.ok());
    const SectorGraphStats& st = g->last_stats();
    EXPECT_EQ(st.sectors, static_cast<std::size_t>(g->sector_count()));
    EXPECT_EQ(st.nodes, g->nodes().size());
    EXPECT_EQ(st.portals, g->portals().size());
    EXPECT_EQ(st.searches, g->nodes().size());  // one search per node
    EXPECT_EQ(g->version(), 0u);
    EXPECT_GE(g->memory_bytes(), g->nodes().size() * sizeof(SectorNode) + g->portals().size() * sizeof(Portal));
    EXPECT_EQ(g->cheapest_cost(), kCostPlain);
    const CostField dear = test::weighted_map(40, 40, 0.2, test::HierCosts::dear, 5);
    auto gd = SectorGraph::build(dear, config);
    ASSERT_TRUE(gd.ok());
    Cost lo = kCostWall;
    for (Cost c : dear.cells()) lo = std::min(lo, c);
    EXPECT_EQ(gd->cheapest_cost(), lo);
    EXPECT_GT(lo, kCostPlain);
}

TEST(PortalGraph, JobSystemBuildsTheSameGraph) {
    const CostField cost = test::weighted_map(150, 110, 0.25, test::HierCosts::full_range, 9);
    SectorConfig config;
    config.sector_size = 16;
    config.portal_limit = 16;
    auto serial = SectorGraph::build(cost, config);
    test::ThreadPoolJobSystem jobs(2);
    auto pooled = SectorGraph::build(cost, config, &jobs);
    ASSERT_TRUE(serial.ok()) << serial.error().message;
    ASSERT_TRUE(pooled.ok()) << pooled.error().message;
    EXPECT_EQ(test::compare_graphs(*pooled, *serial), "");
}

}  // namespace
}  // namespace tide
