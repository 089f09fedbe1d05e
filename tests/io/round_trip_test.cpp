// format_tide_map: parse(format(x)) gives back the same cells.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "support/test_maps.hpp"
#include "tide/default_map.hpp"
#include "tide/map_io.hpp"

namespace tide {
namespace {

CostField reparse(const CostField& cost) {
    const std::string text = format_tide_map(cost).value();
    auto map = parse_map(text, "<formatted>");
    EXPECT_TRUE(map.ok()) << map.error().message << "\n" << text.substr(0, 2000);
    if (!map.ok()) return std::move(CostField::create(1, 1).value());
    EXPECT_EQ(map->format, MapFormat::tide);
    return std::move(map->cost);
}

void expect_same_cells(const CostField& a, const CostField& b) {
    ASSERT_EQ(a.width(), b.width());
    ASSERT_EQ(a.height(), b.height());
    int mismatches = 0;
    for (int y = 0; y < a.height(); ++y) {
        for (int x = 0; x < a.width(); ++x) {
            if (a.at(x, y) != b.at(x, y) && mismatches++ < 10) {
                ADD_FAILURE() << "(" << x << ", " << y << "): " << int(a.at(x, y)) << " became " << int(b.at(x, y));
            }
        }
    }
    EXPECT_EQ(mismatches, 0);
}

TEST(RoundTrip, DefaultLegendOnly) {
    const CostField cost = test::grid_from_rows({".F~#", "#~F.", "...."});
    const std::string text = format_tide_map(cost).value();
    EXPECT_EQ(text.rfind("tide-map 1\n", 0), 0u) << text;
    EXPECT_EQ(text.find("legend"), std::string::npos) << "default costs need no legend lines:\n" << text;
    expect_same_cells(cost, reparse(cost));
}

TEST(RoundTrip, DefaultMapText) {
    auto map = parse_map(default_map_text(), "<default map>");
    ASSERT_TRUE(map.ok());
    expect_same_cells(map->cost, reparse(map->cost));
}

TEST(RoundTrip, MovingAiMapBecomesAnEquivalentTideMap) {
    auto map = parse_map("type octile\nheight 2\nwidth 3\nmap\n.G@\nTWS\n", "m.map");
    ASSERT_TRUE(map.ok());
    expect_same_cells(map->cost, reparse(map->cost));
}

TEST(RoundTrip, SingleCell) {
    for (Cost c : {Cost{1}, Cost{2}, Cost{254}, Cost{255}}) {
        const CostField cost = std::move(CostField::create(1, 1, c).value());
        expect_same_cells(cost, reparse(cost));
    }
}

TEST(RoundTrip, FormattedTextIsStable) {
    const CostField cost = test::grid_from_rows({"1Z9.", "AB#F", "~CDE"});
    const std::string once = format_tide_map(cost).value();
    const std::string twice = format_tide_map(reparse(cost)).value();
    EXPECT_EQ(once, twice);
}

// Random maps with up to 92 distinct passable costs: the 3 defaults plus one legend symbol for
// each of the 89 other printable characters.
TEST(RoundTrip, ManyDistinctCosts) {
    std::mt19937 rng(7);
    for (int distinct : {5, 40, 80, 89}) {
        const int w = 37, h = 23;
        CostField cost = std::move(CostField::create(w, h).value());
        std::vector<Cost> palette{kCostPlain, kCostForest, kCostSwamp, kCostWall};
        while (static_cast<int>(palette.size()) < distinct + 4) {
            const auto c = static_cast<Cost>(test::random_int(rng, 1, 254));
            if (std::find(palette.begin(), palette.end(), c) == palette.end()) palette.push_back(c);
        }
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) cost.set(x, y, palette[rng() % palette.size()]);
        }
        // Make sure every palette entry occurs.
        for (std::size_t i = 0; i < palette.size(); ++i) {
            cost.set(static_cast<int>(i % w), static_cast<int>(i / w), palette[i]);
        }
        SCOPED_TRACE(distinct);
        expect_same_cells(cost, reparse(cost));
    }
}

// All 254 passable costs plus walls: more distinct costs than single-character legend symbols can
// name (92), so the writer refuses the map with an error instead of writing it lossily (falling
// back to the nearest cost).
TEST(RoundTrip, TooManyDistinctCostsIsAnError) {
    CostField cost = std::move(CostField::create(16, 16).value());
    for (int i = 0; i < 256; ++i) {
        const int c = i == 0 ? kCostWall : std::min(i, 255);
        cost.set(i % 16, i / 16, static_cast<Cost>(c));
    }
    const auto text = format_tide_map(cost);
    ASSERT_FALSE(text.ok());
    EXPECT_NE(text.error().message.find("254 distinct passable costs"), std::string::npos) << text.error().message;
    EXPECT_NE(text.error().message.find("at most 92"), std::string::npos) << text.error().message;
}

}  // namespace
}  // namespace tide
