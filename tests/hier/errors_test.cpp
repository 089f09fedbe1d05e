// Bad input is refused with one clear line naming the value or cell at fault.

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

#include "support/expect_error.hpp"
#include "tide/hierarchy.hpp"

namespace tide {
namespace {

// Succeeds when `r` failed with a one-line message containing every key word (case-insensitive).
template <class T>
::testing::AssertionResult fails_with(const Result<T>& r, std::initializer_list<std::string_view> words) {
    if (r.ok()) return ::testing::AssertionFailure() << "succeeded, expected an error";
    const std::string& m = r.error().message;
    const std::string lowered = test::lower(m);
    for (std::string_view w : words) {
        if (lowered.find(test::lower(w)) == std::string::npos) {
            return ::testing::AssertionFailure() << "message lacks '" << w << "': " << m;
        }
    }
    if (m.find('\n') != std::string::npos) return ::testing::AssertionFailure() << "several lines: " << m;
    return ::testing::AssertionSuccess() << m;
}

SectorConfig config(int size, int limit) {
    SectorConfig c;
    c.sector_size = size;
    c.portal_limit = limit;
    return c;
}

CostField open_map(int w, int h) {
    return std::move(CostField::create(w, h).value());
}

TEST(HierErrors, SectorSizeOutOfRange) {
    const CostField cost = open_map(64, 48);
    for (int size : {0, 15, 257, 1000, -16}) {
        EXPECT_TRUE(
            fails_with(SectorGraph::build(cost, config(size, 1)), {std::to_string(size), "sector size", "16..256"}))
            << size;
    }
    for (int size : {16, 256}) EXPECT_TRUE(SectorGraph::build(cost, config(size, size)).ok()) << size;
}

TEST(HierErrors, PortalLimitOutOfRange) {
    const CostField cost = open_map(64, 48);
    EXPECT_TRUE(fails_with(SectorGraph::build(cost, config(16, 0)), {"portal limit 0", "1..16"}));
    EXPECT_TRUE(fails_with(SectorGraph::build(cost, config(16, 17)), {"portal limit 17", "1..16"}));
    EXPECT_TRUE(fails_with(SectorGraph::build(cost, config(32, -3)), {"portal limit -3", "1..32"}));
    EXPECT_TRUE(SectorGraph::build(cost, config(16, 1)).ok());
    EXPECT_TRUE(SectorGraph::build(cost, config(16, 16)).ok());
}

TEST(HierErrors, BadDiagonalFactor) {
    const CostField cost = open_map(64, 48);
    for (double f :
         {0.5, 0.0, -1.0, 2.5, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        SectorConfig c = config(16, 16);
        c.params.diagonal_factor = f;
        EXPECT_TRUE(fails_with(SectorGraph::build(cost, c), {"diagonal factor"})) << f;
    }
    SectorConfig ok = config(16, 16);
    ok.params.diagonal_factor = 2.0;
    EXPECT_TRUE(SectorGraph::build(cost, ok).ok());
}

class HierPlanErrors : public ::testing::Test {
protected:
    void SetUp() override {
        cost_.fill_rect(10, 10, 12, 12, kCostWall);
        graph_ = std::make_unique<SectorGraph>(std::move(SectorGraph::build(cost_, config(16, 16)).value()));
    }
    CostField cost_ = open_map(64, 48);
    std::unique_ptr<SectorGraph> graph_;
};

TEST_F(HierPlanErrors, GoalsMustBeOpenCellsOnTheMap) {
    const Cell wall{11, 12};
    EXPECT_TRUE(fails_with(HierarchicalField::create(cost_, *graph_, {&wall, 1}), {"goal (11, 12)", "wall"}));
    const Cell off{64, 3};
    EXPECT_TRUE(fails_with(HierarchicalField::create(cost_, *graph_, {&off, 1}), {"goal (64, 3)", "outside", "64x48"}));
    const Cell negative{-1, 0};
    EXPECT_TRUE(fails_with(HierarchicalField::create(cost_, *graph_, {&negative, 1}), {"goal (-1, 0)", "outside"}));
    const Cell mixed[] = {{1, 1}, {10, 10}};
    EXPECT_TRUE(fails_with(HierarchicalField::create(cost_, *graph_, mixed), {"goal (10, 10)", "wall"}));
    EXPECT_TRUE(fails_with(HierarchicalField::create(cost_, *graph_, {}), {"no goal"}));
}

TEST_F(HierPlanErrors, CostFieldOfOtherDimensions) {
    const CostField other = open_map(48, 64);
    const Cell goal{1, 1};
    EXPECT_TRUE(fails_with(HierarchicalField::create(other, *graph_, {&goal, 1}), {"48x64", "64x48"}));
    const std::uint64_t version = graph_->version();
    EXPECT_TRUE(fails_with(graph_->update(other, 0, 0, 3, 3), {"48x64", "64x48"}));
    EXPECT_EQ(graph_->version(), version);  // nothing changed
}

TEST_F(HierPlanErrors, RouteConfigOutOfRange) {
    const Cell goal{1, 1};
    for (int corridor : {-1, 5}) {
        RouteConfig rc;
        rc.corridor = corridor;
        EXPECT_TRUE(fails_with(HierarchicalField::create(cost_, *graph_, {&goal, 1}, rc),
                               {"corridor " + std::to_string(corridor), "0..4"}));
    }
    for (int passes : {-1, 5}) {
        RouteConfig rc;
        rc.refine_passes = passes;
        EXPECT_TRUE(fails_with(HierarchicalField::create(cost_, *graph_, {&goal, 1}, rc),
                               {"refine passes " + std::to_string(passes), "0..4"}));
    }
    for (int budget : {-1, 17}) {
        RouteConfig rc;
        rc.settle_budget = budget;
        EXPECT_TRUE(fails_with(HierarchicalField::create(cost_, *graph_, {&goal, 1}, rc),
                               {"settle budget " + std::to_string(budget), "0..16"}));
    }
    for (int corridor : {0, 4}) {
        RouteConfig rc;
        rc.corridor = corridor;
        EXPECT_TRUE(HierarchicalField::create(cost_, *graph_, {&goal, 1}, rc).ok());
    }
}

TEST_F(HierPlanErrors, CellsOffTheMapInQueries) {
    const Cell goal{1, 1};
    auto hf = HierarchicalField::create(cost_, *graph_, {&goal, 1});
    ASSERT_TRUE(hf.ok());
    const Cell starts[] = {{5, 5}, {-1, 3}};
    EXPECT_TRUE(fails_with(hf->route(starts), {"start (-1, 3)", "outside", "64x48"}));
    const Cell below{3, 48};
    EXPECT_TRUE(fails_with(hf->route({&below, 1}), {"start (3, 48)", "outside"}));
    EXPECT_TRUE(fails_with(hf->ensure_field(64, 0), {"(64, 0)", "outside"}));
    EXPECT_TRUE(fails_with(hierarchical_path_cost(*hf, cost_, {70, 1}), {"start (70, 1)", "outside"}));
    EXPECT_TRUE(fails_with(hierarchical_path_cost(*hf, cost_, {11, 11}), {"start (11, 11)", "wall"}));
    // The plan still works afterwards.
    const Cell start{40, 40};
    ASSERT_TRUE(hf->route({&start, 1}).ok());
    auto pc = hierarchical_path_cost(*hf, cost_, start);
    ASSERT_TRUE(pc.ok());
    EXPECT_FALSE(std::isinf(*pc));
}

TEST_F(HierPlanErrors, GoalWalledOverByAnEdit) {
    const Cell goal{20, 20};
    auto hf = HierarchicalField::create(cost_, *graph_, {&goal, 1});
    ASSERT_TRUE(hf.ok());
    const Cell start{50, 40};
    ASSERT_TRUE(hf->route({&start, 1}).ok());
    cost_.fill_rect(19, 19, 21, 21, kCostWall);
    ASSERT_TRUE(graph_->update(cost_, 19, 19, 21, 21).ok());
    EXPECT_TRUE(fails_with(hf->terrain_changed(19, 19, 21, 21), {"goal (20, 20)", "wall"}));
    // Reopened: the plan carries on.
    cost_.fill_rect(19, 19, 21, 21, kCostPlain);
    ASSERT_TRUE(graph_->update(cost_, 19, 19, 21, 21).ok());
    ASSERT_TRUE(hf->terrain_changed(19, 19, 21, 21).ok());
    ASSERT_TRUE(hf->route({&start, 1}).ok());
    auto pc = hierarchical_path_cost(*hf, cost_, start);
    ASSERT_TRUE(pc.ok()) << pc.error().message;
    EXPECT_FALSE(std::isinf(*pc));
}

}  // namespace
}  // namespace tide
