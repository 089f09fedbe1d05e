// Portal extraction on hand-made maps: open, closed and partly walled borders, runs split at the
// portal limit, runs merged (or not) by the connected parts they join, map edges, partial sectors.

#include <gtest/gtest.h>

#include <vector>

#include "tide/hierarchy.hpp"

namespace tide {
namespace {

SectorConfig config(int size, int limit, bool merge = true) {
    SectorConfig c;
    c.sector_size = size;
    c.portal_limit = limit;
    c.merge_runs = merge;
    return c;
}

CostField open_map(int w, int h) {
    return std::move(CostField::create(w, h).value());
}

SectorGraph build(const CostField& cost, const SectorConfig& c) {
    auto g = SectorGraph::build(cost, c);
    EXPECT_TRUE(g.ok()) << g.error().message;
    return std::move(g.value());
}

// The portals between sectors a and b, in graph order.
std::vector<Portal> between(const SectorGraph& g, int a, int b) {
    std::vector<Portal> out;
    for (const Portal& p : g.portals()) {
        if (p.sector_a == a && p.sector_b == b) out.push_back(p);
    }
    return out;
}

// Expected extent and node position (border coordinate) of one portal of a vertical border
// between column x_a (a's side) and x_a + 1, or of a horizontal border between rows.
struct Want {
    int first, last, node;
};

void expect_vertical(const std::vector<Portal>& got, int x_a, const std::vector<Want>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        SCOPED_TRACE("portal " + std::to_string(i));
        EXPECT_TRUE(got[i].vertical);
        EXPECT_EQ(got[i].first, want[i].first);
        EXPECT_EQ(got[i].last, want[i].last);
        EXPECT_EQ(got[i].node_a, (Cell{x_a, want[i].node}));
        EXPECT_EQ(got[i].node_b, (Cell{x_a + 1, want[i].node}));
    }
}

void expect_horizontal(const std::vector<Portal>& got, int y_a, const std::vector<Want>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        SCOPED_TRACE("portal " + std::to_string(i));
        EXPECT_FALSE(got[i].vertical);
        EXPECT_EQ(got[i].first, want[i].first);
        EXPECT_EQ(got[i].last, want[i].last);
        EXPECT_EQ(got[i].node_a, (Cell{want[i].node, y_a}));
        EXPECT_EQ(got[i].node_b, (Cell{want[i].node, y_a + 1}));
    }
}

TEST(Portals, OpenVerticalBorderIsOnePortalWithItsNodeAtTheMiddle) {
    const CostField cost = open_map(32, 16);
    const SectorGraph g = build(cost, config(16, 16));
    EXPECT_EQ(g.sectors_x(), 2);
    EXPECT_EQ(g.sectors_y(), 1);
    ASSERT_EQ(g.portals().size(), 1u);
    const Portal& p = g.portals()[0];
    EXPECT_EQ(p.sector_a, 0);
    EXPECT_EQ(p.sector_b, 1);
    // 0..15: the middle is 7.5; the tie goes to the lower position.
    expect_vertical(between(g, 0, 1), 15, {{0, 15, 7}});
    // One node each side, partners of each other, listed under their own sector.
    ASSERT_EQ(g.nodes().size(), 2u);
    EXPECT_EQ(g.node_begin(0), 0);
    EXPECT_EQ(g.node_begin(1), 1);
    EXPECT_EQ(g.node_begin(2), 2);
    EXPECT_EQ(g.nodes()[0].cell, (Cell{15, 7}));
    EXPECT_EQ(g.nodes()[1].cell, (Cell{16, 7}));
    EXPECT_EQ(g.nodes()[0].partner, 1);
    EXPECT_EQ(g.nodes()[1].partner, 0);
    EXPECT_EQ(g.nodes()[0].portal, 0);
    EXPECT_EQ(g.nodes()[1].portal, 0);
    EXPECT_EQ(g.intra_cost(0, 0), 0.0);
    EXPECT_EQ(g.component(0), g.component(1));
}

TEST(Portals, OpenHorizontalBorderIsOnePortal) {
    const CostField cost = open_map(16, 32);
    const SectorGraph g = build(cost, config(16, 16));
    EXPECT_EQ(g.sectors_x(), 1);
    EXPECT_EQ(g.sectors_y(), 2);
    ASSERT_EQ(g.portals().size(), 1u);
    expect_horizontal(between(g, 0, 1), 15, {{0, 15, 7}});
}

TEST(Portals, OpenBorderIsSplitAtThePortalLimitIntoEvenPieces) {
    const CostField cost = open_map(32, 16);
    // 16 positions in pieces of at most `limit`, sizes differing by at most one; each node at
    // its piece's middle (ties: the lower position). Pieces of one run are never merged again.
    expect_vertical(between(build(cost, config(16, 8)), 0, 1), 15, {{0, 7, 3}, {8, 15, 11}});
    expect_vertical(between(build(cost, config(16, 6)), 0, 1), 15, {{0, 4, 2}, {5, 9, 7}, {10, 15, 12}});
    expect_vertical(between(build(cost, config(16, 5)), 0, 1), 15, {{0, 3, 1}, {4, 7, 5}, {8, 11, 9}, {12, 15, 13}});
    expect_vertical(between(build(cost, config(16, 15)), 0, 1), 15, {{0, 7, 3}, {8, 15, 11}});
    const SectorGraph ones = build(cost, config(16, 1));
    std::vector<Want> each;
    for (int k = 0; k < 16; ++k) each.push_back({k, k, k});
    expect_vertical(between(ones, 0, 1), 15, each);
    EXPECT_EQ(ones.nodes().size(), 32u);
    // Same on a horizontal border.
    const CostField tall = open_map(16, 32);
    expect_horizontal(between(build(tall, config(16, 6)), 0, 1), 15, {{0, 4, 2}, {5, 9, 7}, {10, 15, 12}});
}

TEST(Portals, ClosedBorderHasNoPortal) {
    CostField a_side = open_map(32, 16);
    a_side.fill_rect(15, 0, 15, 15, kCostWall);
    EXPECT_TRUE(build(a_side, config(16, 16)).portals().empty());
    CostField b_side = open_map(32, 16);
    b_side.fill_rect(16, 0, 16, 15, kCostWall);
    EXPECT_TRUE(build(b_side, config(16, 16)).portals().empty());
    // Walls alternating sides: no position is open on both sides, and no diagonal crosses either
    // (each would cut a wall corner), so the two sectors are not joined.
    CostField zigzag = open_map(32, 16);
    for (int y = 0; y < 16; ++y) zigzag.set(y % 2 == 0 ? 15 : 16, y, kCostWall);
    const SectorGraph g = build(zigzag, config(16, 16));
    EXPECT_TRUE(g.portals().empty());
    EXPECT_TRUE(g.nodes().empty());
}

TEST(Portals, RunsSplitByAWallAreSeparatePortalsWithoutMerging) {
    CostField cost = open_map(32, 16);
    cost.fill_rect(15, 5, 15, 9, kCostWall);  // runs 0..4 and 10..15
    expect_vertical(between(build(cost, config(16, 16, false)), 0, 1), 15, {{0, 4, 2}, {10, 15, 12}});
}

TEST(Portals, RunsJoiningTheSamePartsShareOnePortalWithinTheLimit) {
    CostField cost = open_map(32, 16);
    cost.fill_rect(16, 5, 16, 9, kCostWall);  // runs 0..4 and 10..15 (wall on b's side)
    // One portal spanning both runs; its node is the crossable position nearest 7.5: 10.
    const SectorGraph merged = build(cost, config(16, 16, true));
    expect_vertical(between(merged, 0, 1), 15, {{0, 15, 10}});
    EXPECT_EQ(merged.nodes().size(), 2u);
    // Over the limit together: two portals again.
    expect_vertical(between(build(cost, config(16, 15, true)), 0, 1), 15, {{0, 4, 2}, {10, 15, 12}});
    // A tie between the runs' ends (4 and 11 are both 3.5 from 7.5) goes to the lower position.
    CostField tie = open_map(32, 16);
    tie.fill_rect(15, 5, 15, 10, kCostWall);
    expect_vertical(between(build(tie, config(16, 16, true)), 0, 1), 15, {{0, 15, 4}});
    // Horizontal border, three runs.
    CostField tall = open_map(16, 32);
    tall.set(3, 15, kCostWall);
    tall.set(12, 16, kCostWall);
    expect_horizontal(between(build(tall, config(16, 16, true)), 0, 1), 15, {{0, 15, 7}});
    expect_horizontal(between(build(tall, config(16, 16, false)), 0, 1), 15, {{0, 2, 1}, {4, 11, 7}, {13, 15, 14}});
}

TEST(Portals, RunsIntoDifferentPartsStaySeparate) {
    // A wall across sector a (row 7, the border cell included) separates the runs 0..6 and 8..15
    // on a's side: they join different parts, so they keep a portal each even with merging.
    CostField a_split = open_map(32, 16);
    a_split.fill_rect(0, 7, 15, 7, kCostWall);
    const SectorGraph ga = build(a_split, config(16, 16, true));
    expect_vertical(between(ga, 0, 1), 15, {{0, 6, 3}, {8, 15, 11}});
    // The two nodes in sector 0 cannot reach each other inside it; in sector 1 they can.
    ASSERT_EQ(ga.nodes().size(), 4u);
    EXPECT_EQ(ga.intra_cost(0, 1), std::numeric_limits<double>::infinity());
    EXPECT_LT(ga.intra_cost(2, 3), std::numeric_limits<double>::infinity());
    // Same on b's side only.
    CostField b_split = open_map(32, 16);
    b_split.fill_rect(16, 7, 31, 7, kCostWall);
    expect_vertical(between(build(b_split, config(16, 16, true)), 0, 1), 15, {{0, 6, 3}, {8, 15, 11}});
    // A wall that leaves a gap inside the sector does not separate anything: one portal.
    CostField gap = open_map(32, 16);
    gap.fill_rect(0, 7, 13, 7, kCostWall);
    gap.set(15, 7, kCostWall);
    expect_vertical(between(build(gap, config(16, 16, true)), 0, 1), 15, {{0, 15, 8}});
}

TEST(Portals, NoPortalsOnTheMapEdge) {
    // One sector: nothing to cross.
    const SectorGraph single = build(open_map(16, 16), config(16, 16));
    EXPECT_EQ(single.sector_count(), 1);
    EXPECT_TRUE(single.portals().empty());
    EXPECT_TRUE(single.nodes().empty());
    // 2 x 2 sectors: exactly the four inner borders, border by border (east, then south, of each
    // sector in turn).
    const SectorGraph g = build(open_map(32, 32), config(16, 16));
    ASSERT_EQ(g.portals().size(), 4u);
    expect_vertical(between(g, 0, 1), 15, {{0, 15, 7}});
    expect_horizontal(between(g, 0, 2), 15, {{0, 15, 7}});
    expect_horizontal(between(g, 1, 3), 15, {{16, 31, 23}});
    expect_vertical(between(g, 2, 3), 15, {{16, 31, 23}});
    EXPECT_EQ(g.portals()[0].sector_b, 1);
    EXPECT_EQ(g.portals()[1].sector_b, 2);
    EXPECT_EQ(g.portals()[2].sector_b, 3);
    EXPECT_EQ(g.portals()[3].sector_a, 2);
    // Every sector has two nodes (one per inner border it touches).
    for (int s = 0; s < 4; ++s) EXPECT_EQ(g.node_begin(s + 1) - g.node_begin(s), 2) << "sector " << s;
}

TEST(Portals, PartialSectorsAtTheRightAndBottom) {
    const CostField cost = open_map(70, 45);
    const SectorGraph g = build(cost, config(16, 16));
    EXPECT_EQ(g.sectors_x(), 5);
    EXPECT_EQ(g.sectors_y(), 3);
    EXPECT_EQ(g.sector_count(), 15);
    int x0, y0, x1, y1;
    g.sector_rect(14, x0, y0, x1, y1);  // the last sector: 6 x 13 cells
    EXPECT_EQ(x0, 64);
    EXPECT_EQ(y0, 32);
    EXPECT_EQ(x1, 70);
    EXPECT_EQ(y1, 45);
    g.sector_rect(4, x0, y0, x1, y1);
    EXPECT_EQ(x1 - x0, 6);
    EXPECT_EQ(y1 - y0, 16);
    EXPECT_EQ(g.sector_of(69, 44), 14);
    EXPECT_EQ(g.sector_of(64, 31), 9);
    // 4 vertical borders in each of 3 rows, 5 horizontal borders in each of 2 rows; every run fits.
    EXPECT_EQ(g.portals().size(), 22u);
    // The 13-row border between sectors 13 and 14, the 6-column one between 9 and 14.
    expect_vertical(between(g, 13, 14), 63, {{32, 44, 38}});
    expect_horizontal(between(g, 9, 14), 31, {{64, 69, 66}});
    // A 13-long run in pieces of at most 4: 3, 3, 3, 4.
    expect_vertical(between(build(cost, config(16, 4)), 13, 14), 63,
                    {{32, 34, 33}, {35, 37, 36}, {38, 40, 39}, {41, 44, 42}});
    // Every node lies in the sector it is listed under.
    for (int s = 0; s < g.sector_count(); ++s) {
        for (std::int32_t i = g.node_begin(s); i < g.node_begin(s + 1); ++i) {
            const Cell c = g.nodes()[static_cast<std::size_t>(i)].cell;
            EXPECT_EQ(g.sector_of(c.x, c.y), s) << "node " << i;
        }
    }
}

}  // namespace
}  // namespace tide
