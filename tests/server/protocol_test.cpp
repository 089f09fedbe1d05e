// Client message validation of tide serve: every refused case names what is wrong.

#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "protocol.hpp"
#include "tide/scenarios.hpp"

namespace tide::serve {
namespace {

// The world command (W) or viewer command (V) a parsed message holds; throws when it holds another.
template <class T>
const T& world_command(const Result<Command>& c) {
    return std::get<T>(std::get<WorldCommand>(*c));
}
template <class T>
const T& viewer_command(const Result<Command>& c) {
    return std::get<T>(std::get<ViewerCommand>(*c));
}

std::string refused(const std::string& text) {
    const ParsedMessage m = parse_client_message(text);
    EXPECT_FALSE(m.command.ok()) << text;
    return m.command.ok() ? std::string() : m.command.error().message;
}

TEST(Protocol, RefusesMalformedMessages) {
    EXPECT_NE(refused("not json").find("not valid JSON"), std::string::npos);
    EXPECT_NE(refused("[1,2]").find("not a JSON object"), std::string::npos);
    EXPECT_NE(refused(R"({"x":1})").find("no string 'type'"), std::string::npos);
    EXPECT_NE(refused(R"({"type":7})").find("no string 'type'"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"explode"})").find("unknown message type 'explode'"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"pause","paused":true,"extra":1})").find("unknown field 'extra'"), std::string::npos);
    EXPECT_EQ(parse_client_message(R"({"type":"explode"})").type, "explode");
}

TEST(Protocol, RefusesOversizedMessages) {
    std::string big = R"({"type":"ping","id":1,"pad":")" + std::string(kMaxMessageBytes, 'x') + "\"}";
    EXPECT_NE(refused(big).find("over the 65536-byte limit"), std::string::npos);
}

TEST(Protocol, AcceptsAMessageAtTheSizeLimit) {
    std::string pad(kMaxMessageBytes, 'x');
    const std::string head = R"({"type":"ping","id":1,"pad":")";
    pad.resize(kMaxMessageBytes - head.size() - 2);
    const std::string edge = head + pad + "\"}";
    ASSERT_EQ(edge.size(), kMaxMessageBytes);
    // Exactly at the limit it is read (and refused only for its unknown field, not its size).
    EXPECT_NE(refused(edge).find("unknown field 'pad'"), std::string::npos);
    EXPECT_NE(refused(edge + " ").find("65536-byte limit"), std::string::npos);
}

TEST(Protocol, UploadedMapNamesArePrintableAndBounded) {
    EXPECT_EQ(clean_map_name("arena.map"), "arena.map");
    EXPECT_EQ(clean_map_name(std::string("a\x01"
                                         "b\nc\rd\x1b[31me\x7f\xc3\xa9.map")),
              "a_b_c_d_[31me___.map");
    EXPECT_EQ(clean_map_name(""), "upload");
    EXPECT_EQ(clean_map_name(std::string(kMaxMapNameChars, 'n')).size(), kMaxMapNameChars);
    EXPECT_EQ(clean_map_name(std::string(kMaxMapNameChars + 1, 'n')).size(), kMaxMapNameChars);
}

TEST(Protocol, MapUploadsAreParsedWithTheirCleanName) {
    auto ok = parse_map_upload("type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n", "t\x02iny.map");
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_EQ(ok->name, "t_iny.map");
    EXPECT_EQ(ok->cost.width(), 4);
    EXPECT_TRUE(ok->cost.passable(ok->goal.x, ok->goal.y));
    auto bad = parse_map_upload("type octile\nheight 2\nwidth 3\nmap\n...\n..\n", "b\nad.map");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message.rfind("b_ad.map:6: map row 1", 0), 0u) << bad.error().message;
    auto walls = parse_map_upload("type octile\nheight 1\nwidth 1\nmap\n@\n", "w.map");
    ASSERT_FALSE(walls.ok());
    EXPECT_NE(walls.error().message.find("no passable cell"), std::string::npos);
    // The upload limit, at its edge: one byte over is refused before parsing.
    const std::string over(kMaxUploadBytes + 1, '.');
    auto big = parse_map_upload(over, "big.map");
    ASSERT_FALSE(big.ok());
    EXPECT_NE(big.error().message.find("over the " + std::to_string(kMaxUploadBytes) + "-byte limit"),
              std::string::npos)
        << big.error().message;
    auto at_limit = parse_map_upload(std::string_view(over).substr(0, kMaxUploadBytes), "big.map");
    ASSERT_FALSE(at_limit.ok());  // parsed (and refused as a map), not refused for its size
    EXPECT_EQ(at_limit.error().message.find("byte limit"), std::string::npos) << at_limit.error().message;
}

TEST(Protocol, RefusesOutOfRangeValues) {
    EXPECT_NE(refused(R"({"type":"paint","x":1,"y":1,"radius":17,"terrain":"wall"})").find("'radius' = 17"),
              std::string::npos);
    EXPECT_NE(refused(R"({"type":"paint","x":-1,"y":1,"radius":0,"terrain":"wall"})").find("'x' = -1"),
              std::string::npos);
    EXPECT_NE(refused(R"({"type":"paint","x":1.5,"y":1,"radius":0,"terrain":"wall"})").find("must be an integer"),
              std::string::npos);
    EXPECT_NE(refused(R"({"type":"paint","x":18446744073709551615,"y":1,"radius":0,"terrain":"wall"})").find("outside"),
              std::string::npos);
    EXPECT_NE(refused(R"({"type":"paint","x":1,"y":1,"radius":0,"terrain":"lava"})").find("'lava'"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"paint","x":1,"y":1,"radius":0})").find("'terrain'"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"spawn","count":200001})").find("200001"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"spawn","count":-5})").find("-5"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"spawn"})").find("missing 'count'"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"params","speed":0})").find("'speed'"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"params","radius":0.9})").find("'radius'"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"params","separation":"high"})").find("must be a number"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"params"})").find("nothing to change"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"pause","paused":1})").find("true or false"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"load_map","name":"atlantis"})").find("'atlantis'"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"ping"})").find("'id'"), std::string::npos);
}

TEST(Protocol, RefusesBadGoalLists) {
    EXPECT_NE(refused(R"({"type":"set_goals","goals":[]})").find("0 goals"), std::string::npos);
    std::string many = R"({"type":"set_goals","goals":[)";
    for (int i = 0; i < 17; ++i) many += std::string(i ? "," : "") + "[1," + std::to_string(i) + "]";
    EXPECT_NE(refused(many + "]}").find("17 goals"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"set_goals","goals":[[1]]})").find("not [x, y]"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"set_goals","goals":[[1,-2]]})").find("outside any map"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"set_goals","goals":"here"})").find("must be an array"), std::string::npos);
}

TEST(Protocol, AcceptsValidMessages) {
    auto m = parse_client_message(R"({"type":"paint","x":3,"y":4,"radius":2,"terrain":"swamp"})");
    ASSERT_TRUE(m.command.ok()) << m.command.error().message;
    const auto& p = world_command<Paint>(m.command);
    EXPECT_EQ(p.x, 3);
    EXPECT_EQ(p.y, 4);
    EXPECT_EQ(p.radius, 2);
    EXPECT_EQ(p.cost, kCostSwamp);
    m = parse_client_message(R"({"type":"set_goals","goals":[[1,2],[3,4]]})");
    ASSERT_TRUE(m.command.ok());
    EXPECT_EQ(world_command<SetGoals>(m.command).goals, (std::vector<Cell>{{1, 2}, {3, 4}}));
    m = parse_client_message(R"({"type":"params","speed":4.5})");
    ASSERT_TRUE(m.command.ok());
    EXPECT_FLOAT_EQ(*viewer_command<ChangeSettings>(m.command).speed, 4.5f);
    EXPECT_FALSE(viewer_command<ChangeSettings>(m.command).radius.has_value());
    EXPECT_TRUE(parse_client_message(R"({"type":"spawn","count":200000})").command.ok());
    EXPECT_TRUE(parse_client_message(R"({"type":"load_map","name":"maze"})").command.ok());
    EXPECT_TRUE(parse_client_message(R"({"type":"step"})").command.ok());
}

TEST(Protocol, OrdersSelectionsAndViews) {
    auto m = parse_client_message(R"({"type":"select","box":[1.5,2,10.25,8]})");
    ASSERT_TRUE(m.command.ok()) << m.command.error().message;
    const auto& sel = viewer_command<SelectUnits>(m.command);
    ASSERT_TRUE(sel.box.has_value());
    EXPECT_FLOAT_EQ(sel.box->x0, 1.5f);
    EXPECT_FLOAT_EQ(sel.box->x1, 10.25f);
    m = parse_client_message(R"({"type":"select","box":null})");
    ASSERT_TRUE(m.command.ok());
    EXPECT_FALSE(viewer_command<SelectUnits>(m.command).box.has_value());
    EXPECT_NE(refused(R"({"type":"select","box":[5,5,2,8]})").find("x0 < x1"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"select","box":[1,2,3]})").find("'box' must be"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"select"})").find("missing 'box'"), std::string::npos);

    m = parse_client_message(R"({"type":"order","goals":[[3,4]]})");
    ASSERT_TRUE(m.command.ok());
    EXPECT_EQ(viewer_command<OrderSelected>(m.command).goals, (std::vector<Cell>{{3, 4}}));  // this client's selection
    m = parse_client_message(R"({"type":"order","goals":[[3,4],[5,6]],"select":[0,0,9,9]})");
    ASSERT_TRUE(m.command.ok());
    EXPECT_EQ(world_command<Order>(m.command).goals.size(), 2u);
    // Cells 0..9 inclusive: positions [0, 10).
    const auto& box = std::get<SelectBox>(world_command<Order>(m.command).select);
    EXPECT_EQ(box.x0, 0.0f);
    EXPECT_EQ(box.x1, 10.0f);
    EXPECT_EQ(box.y1, 10.0f);
    EXPECT_NE(refused(R"({"type":"order","goals":[]})").find("0 goals"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"order","goals":[[1,1]],"select":[0,0,1.5,2]})").find("integer cells"),
              std::string::npos);

    m = parse_client_message(R"({"type":"view","group":3})");
    ASSERT_TRUE(m.command.ok());
    EXPECT_EQ(viewer_command<ShowGroup>(m.command).group, 3u);
    EXPECT_NE(refused(R"({"type":"view","group":-1})").find("'group'"), std::string::npos);
    m = parse_client_message(R"({"type":"set_goals","goals":[[1,2]],"group":4})");
    ASSERT_TRUE(m.command.ok());
    EXPECT_EQ(world_command<SetGoals>(m.command).group, 4u);
}

TEST(Protocol, FleeOrdersAndWallMargins) {
    auto m = parse_client_message(R"({"type":"order","goals":[[3,4]],"flee":true})");
    ASSERT_TRUE(m.command.ok()) << m.command.error().message;
    EXPECT_TRUE(viewer_command<OrderSelected>(m.command).flee);
    m = parse_client_message(R"({"type":"order","goals":[[3,4]]})");
    EXPECT_FALSE(viewer_command<OrderSelected>(m.command).flee);
    m = parse_client_message(R"({"type":"set_goals","goals":[[3,4]],"group":2,"flee":true})");
    ASSERT_TRUE(m.command.ok());
    EXPECT_TRUE(world_command<SetGoals>(m.command).flee);
    EXPECT_NE(refused(R"({"type":"order","goals":[[3,4]],"flee":1})").find("'flee' must be true or false"),
              std::string::npos);
    m = parse_client_message(R"({"type":"line_of_sight","on":false})");
    ASSERT_TRUE(m.command.ok()) << m.command.error().message;
    EXPECT_EQ(viewer_command<ChangeSettings>(m.command).line_of_sight, std::optional<bool>(false));
    EXPECT_FALSE(viewer_command<ChangeSettings>(m.command).congestion.has_value());
    EXPECT_NE(refused(R"({"type":"line_of_sight","on":1})").find("'on' must be true or false"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"line_of_sight"})").find("'on' must be true or false"), std::string::npos);
    m = parse_client_message(R"({"type":"wall_margin","radius":2,"extra":4})");
    ASSERT_TRUE(m.command.ok());
    EXPECT_EQ(world_command<SetWallMargin>(m.command).margin, (WallMargin{2, 4}));
    EXPECT_NE(refused(R"({"type":"wall_margin","radius":65,"extra":4})").find("'radius' = 65"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"wall_margin","radius":2,"extra":254})").find("'extra' = 254"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"wall_margin","radius":2})").find("extra"), std::string::npos);
    m = parse_client_message(R"({"type":"congestion","on":false})");
    ASSERT_TRUE(m.command.ok());
    EXPECT_EQ(viewer_command<ChangeSettings>(m.command).congestion, std::optional<bool>(false));
    m = parse_client_message(R"({"type":"congestion","on":true})");
    ASSERT_TRUE(m.command.ok());
    EXPECT_EQ(viewer_command<ChangeSettings>(m.command).congestion, std::optional<bool>(true));
    EXPECT_FALSE(viewer_command<ChangeSettings>(m.command).speed.has_value());
    EXPECT_NE(refused(R"({"type":"congestion","on":1})").find("'on' must be true or false"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"congestion"})").find("'on' must be true or false"), std::string::npos);
}

TEST(Protocol, SpawnSizesAndAdd) {
    auto m = parse_client_message(R"({"type":"spawn","count":40})");
    ASSERT_TRUE(m.command.ok()) << m.command.error().message;
    EXPECT_EQ(world_command<Spawn>(m.command).size, 1);
    EXPECT_FALSE(world_command<Spawn>(m.command).add);
    m = parse_client_message(R"({"type":"spawn","count":40,"size":3,"add":true})");
    ASSERT_TRUE(m.command.ok()) << m.command.error().message;
    const auto& sp = world_command<Spawn>(m.command);
    EXPECT_EQ(sp.count, 40);
    EXPECT_EQ(sp.size, 3);
    EXPECT_TRUE(sp.add);
    EXPECT_FALSE(world_command<Spawn>(parse_client_message(R"({"type":"spawn","count":1,"add":false})").command).add);

    EXPECT_NE(refused(R"({"type":"spawn","count":10,"size":0})").find("'size' = 0 is outside 1..3"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"spawn","count":10,"size":4})").find("'size' = 4 is outside 1..3"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"spawn","count":10,"size":2.5})").find("'size' must be an integer"),
              std::string::npos);
    EXPECT_NE(refused(R"({"type":"spawn","count":10,"size":"big"})").find("'size' must be an integer"),
              std::string::npos);
    EXPECT_NE(refused(R"({"type":"spawn","count":10,"size":null})").find("'size' must be an integer"),
              std::string::npos);
    EXPECT_NE(refused(R"({"type":"spawn","count":10,"add":1})").find("'add' must be true or false"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"spawn","count":10,"add":"yes"})").find("'add' must be true or false"),
              std::string::npos);
    EXPECT_NE(refused(R"({"type":"spawn","count":10,"sizes":2})").find("unknown field 'sizes'"), std::string::npos);

    m = parse_client_message(R"({"type":"spawn","count":10,"area":[0,2,9,39]})");
    ASSERT_TRUE(m.command.ok()) << m.command.error().message;
    const Spawn& in_area = world_command<Spawn>(m.command);
    ASSERT_TRUE(in_area.in_area);
    EXPECT_EQ((std::array{in_area.x0, in_area.y0, in_area.x1, in_area.y1}), (std::array{0, 2, 9, 39}));
    EXPECT_FALSE(world_command<Spawn>(parse_client_message(R"({"type":"spawn","count":1})").command).in_area);
    EXPECT_NE(refused(R"({"type":"spawn","count":10,"area":[9,0,0,39]})").find("x0 <= x1"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"spawn","count":10,"area":[0,0,9.5,39]})").find("integer cells"), std::string::npos);
    EXPECT_NE(refused(R"({"type":"spawn","count":10,"area":[0,0,9]})").find("'area' must be"), std::string::npos);
}

TEST(Protocol, TowerChecksAndPlacements) {
    for (const char* type : {"tower_check", "place_tower"}) {
        const std::string t = type;
        auto m = parse_client_message(R"({"type":")" + t + R"(","x0":13,"y0":18,"x1":15,"y1":20})");
        ASSERT_TRUE(m.command.ok()) << m.command.error().message;
        EXPECT_EQ(m.type, t);
        const PlaceTower& got =
            t == "tower_check" ? viewer_command<CheckTower>(m.command).tower : world_command<PlaceTower>(m.command);
        EXPECT_EQ((std::array{got.x0, got.y0, got.x1, got.y1}), (std::array{13, 18, 15, 20}));
        // One cell, and the largest side.
        EXPECT_TRUE(parse_client_message(R"({"type":")" + t + R"(","x0":0,"y0":0,"x1":0,"y1":0})").command.ok());
        EXPECT_TRUE(parse_client_message(R"({"type":")" + t + R"(","x0":0,"y0":0,"x1":7,"y1":7})").command.ok());

        const std::pair<std::string, std::string> bad[] = {
            {R"("x0":0,"y0":0,"x1":8,"y1":1)", "a tower of 9x2 cells; at most 8 a side"},
            {R"("x0":0,"y0":0,"x1":1,"y1":8)", "a tower of 2x9 cells; at most 8 a side"},
            {R"("x0":5,"y0":0,"x1":4,"y1":1)", "'x0' = 5 is past 'x1' = 4"},
            {R"("x0":0,"y0":3,"x1":1,"y1":2)", "'y0' = 3 is past 'y1' = 2"},
            {R"("x0":-1,"y0":0,"x1":1,"y1":1)", "'x0' = -1 is outside 0..16383"},
            {R"("x0":0,"y0":0,"x1":1,"y1":16384)", "'y1' = 16384 is outside 0..16383"},
            {R"("x0":0,"y0":0,"x1":1.5,"y1":1)", "'x1' must be an integer"},
            {R"("x0":"0","y0":0,"x1":1,"y1":1)", "'x0' must be an integer"},
            {R"("x0":0,"y0":0,"x1":1,"y1":null)", "'y1' must be an integer"},
            {R"("x0":0,"y0":0,"x1":1)", "missing 'y1'"},
            {R"("x0":0,"y0":0,"x1":1,"y1":1,"size":2)", "unknown field 'size'"},
            {R"("x0":18446744073709551615,"y0":0,"x1":1,"y1":1)", "outside"},
        };
        for (const auto& [fields, words] : bad) {
            const std::string text = R"({"type":")" + t + R"(",)" + fields + "}";
            const std::string message = refused(text);
            EXPECT_NE(message.find(words), std::string::npos) << text << " -> " << message;
            EXPECT_NE(message.find(t), std::string::npos) << message;  // names the message type
        }
    }
}

TEST(Protocol, OrderBodies) {
    auto good = parse_order_body(R"({"select":[0,0,20,39],"goals":[[54,18]]})");
    ASSERT_TRUE(good.ok()) << good.error().message;
    const auto& box = std::get<SelectBox>(good->select);  // cells 0..20 x 0..39: positions up to 21 x 40
    EXPECT_EQ(box.x1, 21.0f);
    EXPECT_EQ(box.y1, 40.0f);
    auto bad = [](const char* body) {
        auto r = parse_order_body(body);
        EXPECT_FALSE(r.ok()) << body;
        return r.ok() ? std::string() : r.error().message;
    };
    EXPECT_NE(bad("{").find("not valid JSON"), std::string::npos);
    EXPECT_NE(bad("[]").find("not a JSON object"), std::string::npos);
    EXPECT_NE(bad(R"({"goals":[[1,1]]})").find("missing 'select'"), std::string::npos);
    EXPECT_NE(bad(R"({"select":[0,0,5,5]})").find("'goals'"), std::string::npos);
    EXPECT_NE(bad(R"({"select":[5,0,0,5],"goals":[[1,1]]})").find("x0 <= x1"), std::string::npos);
    EXPECT_NE(bad(R"({"select":[0,0,5,5],"goals":[[1,1]],"who":1})").find("unknown field 'who'"), std::string::npos);
}

TEST(Protocol, ErrorReplyIsJson) {
    EXPECT_EQ(error_json("bad \"x\"", "paint"), R"({"message":"bad \"x\"","request":"paint","type":"error"})");
    EXPECT_EQ(error_json("no type", ""), R"({"message":"no type","request":null,"type":"error"})");
}

TEST(Protocol, DemoMessages) {
    auto goals = parse_client_message(R"({"type":"set_goals","goals":[[0,0]],"snap":true})");
    ASSERT_TRUE(goals.command.ok());
    EXPECT_EQ(viewer_command<SnapGoals>(goals.command).command.goals, (std::vector<Cell>{{0, 0}}));
    EXPECT_FALSE(parse_client_message(R"({"type":"set_goals","goals":[[0,0]],"snap":1})").command.ok());
    auto exits = parse_client_message(R"({"type":"set_goals","goals":[[0,0]],"exit":true})");
    ASSERT_TRUE(exits.command.ok());
    EXPECT_TRUE(world_command<SetGoals>(exits.command).exit);
    EXPECT_FALSE(viewer_command<SnapGoals>(goals.command).command.exit);
    EXPECT_FALSE(parse_client_message(R"({"type":"set_goals","goals":[[0,0]],"exit":true,"flee":true})").command.ok());
    auto up = parse_client_message(R"({"type":"load_map","name":"mine.map","uploaded":true})");
    ASSERT_TRUE(up.command.ok());
    EXPECT_TRUE(viewer_command<LoadMap>(up.command).uploaded);
    EXPECT_FALSE(parse_client_message(R"({"type":"load_map","name":"","uploaded":true})").command.ok());
    EXPECT_FALSE(parse_client_message(R"({"type":"load_map","name":"mine.map"})").command.ok());
    for (const std::string& name : scenario_names()) {
        EXPECT_TRUE(parse_client_message(R"({"type":"scenario","name":")" + name + "\"}").command.ok()) << name;
    }
    EXPECT_FALSE(parse_client_message(R"({"type":"scenario","name":"nowhere"})").command.ok());
    auto cmp = parse_client_message(R"({"type":"astar_compare","group":3,"samples":10})");
    ASSERT_TRUE(cmp.command.ok());
    EXPECT_EQ(viewer_command<CompareAstar>(cmp.command).group, 3u);
    EXPECT_EQ(viewer_command<CompareAstar>(cmp.command).samples, 10);
    EXPECT_FALSE(parse_client_message(R"({"type":"astar_compare","samples":0})").command.ok());
    EXPECT_FALSE(parse_client_message(R"({"type":"astar_compare","samples":100000})").command.ok());
    auto ins = parse_client_message(R"({"type":"inspect","x":3.5,"y":4.25})");
    ASSERT_TRUE(ins.command.ok());
    EXPECT_FLOAT_EQ(viewer_command<InspectUnit>(ins.command).at.y, 4.25f);
    EXPECT_FALSE(parse_client_message(R"({"type":"inspect","x":3.5})").command.ok());
    EXPECT_FALSE(parse_client_message(R"({"type":"inspect","x":-1,"y":2})").command.ok());
}

TEST(Protocol, SnapGoalsMovesWallGoalsToTheNearestOpenCell) {
    CostField cost = *CostField::create(5, 3);
    for (int y = 0; y < 3; ++y) cost.set(2, y, kCostWall);
    cost.set(3, 1, kCostWall);
    std::vector<Cell> goals{{0, 0}, {2, 1}, {3, 1}, {9, 9}};
    const auto moves = snap_goals(cost, goals);
    ASSERT_EQ(moves.size(), 3u);
    EXPECT_EQ(moves[0].from, (Cell{2, 1}));
    EXPECT_EQ(moves[0].to, (Cell{1, 1}));
    EXPECT_EQ(moves[1].to, (Cell{3, 0}));  // ties: first in row-major order
    EXPECT_EQ(moves[2].to, (Cell{4, 2}));
    for (const Cell g : goals) EXPECT_TRUE(cost.passable(g.x, g.y));
    const auto j = nlohmann::json::parse(snapped_json(moves, "set_goals"));
    EXPECT_EQ(j["type"], "snapped");
    EXPECT_EQ(j["moves"][0]["to"], nlohmann::json::parse("[1,1]"));
}

}  // namespace
}  // namespace tide::serve
