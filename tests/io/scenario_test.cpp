// Moving AI .scen files: parsing, errors with source and line, and checks against a map.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "support/expect_error.hpp"
#include "support/jobs.hpp"
#include "support/test_maps.hpp"
#include "tide/generate.hpp"
#include "tide/map_io.hpp"
#include "tide/scenario_costs.hpp"

namespace tide {
namespace {

using test::failed_at;

constexpr std::string_view kSrc = "scen/a.scen";

Result<std::vector<ScenarioRow>> parse(std::string_view text) {
    return parse_scenarios(text, kSrc);
}

std::vector<ScenarioRow> parse_ok(std::string_view text) {
    auto rows = parse(text);
    EXPECT_TRUE(rows.ok()) << rows.error().message;
    return rows.ok() ? std::move(rows.value()) : std::vector<ScenarioRow>{};
}

TEST(Scenarios, TabSeparatedRows) {
    const auto rows = parse_ok(
        "version 1\n"
        "0\tarena.map\t49\t49\t1\t11\t1\t12\t1\n"
        "3\tarena.map\t49\t49\t44\t40\t3\t25\t45.72792206\n");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].bucket, 0);
    EXPECT_EQ(rows[0].map, "arena.map");
    EXPECT_EQ(rows[0].map_width, 49);
    EXPECT_EQ(rows[0].map_height, 49);
    EXPECT_EQ(rows[0].start, (Cell{1, 11}));
    EXPECT_EQ(rows[0].goal, (Cell{1, 12}));
    EXPECT_DOUBLE_EQ(rows[0].optimal, 1.0);
    EXPECT_EQ(rows[0].line, 2);
    EXPECT_EQ(rows[1].bucket, 3);
    EXPECT_EQ(rows[1].start, (Cell{44, 40}));
    EXPECT_EQ(rows[1].goal, (Cell{3, 25}));
    EXPECT_DOUBLE_EQ(rows[1].optimal, 45.72792206);
    EXPECT_EQ(rows[1].line, 3);
}

TEST(Scenarios, SpaceSeparatedAndVersion1_0) {
    const auto rows = parse_ok("version 1.0\n1 m.map 10 8 0 0 9 7 11.89949494\n");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].map_width, 10);
    EXPECT_EQ(rows[0].map_height, 8);
    EXPECT_EQ(rows[0].goal, (Cell{9, 7}));
    EXPECT_NEAR(rows[0].optimal, 11.89949494, 1e-12);
}

TEST(Scenarios, MixedSeparatorsCrlfAndNoFinalNewline) {
    const auto rows = parse_ok("version 1\r\n0 a.map\t4  4\t0 0 3 3 4.24264069\r\n\r\n2\ta.map 4 4 1 2 3 0 2.82842712");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1].bucket, 2);
    EXPECT_EQ(rows[1].line, 4);
    EXPECT_EQ(rows[1].start, (Cell{1, 2}));
    EXPECT_NEAR(rows[1].optimal, 2.82842712, 1e-12);
}

TEST(Scenarios, MapColumnMayBeAPath) {
    const auto rows = parse_ok("version 1\n0\tmaps/dao/arena.map\t49\t49\t1\t11\t1\t12\t1\n");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].map, "maps/dao/arena.map");
}

TEST(Scenarios, HeaderOnlyGivesNoRows) {
    EXPECT_TRUE(parse_ok("version 1\n").empty());
    EXPECT_TRUE(parse_ok("version 1").empty());
    EXPECT_TRUE(parse_ok("\nversion 1\n\n\n").empty());
}

TEST(Scenarios, IntegerOptimalAndPlusSign) {
    const auto rows = parse_ok("version 1\n0 a.map 4 4 0 0 3 0 3\n0 a.map 4 4 0 0 3 0 +3.5\n");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].optimal, 3.0);
    EXPECT_EQ(rows[1].optimal, 3.5);
}

// ---- Errors ------------------------------------------------------------------------------------

TEST(ScenarioErrors, EmptyFile) {
    EXPECT_TRUE(failed_at(parse(""), kSrc, 1, {"empty"}));
    EXPECT_TRUE(failed_at(parse(" \n\n"), kSrc, 1, {"empty"}));
}

TEST(ScenarioErrors, BadVersionLine) {
    EXPECT_TRUE(failed_at(parse("version 2\n"), kSrc, 1, {"version"}));
    EXPECT_TRUE(failed_at(parse("version\n"), kSrc, 1, {"version"}));
    EXPECT_TRUE(failed_at(parse("0 a.map 4 4 0 0 3 3 4.2\n"), kSrc, 1, {"version"}));
    EXPECT_TRUE(failed_at(parse("\n\nversion 1.5\n"), kSrc, 3, {"version", "1.5"}));
}

TEST(ScenarioErrors, WrongFieldCount) {
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 4 4 0 0 3 3\n"), kSrc, 2, {"9 fields", "found 8"}));
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 4 4 0 0 3 3 1\n0 a.map 4 4 0 0 3 3 1 7\n"), kSrc, 3,
                          {"9 fields", "found 10"}));
    // A map path with a space splits into two fields.
    EXPECT_TRUE(failed_at(parse("version 1\n0 my maps/a.map 4 4 0 0 3 3 1\n"), kSrc, 2, {"found 10"}));
}

TEST(ScenarioErrors, NonNumericField) {
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 4 4 x 0 3 3 1\n"), kSrc, 2, {"start_x", "'x'"}));
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map four 4 0 0 3 3 1\n"), kSrc, 2, {"width", "'four'"}));
    EXPECT_TRUE(failed_at(parse("version 1\nb a.map 4 4 0 0 3 3 1\n"), kSrc, 2, {"bucket"}));
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 4 4 0 0 3 3 one\n"), kSrc, 2, {"optimal", "'one'"}));
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 4 4 0 1.5 3 3 1\n"), kSrc, 2, {"start_y", "1.5"}));
}

TEST(ScenarioErrors, NegativeCoordinate) {
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 4 4 -1 0 3 3 1\n"), kSrc, 2, {"start_x", "-1"}));
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 4 4 0 0 3 -2 1\n"), kSrc, 2, {"goal_y", "-2"}));
}

TEST(ScenarioErrors, CoordinatesOutsideTheMap) {
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 4 4 4 0 3 3 1\n"), kSrc, 2, {"start", "outside", "4x4"}));
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 4 5 0 0 3 5 1\n"), kSrc, 2, {"goal", "(3, 5)", "outside"}));
}

TEST(ScenarioErrors, BadMapSize) {
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 0 4 0 0 0 0 0\n"), kSrc, 2, {"0x4"}));
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 16385 4 0 0 0 0 0\n"), kSrc, 2, {"16385"}));
}

TEST(ScenarioErrors, OptimalNaNOrNegative) {
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 4 4 0 0 3 3 nan\n"), kSrc, 2, {"optimal", "nan"}));
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 4 4 0 0 3 3 -1\n"), kSrc, 2, {"optimal", "-1"}));
    EXPECT_TRUE(failed_at(parse("version 1\n0 a.map 4 4 0 0 3 3 inf\n"), kSrc, 2, {"optimal", "inf"}));
}

TEST(ScenarioErrors, BinaryData) {
    static constexpr char kBytes[] = "version 1\n0 a.map 4 4 0 0 3 3 1\n\x01\x02\0\xff\n";
    EXPECT_TRUE(failed_at(parse(std::string_view(kBytes, sizeof kBytes - 1)), kSrc, 3, {"0x01", "text"}));
}

TEST(ScenarioErrors, ErrorLineCountsBlankLines) {
    EXPECT_TRUE(
        failed_at(parse("version 1\n\n0 a.map 4 4 0 0 3 3 1\n\n\n0 a.map 4 4 0 0 3 3\n"), kSrc, 6, {"9 fields"}));
}

// ---- check_scenarios ------------------------------------------------------------------------

TEST(CheckScenarios, AcceptsMatchingRows) {
    const CostField cost = test::grid_from_rows({"....", ".##.", "....", "...."});
    const auto rows = parse_ok("version 1\n0 a.map 4 4 0 0 3 3 1\n0 a.map 4 4 3 1 0 1 1\n");
    EXPECT_TRUE(check_scenarios(rows, cost, kSrc).ok());
    EXPECT_TRUE(check_scenarios({}, cost, kSrc).ok());
}

TEST(CheckScenarios, StartOnAWall) {
    const CostField cost = test::grid_from_rows({"....", ".##.", "....", "...."});
    const auto rows = parse_ok("version 1\n0 a.map 4 4 0 0 3 3 1\n0 a.map 4 4 1 1 0 0 1\n");
    EXPECT_TRUE(failed_at(check_scenarios(rows, cost, kSrc), kSrc, 3, {"start", "(1, 1)", "wall"}));
}

TEST(CheckScenarios, GoalOnAWall) {
    const CostField cost = test::grid_from_rows({"....", ".##.", "....", "...."});
    const auto rows = parse_ok("version 1\n\n0 a.map 4 4 0 0 2 1 1\n");
    EXPECT_TRUE(failed_at(check_scenarios(rows, cost, kSrc), kSrc, 3, {"goal", "(2, 1)", "wall"}));
}

TEST(CheckScenarios, WidthMismatch) {
    const CostField cost = test::grid_from_rows({"....", "....", "....", "...."});
    const auto rows = parse_ok("version 1\n0 a.map 4 4 0 0 3 3 1\n0 a.map 5 4 0 0 3 3 1\n");
    EXPECT_TRUE(failed_at(check_scenarios(rows, cost, kSrc), kSrc, 3, {"5x4", "4x4"}));
}

TEST(CheckScenarios, HeightMismatch) {
    const CostField cost = test::grid_from_rows({"....", "....", "....", "...."});
    const auto rows = parse_ok("version 1\n0 a.map 4 9 0 0 3 3 1\n");
    EXPECT_TRUE(failed_at(check_scenarios(rows, cost, kSrc), kSrc, 2, {"4x9"}));
}

// ---- scenario_costs: the check of tide scen and of Python's scen -----------------------------

TEST(ScenarioCosts, OneFieldPerGoalAndTheFlowPathCostPerRow) {
    const CostField cost = test::grid_from_rows({"....", "....", "....", "...."});
    const auto rows =
        parse_ok("version 1\n0 a.map 4 4 0 0 3 3 4.24264069\n0 a.map 4 4 0 3 3 3 3\n0 a.map 4 4 3 3 0 0 4.24264069\n");
    SerialJobSystem jobs;
    const auto r = scenario_costs(cost, rows, FieldParams{}, jobs);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->fields, 2u);  // goals (3, 3) and (0, 0)
    ASSERT_EQ(r->costs.size(), 3u);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_TRUE(within_scenario_tolerance(rows[i].optimal, r->costs[i])) << i << ": " << r->costs[i];
    }
    EXPECT_NEAR(r->costs[0], 3.0 * std::sqrt(2.0), 1e-12);
    EXPECT_EQ(r->costs[1], 3.0);
}

TEST(ScenarioCosts, UnreachableRowsCostInfinity) {
    const CostField cost = test::grid_from_rows({"..#.", "..#.", "..#.", "..#."});
    const auto rows = parse_ok("version 1\n0 a.map 4 4 0 0 3 0 3\n0 a.map 4 4 0 0 1 1 1.41421356\n");
    SerialJobSystem jobs;
    const auto r = scenario_costs(cost, rows, FieldParams{}, jobs);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(std::isinf(r->costs[0]));
    EXPECT_FALSE(within_scenario_tolerance(rows[0].optimal, r->costs[0]));
    EXPECT_TRUE(within_scenario_tolerance(rows[1].optimal, r->costs[1]));
}

TEST(ScenarioCosts, TheSameCostsHoweverTheGoalsAreSplit) {
    RandomMapSpec spec;
    spec.width = 48;
    spec.height = 40;
    spec.seed = 7;
    const CostField cost = generate_random_map(spec).value();
    std::string text = "version 1\n";
    for (int i = 0; i < 40; ++i) {
        const int sx = (i * 7) % 48, sy = (i * 5) % 40, gx = (i * 11 + 3) % 48, gy = (i * 13 + 1) % 40;
        if (!cost.passable(sx, sy) || !cost.passable(gx, gy)) continue;
        text += "0 a.map 48 40 " + std::to_string(sx) + " " + std::to_string(sy) + " " + std::to_string(gx) + " " +
                std::to_string(gy) + " 1\n";
    }
    const auto rows = parse_ok(text);
    ASSERT_GT(rows.size(), 10u);
    SerialJobSystem serial;
    test::ThreadJobs split(3);  // three ranges of goals, each on its own thread
    const auto a = scenario_costs(cost, rows, FieldParams{}, serial);
    const auto b = scenario_costs(cost, rows, FieldParams{}, split);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->costs, b->costs);
    EXPECT_EQ(a->fields, b->fields);
}

TEST(ScenarioCosts, AGoalOffTheMapIsAnErrorNamingIt) {
    const CostField cost = test::grid_from_rows({"....", "...."});
    std::vector<ScenarioRow> rows(1);  // not through check_scenarios()
    rows[0].start = {0, 0};
    rows[0].goal = {9, 1};
    SerialJobSystem jobs;
    const auto r = scenario_costs(cost, rows, FieldParams{}, jobs);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("goal (9, 1)"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace tide
