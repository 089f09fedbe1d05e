// Extreme sizes and path costs: 16384-cell rows and a serpentine corridor with path costs ~1e9.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

TEST(LargeMap, WidestSingleRowOfMaximumCost) {
    CostField cost = std::move(CostField::create(kMaxDimension, 1, kCostMax).value());
    const std::vector<Cell> goal{{kMaxDimension - 1, 0}};
    auto field = build_flow_field(cost, goal);
    ASSERT_TRUE(field.ok()) << field.error().message;
    for (int x = 0; x < kMaxDimension; ++x) {
        const double want = static_cast<double>(kMaxDimension - 1 - x) * kCostMax;
        ASSERT_EQ(field->integration(x, 0), static_cast<float>(want)) << x;
        ASSERT_EQ(field->direction(x, 0), x == kMaxDimension - 1 ? Direction::goal : Direction::east) << x;
    }
    EXPECT_EQ(field->integration(0, 0), 4161282.0f);
}

TEST(LargeMap, TallestSingleColumn) {
    CostField cost = std::move(CostField::create(1, kMaxDimension, kCostSwamp).value());
    const std::vector<Cell> goal{{0, 0}};
    auto field = build_flow_field(cost, goal);
    ASSERT_TRUE(field.ok());
    for (int y = 1; y < kMaxDimension; ++y) {
        ASSERT_EQ(field->integration(0, y), static_cast<float>(y * kCostSwamp)) << y;
        ASSERT_EQ(field->direction(0, y), Direction::north) << y;
    }
}

// A serpentine corridor: even rows open, odd rows walls with one gap alternately at the right
// and left end. The only path visits every open cell, so a cell's value is (its index along the
// path) x (the cost of every cell). Diagonals at the turns would cut a wall corner.
struct Serpentine {
    int w, h;
    // Index of (x, y) along the path from the goal (0, 0), or -1 for a wall.
    std::int64_t index(int x, int y) const {
        const std::int64_t k = y / 2;
        const std::int64_t row_start = k * (w + 1);
        if (y % 2 == 0) return row_start + (k % 2 == 0 ? x : w - 1 - x);
        const int gap = k % 2 == 0 ? w - 1 : 0;
        return x == gap ? row_start + w : -1;
    }
    CostField make(Cost c) const {
        CostField cost = std::move(CostField::create(w, h, c).value());
        for (int y = 1; y < h; y += 2) {
            const int gap = (y / 2) % 2 == 0 ? w - 1 : 0;
            cost.fill_rect(0, y, w - 1, y, kCostWall);
            cost.set(gap, y, c);
        }
        return cost;
    }
};

TEST(LargeMap, SerpentinePathCostsAboveOneBillion) {
    const Serpentine s{2048, 4095};  // odd height: the last row is open
    const CostField cost = s.make(kCostMax);
    FieldBuilder builder;
    std::pmr::vector<float> layer;
    ASSERT_TRUE(builder.build_integration(cost, std::vector<Cell>{{0, 0}}, {}, layer).ok());
    double largest = 0;
    for (int y = 0; y < s.h; ++y) {
        for (int x = 0; x < s.w; ++x) {
            const float got = layer[static_cast<std::size_t>(y) * s.w + x];
            const std::int64_t i = s.index(x, y);
            if (i < 0) {
                ASSERT_EQ(got, kUnreachable) << x << ", " << y;
                continue;
            }
            const double want = static_cast<double>(i) * kCostMax;
            ASSERT_TRUE(std::isfinite(got)) << x << ", " << y;
            ASSERT_NEAR(got, want, 1e-6 * want + 1e-6) << x << ", " << y;
            largest = std::max(largest, static_cast<double>(got));
        }
    }
    EXPECT_GT(largest, 1e9);
}

TEST(LargeMap, SerpentineWithVaryingCostsAndFlow) {
    // Costs 1..254 varying along the corridor: the bucket ring spans the full cost range.
    const Serpentine s{1024, 1023};
    CostField cost = s.make(kCostPlain);
    for (int y = 0; y < s.h; ++y) {
        for (int x = 0; x < s.w; ++x) {
            if (cost.at(x, y) != kCostWall) cost.set(x, y, static_cast<Cost>(1 + (x * 7 + y * 13) % kCostMax));
        }
    }
    // Walk the path from the goal, accumulating the cost of each entered cell.
    std::vector<Cell> path;
    path.reserve(static_cast<std::size_t>(s.w) * (s.h + 1) / 2 + s.h);
    for (int y = 0; y < s.h; ++y) {
        if (y % 2 == 0) {
            const bool forward = (y / 2) % 2 == 0;
            for (int i = 0; i < s.w; ++i) path.push_back({forward ? i : s.w - 1 - i, y});
        } else {
            path.push_back({(y / 2) % 2 == 0 ? s.w - 1 : 0, y});
        }
    }
    const std::vector<Cell> goal{{0, 0}};
    auto field = build_flow_field(cost, goal);
    ASSERT_TRUE(field.ok());
    double total = 0;
    for (std::size_t i = 0; i < path.size(); ++i) {
        const Cell c = path[i];
        if (i > 0) total += cost.at(path[i - 1]);  // from c, the first step enters the previous cell
        ASSERT_EQ(s.index(c.x, c.y), static_cast<std::int64_t>(i));
        ASSERT_NEAR(field->integration(c.x, c.y), total, 1e-6 * total) << c.x << ", " << c.y;
        if (i > 0) {
            ASSERT_EQ(field->next_index(c.x, c.y), static_cast<std::int64_t>(path[i - 1].y) * s.w + path[i - 1].x)
                << c.x << ", " << c.y;
        }
    }
    EXPECT_GT(total, 5e7);
}

}  // namespace
}  // namespace tide
