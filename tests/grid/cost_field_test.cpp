#include <gtest/gtest.h>

#include <string>

#include "support/test_maps.hpp"
#include "tide/cost_field.hpp"

namespace tide {
namespace {

TEST(CostField, PresetValues) {
    EXPECT_EQ(kCostPlain, 1);
    EXPECT_EQ(kCostForest, 3);
    EXPECT_EQ(kCostSwamp, 6);
    EXPECT_EQ(kCostMax, 254);
    EXPECT_EQ(kCostWall, 255);
    EXPECT_EQ(kMaxDimension, 16384);
}

TEST(CostField, CreateFillsEveryCell) {
    auto field = CostField::create(7, 3, kCostForest);
    ASSERT_TRUE(field.ok()) << field.error().message;
    EXPECT_EQ(field->width(), 7);
    EXPECT_EQ(field->height(), 3);
    EXPECT_EQ(field->size(), 21u);
    ASSERT_EQ(field->cells().size(), 21u);
    for (Cost c : field->cells()) EXPECT_EQ(c, kCostForest);
    EXPECT_EQ(field->version(), 0u);
}

TEST(CostField, CreateAcceptsTheLimits) {
    for (auto [w, h] : {std::pair{1, 1}, std::pair{kMaxDimension, 1}, std::pair{1, kMaxDimension}}) {
        auto field = CostField::create(w, h);
        ASSERT_TRUE(field.ok()) << w << "x" << h << ": " << field.error().message;
        EXPECT_EQ(field->size(), static_cast<std::size_t>(w) * h);
    }
}

TEST(CostField, CreateRejectsBadDimensions) {
    for (auto [w, h] : {std::pair{0, 5}, std::pair{5, 0}, std::pair{-1, 5}, std::pair{5, -3}, std::pair{16385, 1},
                        std::pair{1, 16385}, std::pair{-2147483647 - 1, 1}, std::pair{2147483647, 2147483647}}) {
        auto field = CostField::create(w, h);
        ASSERT_FALSE(field.ok()) << w << "x" << h << " was accepted";
        EXPECT_NE(field.error().message.find("16384"), std::string::npos) << field.error().message;
    }
}

TEST(CostField, CreateRejectsZeroFill) {
    auto field = CostField::create(3, 3, 0);
    ASSERT_FALSE(field.ok());
    EXPECT_NE(field.error().message.find("cost 0 is not allowed"), std::string::npos) << field.error().message;
}

TEST(CostField, SetAndAtUseRowMajorCells) {
    CostField field = std::move(CostField::create(5, 4).value());
    field.set(3, 2, 77);
    EXPECT_EQ(field.at(3, 2), 77);
    EXPECT_EQ(field.at(Cell{3, 2}), 77);
    EXPECT_EQ(field.cells()[2 * 5 + 3], 77);
    EXPECT_EQ(field.at(2, 3), kCostPlain);  // transposed cell untouched
}

TEST(CostField, ContainsAndPassable) {
    CostField field = std::move(CostField::create(4, 3).value());
    field.set(1, 1, kCostWall);
    field.set(2, 1, kCostMax);
    EXPECT_TRUE(field.contains(0, 0));
    EXPECT_TRUE(field.contains(3, 2));
    EXPECT_TRUE(field.contains(Cell{3, 2}));
    EXPECT_FALSE(field.contains(4, 0));
    EXPECT_FALSE(field.contains(0, 3));
    EXPECT_FALSE(field.contains(-1, 0));
    EXPECT_FALSE(field.contains(0, -1));
    EXPECT_FALSE(field.passable(1, 1));
    EXPECT_TRUE(field.passable(2, 1));
    EXPECT_FALSE(field.passable(-1, 0));
    EXPECT_FALSE(field.passable(4, 2));
}

TEST(CostField, VersionIncrementsOnSetAndFillRect) {
    CostField field = std::move(CostField::create(6, 6).value());
    const auto v0 = field.version();
    field.set(1, 1, kCostSwamp);
    const auto v1 = field.version();
    EXPECT_GT(v1, v0);
    field.fill_rect(0, 0, 2, 2, kCostForest);
    const auto v2 = field.version();
    EXPECT_GT(v2, v1);
    field.set(1, 1, kCostForest);  // same value still counts as a mutation
    EXPECT_GT(field.version(), v2);
    const auto v3 = field.version();
    (void)field.at(1, 1);
    (void)field.passable(1, 1);
    EXPECT_EQ(field.version(), v3) << "reads must not change the version";
}

TEST(CostField, FillRectIsInclusiveAndClipped) {
    CostField field = std::move(CostField::create(5, 4).value());
    field.fill_rect(1, 1, 2, 2, kCostWall);
    for (int y = 0; y < 4; ++y) {
        for (int x = 0; x < 5; ++x) {
            const bool inside = x >= 1 && x <= 2 && y >= 1 && y <= 2;
            EXPECT_EQ(field.at(x, y), inside ? kCostWall : kCostPlain) << x << ", " << y;
        }
    }
    field.fill_rect(-10, -10, 100, 0, kCostSwamp);  // clipped to row 0
    for (int x = 0; x < 5; ++x) EXPECT_EQ(field.at(x, 0), kCostSwamp);
    EXPECT_EQ(field.at(0, 1), kCostPlain);
    field.fill_rect(3, 3, 2, 2, kCostForest);  // empty rectangle: nothing changes
    EXPECT_EQ(field.at(2, 2), kCostWall);
    EXPECT_EQ(field.at(3, 3), kCostPlain);
    field.fill_rect(10, 10, 20, 20, kCostForest);  // entirely off the map
    for (Cost c : field.cells()) EXPECT_NE(c, kCostForest);
}

TEST(CostField, CopyIsIndependentAndUsesTheGivenResource) {
    test::CountingResource memory;
    CostField a = std::move(CostField::create(8, 8).value());
    a.set(2, 2, kCostSwamp);
    CostField b(a, &memory);
    EXPECT_GE(memory.allocations(), 1u);
    EXPECT_EQ(b.width(), 8);
    EXPECT_EQ(b.at(2, 2), kCostSwamp);
    b.set(2, 2, kCostWall);
    EXPECT_EQ(a.at(2, 2), kCostSwamp);
}

TEST(CostField, CreateAllocatesFromTheGivenResource) {
    test::CountingResource memory;
    {
        auto field = CostField::create(32, 16, kCostPlain, &memory);
        ASSERT_TRUE(field.ok());
        EXPECT_GE(memory.allocations(), 1u);
        EXPECT_GE(memory.bytes_allocated(), 32u * 16u);
    }
    EXPECT_EQ(memory.allocations(), memory.deallocations());
}

}  // namespace
}  // namespace tide
