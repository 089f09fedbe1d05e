// Well-formed maps in both formats: line endings, legends, Moving AI terrain characters.

#include <gtest/gtest.h>

#include <string>

#include "tide/map_io.hpp"

namespace tide {
namespace {

const char* const kMovingAi =
    "type octile\n"
    "height 3\n"
    "width 4\n"
    "map\n"
    ".G@S\n"
    "OTW.\n"
    "....\n";

const char* const kTide =
    "tide-map 1\n"
    "width 5\n"
    "height 2\n"
    "map\n"
    ".F~#@\n"
    ".....\n";

Map parse_ok(std::string_view text, std::string_view source = "test.map") {
    auto map = parse_map(text, source);
    EXPECT_TRUE(map.ok()) << map.error().message;
    if (!map.ok()) return Map{std::move(CostField::create(1, 1).value())};
    return std::move(map.value());
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
    for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) {
        s.replace(pos, from.size(), to);
    }
    return s;
}

void expect_moving_ai_cells(const Map& map) {
    ASSERT_EQ(map.format, MapFormat::moving_ai);
    ASSERT_EQ(map.cost.width(), 4);
    ASSERT_EQ(map.cost.height(), 3);
    const Cost want[3][4] = {{1, 1, 255, 1}, {255, 255, 255, 1}, {1, 1, 1, 1}};
    for (int y = 0; y < 3; ++y) {
        for (int x = 0; x < 4; ++x) EXPECT_EQ(map.cost.at(x, y), want[y][x]) << x << ", " << y;
    }
}

void expect_tide_cells(const Map& map) {
    ASSERT_EQ(map.format, MapFormat::tide);
    ASSERT_EQ(map.cost.width(), 5);
    ASSERT_EQ(map.cost.height(), 2);
    const Cost want[5] = {kCostPlain, kCostForest, kCostSwamp, kCostWall, kCostWall};
    for (int x = 0; x < 5; ++x) {
        EXPECT_EQ(map.cost.at(x, 0), want[x]) << x;
        EXPECT_EQ(map.cost.at(x, 1), kCostPlain) << x;
    }
}

TEST(ParseMap, MovingAiTerrainCharacters) {
    expect_moving_ai_cells(parse_ok(kMovingAi));
}

TEST(ParseMap, TideDefaultLegend) {
    expect_tide_cells(parse_ok(kTide));
}

TEST(ParseMap, CrlfLineEndings) {
    expect_moving_ai_cells(parse_ok(replace_all(kMovingAi, "\n", "\r\n")));
    expect_tide_cells(parse_ok(replace_all(kTide, "\n", "\r\n")));
}

TEST(ParseMap, MissingFinalNewline) {
    std::string m = kMovingAi;
    m.pop_back();
    expect_moving_ai_cells(parse_ok(m));
    std::string t = kTide;
    t.pop_back();
    expect_tide_cells(parse_ok(t));
    std::string crlf = replace_all(kTide, "\n", "\r\n");
    crlf.resize(crlf.size() - 2);
    expect_tide_cells(parse_ok(crlf));
}

TEST(ParseMap, TrailingBlankLines) {
    expect_moving_ai_cells(parse_ok(std::string(kMovingAi) + "\n\n\n"));
    expect_tide_cells(parse_ok(std::string(kTide) + "\n  \n\t\n"));
    expect_tide_cells(parse_ok(replace_all(std::string(kTide) + "\n\n", "\n", "\r\n")));
}

TEST(ParseMap, HeaderOrderAndBlankLinesInTheHeader) {
    // Moving AI files in the wild sometimes list width before height; blank header lines are fine.
    expect_moving_ai_cells(parse_ok("type octile\nwidth 4\n\nheight 3\nmap\n.G@S\nOTW.\n....\n"));
    expect_tide_cells(parse_ok("tide-map 1\n\nheight 2\nwidth 5\nmap\n.F~#@\n.....\n"));
}

TEST(ParseMap, LegendOverridesAndAdds) {
    const Map map = parse_ok(
        "tide-map 1\n"
        "width 4\n"
        "height 2\n"
        "legend . 2\n"
        "legend w wall\n"
        "legend 9 254\n"
        "legend F 1\n"
        "map\n"
        ".w9F\n"
        "~#@.\n");
    EXPECT_EQ(map.cost.at(0, 0), 2);
    EXPECT_EQ(map.cost.at(1, 0), kCostWall);
    EXPECT_EQ(map.cost.at(2, 0), 254);
    EXPECT_EQ(map.cost.at(3, 0), 1);
    EXPECT_EQ(map.cost.at(0, 1), kCostSwamp);  // untouched default
    EXPECT_EQ(map.cost.at(1, 1), kCostWall);
    EXPECT_EQ(map.cost.at(2, 1), kCostWall);
    EXPECT_EQ(map.cost.at(3, 1), 2);
}

TEST(ParseMap, LegendCanTurnAWallSymbolPassable) {
    const Map map = parse_ok("tide-map 1\nwidth 2\nheight 1\nlegend # 5\nmap\n#@\n");
    EXPECT_EQ(map.cost.at(0, 0), 5);
    EXPECT_EQ(map.cost.at(1, 0), kCostWall);
}

TEST(ParseMap, LeadingBlankLinesBeforeTheHeader) {
    expect_tide_cells(parse_ok(std::string("\n\n") + kTide));
}

TEST(ParseMap, SpacesAndTabsInHeaderLines) {
    expect_tide_cells(parse_ok("tide-map   1\nwidth\t5\n  height 2  \nmap\n.F~#@\n.....\n"));
}

TEST(ParseMap, UsesTheGivenMemoryResource) {
    std::pmr::monotonic_buffer_resource arena;
    auto map = parse_map(kTide, "a.map", &arena);
    ASSERT_TRUE(map.ok());
    // The cells live in the arena: copying via the resource must keep values.
    expect_tide_cells(*map);
}

TEST(ParseMap, LargestDimensionIsAccepted) {
    std::string text = "type octile\nheight 1\nwidth 16384\nmap\n" + std::string(16384, '.') + "\n";
    const Map map = parse_ok(text);
    EXPECT_EQ(map.cost.width(), 16384);
}

}  // namespace
}  // namespace tide
