// Well-formed maps in both formats: line endings, legends, Moving AI terrain characters, unit
// classes and the fields their units get.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"
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

// --- Unit classes -----------------------------------------------------------------------------

bool same_cells(const CostField& a, const CostField& b) {
    return a.width() == b.width() && a.height() == b.height() && std::ranges::equal(a.cells(), b.cells());
}

TEST(ParseClasses, TideClassLinesDeclareAndRefineClasses) {
    const Map map = parse_ok(
        "tide-map 1\n"
        "width 4\n"
        "height 2\n"
        "class tank cost F 20\n"
        "class tank cost w 5\n"  // 'w' comes from a legend line further down
        "class big size 2\n"
        "legend w wall\n"
        "class boat cost ~ 1\n"
        "class boat cost . wall\n"
        "class boat size 3\n"
        "class boat cost ~ 2\n"  // a later line for the same character wins
        "map\n"
        ".Fw~\n"
        "~F..\n");
    EXPECT_EQ(map.cost.at(2, 0), kCostWall);  // the map's own costs are untouched
    EXPECT_EQ(map.cost.at(1, 0), kCostForest);
    ASSERT_EQ(map.classes.size(), 3u);
    EXPECT_EQ(map.classes[0].name, "tank");
    EXPECT_EQ(map.classes[1].name, "big");
    EXPECT_EQ(map.classes[2].name, "boat");

    const UnitClass* tank = find_class(map, "tank");
    ASSERT_NE(tank, nullptr);
    EXPECT_EQ(tank->size, 1);
    ASSERT_TRUE(tank->costs.has_value());
    const Cost tank_want[2][4] = {{1, 20, 5, kCostSwamp}, {kCostSwamp, 20, 1, 1}};
    for (int y = 0; y < 2; ++y) {
        for (int x = 0; x < 4; ++x) EXPECT_EQ(tank->costs->at(x, y), tank_want[y][x]) << x << ", " << y;
    }

    const UnitClass* big = find_class(map, "big");
    ASSERT_NE(big, nullptr);
    EXPECT_EQ(big->size, 2);
    EXPECT_FALSE(big->costs.has_value());  // a size alone: the map's costs

    const UnitClass* boat = find_class(map, "boat");
    ASSERT_NE(boat, nullptr);
    EXPECT_EQ(boat->size, 3);
    ASSERT_TRUE(boat->costs.has_value());
    const Cost boat_want[2][4] = {{kCostWall, kCostForest, kCostWall, 2}, {2, kCostForest, kCostWall, kCostWall}};
    for (int y = 0; y < 2; ++y) {
        for (int x = 0; x < 4; ++x) EXPECT_EQ(boat->costs->at(x, y), boat_want[y][x]) << x << ", " << y;
    }

    EXPECT_EQ(find_class(map, "default"), nullptr);
    EXPECT_EQ(find_class(map, "plane"), nullptr);
    EXPECT_EQ(find_class(map, "Tank"), nullptr);
}

TEST(ParseClasses, ATideMapWithoutClassLinesHasNoClasses) {
    EXPECT_TRUE(parse_ok(kTide).classes.empty());
}

TEST(ParseClasses, NamesUpToThirtyTwoCharactersAndThirtyTwoClasses) {
    std::string text = "tide-map 1\nwidth 1\nheight 1\n";
    const std::string longest(32, 'a');
    text += "class " + longest + " size 8\n";
    for (int i = 1; i < kMaxUnitClasses; ++i) text += "class Unit_" + std::to_string(i) + "-x size 1\n";
    text += "map\n.\n";
    const Map map = parse_ok(text);
    ASSERT_EQ(map.classes.size(), static_cast<std::size_t>(kMaxUnitClasses));
    EXPECT_EQ(map.classes[0].name, longest);
    EXPECT_EQ(map.classes[0].size, 8);
    EXPECT_NE(find_class(map, "Unit_31-x"), nullptr);
}

TEST(ParseClasses, MovingAiMapsAlwaysHaveTheWaterClass) {
    // kMovingAi has one W, at (2, 1): the water class's own costs make it 1, nothing else changes.
    const Map map = parse_ok(kMovingAi);
    ASSERT_EQ(map.classes.size(), 1u);
    const UnitClass* water = find_class(map, "water");
    ASSERT_NE(water, nullptr);
    EXPECT_EQ(water->size, 1);
    ASSERT_TRUE(water->costs.has_value());
    EXPECT_EQ(map.cost.at(2, 1), kCostWall);
    for (int y = 0; y < 3; ++y) {
        for (int x = 0; x < 4; ++x) {
            EXPECT_EQ(water->costs->at(x, y), x == 2 && y == 1 ? kCostPlain : map.cost.at(x, y)) << x << ", " << y;
        }
    }
    // Without any W the class is still there, and its field is the map's.
    const Map dry = parse_ok("type octile\nheight 2\nwidth 3\nmap\n.T.\n@GS\n");
    ASSERT_NE(find_class(dry, "water"), nullptr);
    auto field = class_cost_field(dry, "water");
    ASSERT_TRUE(field.ok()) << field.error().message;
    EXPECT_TRUE(same_cells(*field, dry.cost));
}

TEST(ClassCostField, DefaultIsTheMapAtSizeOneAndSizesGoThroughSizedCostField) {
    const Map map = parse_ok(
        "tide-map 1\n"
        "width 6\n"
        "height 5\n"
        "class big size 2\n"
        "class tank cost F 20\n"
        "map\n"
        "..F...\n"
        ".#..~.\n"
        "......\n"
        "...F..\n"
        "F.....\n");
    auto plain = class_cost_field(map, "default");
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    EXPECT_TRUE(same_cells(*plain, map.cost));
    auto plain3 = class_cost_field(map, "default", 3);
    ASSERT_TRUE(plain3.ok());
    EXPECT_TRUE(same_cells(*plain3, sized_cost_field(map.cost, 3).value()));

    auto big = class_cost_field(map, "big");  // its own size, the map's costs
    ASSERT_TRUE(big.ok());
    EXPECT_TRUE(same_cells(*big, sized_cost_field(map.cost, 2).value()));
    auto big1 = class_cost_field(map, "big", 1);
    ASSERT_TRUE(big1.ok());
    EXPECT_TRUE(same_cells(*big1, map.cost));

    const UnitClass* tank = find_class(map, "tank");
    ASSERT_NE(tank, nullptr);
    auto tank1 = class_cost_field(map, "tank");
    ASSERT_TRUE(tank1.ok());
    EXPECT_TRUE(same_cells(*tank1, *tank->costs));
    EXPECT_EQ(tank1->at(2, 0), 20);
    auto tank2 = class_cost_field(map, "tank", 2);
    ASSERT_TRUE(tank2.ok());
    EXPECT_TRUE(same_cells(*tank2, sized_cost_field(*tank->costs, 2).value()));
}

// Follows the flow from `from` to its goal; true when the path enters a cell `pred` accepts.
template <class Pred>
bool path_enters(const FlowField& field, Cell from, Pred pred) {
    Cell c = from;
    for (int steps = 0; field.direction(c.x, c.y) != Direction::goal; ++steps) {
        const auto next = field.next_index(c.x, c.y);
        if (next < 0 || steps > field.width() * field.height()) {
            ADD_FAILURE() << "no path from (" << from.x << ", " << from.y << ")";
            return false;
        }
        c = {static_cast<int>(next % field.width()), static_cast<int>(next / field.width())};
        if (pred(c)) return true;
    }
    return false;
}

TEST(ClassCostField, TheWaterClassCrossesALakeTheDefaultClassGoesRound) {
    const Map map = parse_ok(
        "type octile\n"
        "height 7\n"
        "width 11\n"
        "map\n"
        "...........\n"
        "...WWWWW...\n"
        "...WWWWW.T.\n"
        "...WWWWW...\n"
        "...WWWWW...\n"
        "...WWWWW...\n"
        "...........\n");
    const Cell start{1, 3};
    const Cell goal{9, 3};
    const auto is_water = [](Cell c) { return c.x >= 3 && c.x <= 7 && c.y >= 1 && c.y <= 5; };
    const FlowField land = build_flow_field(class_cost_field(map, "default").value(), std::span(&goal, 1)).value();
    const FlowField boat = build_flow_field(class_cost_field(map, "water").value(), std::span(&goal, 1)).value();
    EXPECT_FLOAT_EQ(boat.integration(start.x, start.y), 8.0f);  // straight across
    ASSERT_TRUE(land.reachable(start.x, start.y));
    EXPECT_GT(land.integration(start.x, start.y), boat.integration(start.x, start.y) + 2.0f);
    EXPECT_TRUE(path_enters(boat, start, is_water));
    EXPECT_FALSE(path_enters(land, start, is_water));
    EXPECT_EQ(boat.direction(9, 2), Direction::wall);  // trees stay walls for boats
}

TEST(ClassCostField, ATankThatPaysTwentyForForestGoesRoundIt) {
    const Map map = parse_ok(
        "tide-map 1\n"
        "width 9\n"
        "height 7\n"
        "class tank cost F 20\n"
        "map\n"
        ".........\n"
        "....F....\n"
        "....F....\n"
        "....F....\n"
        "....F....\n"
        "....F....\n"
        ".........\n");
    const Cell start{0, 3};
    const Cell goal{8, 3};
    const auto is_forest = [&](Cell c) { return map.cost.at(c) == kCostForest; };
    const FlowField infantry = build_flow_field(class_cost_field(map, "default").value(), std::span(&goal, 1)).value();
    const FlowField tank = build_flow_field(class_cost_field(map, "tank").value(), std::span(&goal, 1)).value();
    EXPECT_FLOAT_EQ(infantry.integration(start.x, start.y), 10.0f);                 // 7 plain + one forest cell at 3
    EXPECT_NEAR(tank.integration(start.x, start.y), 6 * std::sqrt(2.0) + 2, 1e-4);  // round the end of the strip
    EXPECT_TRUE(path_enters(infantry, start, is_forest));
    EXPECT_FALSE(path_enters(tank, start, is_forest));
}

}  // namespace
}  // namespace tide
