// The built-in scenarios; see scenarios.hpp. Each is built through the World's public commands
// only, so a host can write its own the same way.

#include "tide/scenarios.hpp"

#include <algorithm>

#include "tide/generate.hpp"

namespace tide {
namespace {

// A w x h map of plain cells inside a wall border.
CostField walled_room(int w, int h) {
    CostField cost = *CostField::create(w, h);
    cost.fill_rect(0, 0, w - 1, 0, kCostWall);
    cost.fill_rect(0, h - 1, w - 1, h - 1, kCostWall);
    cost.fill_rect(0, 0, 0, h - 1, kCostWall);
    cost.fill_rect(w - 1, 0, w - 1, h - 1, kCostWall);
    return cost;
}

// An order of the units in a box.
Order order_box(SelectBox box, std::vector<Cell> goals) {
    Order o;
    o.select = box;
    o.goals = std::move(goals);
    return o;
}

// 1,000 units behind a wall with a 4-cell door, the goal on the other side.
Scenario door() {
    Scenario s;
    s.description = "1,000 units through a 4-cell door to a goal across the room";
    s.cost = walled_room(64, 40);
    s.cost.fill_rect(30, 1, 31, 38, kCostWall);
    s.cost.fill_rect(30, 18, 31, 21, kCostPlain);  // the door: rows 18..21
    s.goals = {{56, 20}};
    s.units = 1000;
    s.spawn_area = CellRect{2, 2, 24, 37};
    s.passage = CellRect{30, 18, 31, 21};
    s.approach = CellRect{1, 1, 29, 38};
    s.seconds = 60.0;
    return s;
}

// Two groups of 300 at either end of a 6-cell corridor, each heading for the other end.
Scenario counter_flow(bool both) {
    Scenario s;
    s.description = both ? "two groups of 300 trade ends through a 6-cell corridor"
                         : "300 units through a 6-cell corridor (the west-bound group of counter_flow alone)";
    s.cost = walled_room(96, 24);
    s.cost.fill_rect(20, 1, 75, 8, kCostWall);  // the corridor: rows 9..14 between x = 20 and 75
    s.cost.fill_rect(20, 15, 75, 22, kCostWall);
    s.goals = {{90, 12}};
    s.units = both ? 300 : 0;
    s.spawn_area = CellRect{2, 2, 16, 21};
    Spawn east;
    east.count = 300;
    east.add = true;
    east.in_area = true;
    east.x0 = 79, east.y0 = 2, east.x1 = 93, east.y1 = 21;
    // Added units with the same goals join the first group: an order to the east end's units
    // makes them a group of their own, heading west.
    s.script.push_back({0.0, east});
    s.script.push_back({0.0, order_box({79.0f, 2.0f, 94.0f, 22.0f}, {{5, 11}})});
    s.seconds = 60.0;
    return s;
}

// The default map, 1,500 units: those right of the wall go to a goal just past the gap, the
// others keep the goal on the right, so the two groups cross in the gap.
Scenario gap_swap(bool both) {
    Scenario s;
    s.description = both ? "1,500 units on the default map: the ones right of the wall are sent through the 4-cell "
                           "gap, the others cross them the other way"
                         : "the ordered group of gap_swap alone (the others removed)";
    auto m = make_builtin_map("default");
    s.cost = std::move(m->cost);
    s.goals = std::move(m->goals);
    s.units = 1500;
    s.script.push_back({0.0, order_box({16.0f, 0.0f, 64.0f, 40.0f}, {{12, 19}})});
    if (!both) s.script.push_back({0.0, RemoveUnits{SelectBox{0.0f, 0.0f, 16.0f, 40.0f}}});
    s.passage = CellRect{14, 18, 15, 21};
    s.seconds = 120.0;
    return s;
}

// 1,000 units right of the default map's wall, their goal two cells past its 4-cell gap.
Scenario goal_beside_gap() {
    Scenario s;
    s.description = "1,000 units right of the default map's wall, the goal two cells past the 4-cell gap";
    auto m = make_builtin_map("default");
    s.cost = std::move(m->cost);
    s.goals = {{12, 19}};
    s.units = 1000;
    s.spawn_area = CellRect{17, 0, 63, 39};
    s.passage = CellRect{14, 18, 15, 21};
    s.approach = CellRect{16, 0, 63, 39};
    s.seconds = 90.0;
    return s;
}

// A room with pillars and four one-cell exits in its outer wall; every unit leaves by the nearest.
Scenario evacuation() {
    Scenario s;
    s.description = "1,200 units leave a room with pillars by four one-cell exits, each by the nearest";
    s.cost = walled_room(72, 48);
    for (int y = 8; y < 44; y += 9)
        for (int x = 8; x < 68; x += 10) s.cost.fill_rect(x, y, x + 2, y + 2, kCostWall);
    s.cost.fill_rect(20, 22, 50, 23, kCostWall);  // a long table in the middle
    s.goals = {{0, 10}, {71, 36}, {35, 0}, {12, 47}};
    for (const Cell e : s.goals) s.cost.set(e.x, e.y, kCostPlain);
    s.units = 1200;
    s.spawn_area = CellRect{3, 3, 68, 44};
    s.exits = true;
    s.seconds = 120.0;
    return s;
}

// One exit: the flow rate a one-cell exit lets through, for evacuation's lower bound.
Scenario exit_flow() {
    Scenario s;
    s.description = "600 units leave a room by one one-cell exit (the flow rate of an exit)";
    s.cost = walled_room(40, 24);
    s.goals = {{0, 12}};
    s.cost.set(0, 12, kCostPlain);
    s.units = 600;
    s.spawn_area = CellRect{2, 2, 37, 21};
    s.exits = true;
    s.seconds = 120.0;
    return s;
}

// The built-in maze, 400 units from its corner.
Scenario maze() {
    Scenario s;
    s.description = "400 units through the built-in 121x121 maze";
    auto m = make_builtin_map("maze");
    s.cost = std::move(m->cost);
    s.goals = std::move(m->goals);
    const CellRect corner{0, 0, 30, 30};
    s.units = std::min(400, max_units(s.cost, corner));
    s.spawn_area = corner;
    s.seconds = 700.0;  // paths of 310-1,521 cells from the corner: 103-507 s at 3 cells/s
    return s;
}

// Tower defense: waves from the west edge to an exit in the east wall, through lines of towers.
Scenario tower_defense() {
    Scenario s;
    s.description =
        "6 waves of 40 from the west edge to an exit in the east wall, through two lines of towers "
        "(the tower that would seal each line is refused)";
    s.cost = walled_room(80, 40);
    for (int y = 12; y < 30; y += 8) s.cost.fill_rect(64, y, 66, y + 2, kCostWall);  // rocks before the exit
    s.cost.fill_rect(10, 6, 14, 9, 3);                                               // forest
    s.cost.fill_rect(10, 30, 14, 33, 3);
    s.goals = {{79, 18}, {79, 19}, {79, 20}, {79, 21}};  // the exit: four cells of the east wall
    for (const Cell e : s.goals) s.cost.set(e.x, e.y, kCostPlain);
    s.units = 0;
    s.exits = true;
    SpawnerSpec waves;
    waves.area = CellRect{1, 1, 3, 38};
    waves.goals = s.goals;
    waves.exit = true;
    waves.start_s = 2.0;
    waves.every_s = 0.2;
    waves.per_emission = 2;
    waves.wave_emissions = 20;  // 40 units a wave, over 4 s
    waves.wave_pause_s = 6.0;
    waves.waves = 6;
    s.script.push_back({0.0, AddSpawner{waves}});
    // A line of 2 x 8 towers down x = 30..31 from the top; the last (rows 33..38) would seal it.
    for (int y = 1; y <= 33; y += 8) {
        s.script.push_back({0.0, PlaceTower{30, y, 31, std::min(y + 7, 38)}, /*may_refuse=*/y == 33});
    }
    // A second line up x = 50..51 from the bottom (rows 7..38); the last (rows 1..6) would seal it.
    // (All at once, before the first wave: the demo loads a scenario's commands of time 0 only, and
    // a tower is refused over a unit, so one built later would depend on where the wave walks.)
    for (int y = 31; y >= 7; y -= 8) s.script.push_back({0.0, PlaceTower{50, y, 51, y + 7}});
    s.script.push_back({0.0, PlaceTower{50, 1, 51, 6}, /*may_refuse=*/true});
    s.seconds = 120.0;
    return s;
}

// An order of every unit on the map to `goal` in `formation`.
Scenario with_formation_order(Scenario s, Cell goal, Formation formation) {
    Order o = order_box({0.0f, 0.0f, static_cast<float>(s.cost.width()), static_cast<float>(s.cost.height())}, {goal});
    o.formation = std::move(formation);
    s.script.push_back({0.0, o});
    return s;
}

Formation box_formation(int columns) {
    Formation f;
    f.shape = FormationShape::box;
    f.spacing = 1.0f;
    f.columns = columns;
    return f;
}

// 100 units in a 10 x 10 box from the north-west corner round a long wall to a goal in the
// south-west: two right-angle turns, then the arrival in shape.
Scenario formation_turn() {
    Scenario s;
    s.description =
        "100 units in a 10 x 10 box march east, turn south round a wall's end and west to a goal: "
        "two right-angle turns, then the arrival in shape";
    s.cost = walled_room(96, 64);
    s.cost.fill_rect(1, 24, 70, 27, kCostWall);
    s.goals = {{20, 48}};
    s.units = 100;
    s.spawn_area = CellRect{3, 3, 16, 16};
    s.seconds = 120.0;
    return with_formation_order(std::move(s), {20, 48}, box_formation(0));
}

// 100 units in a box 20 wide through a 10-cell gap (half its width) and on to a goal.
Scenario formation_gap() {
    Scenario s;
    s.description =
        "100 units in a box 20 wide (5 ranks) through a 10-cell gap, half its width, and on: it files "
        "through and re-forms behind";
    s.cost = walled_room(96, 40);
    s.cost.fill_rect(40, 1, 41, 14, kCostWall);
    s.cost.fill_rect(40, 25, 41, 38, kCostWall);  // the gap: rows 15..24
    s.goals = {{84, 20}};
    s.units = 100;
    s.spawn_area = CellRect{3, 5, 22, 34};
    s.passage = CellRect{40, 15, 41, 24};
    s.seconds = 90.0;
    return with_formation_order(std::move(s), {84, 20}, box_formation(20));
}

// 1,000 units across an open field, in a 40-wide box or (march_plain) flowing: the cost of a
// formation per step.
Scenario formation_march(bool formation) {
    Scenario s;
    s.description = formation ? "1,000 units in a 40-wide box cross an open field (the cost of a formation)"
                              : "the same 1,000 units without a formation (formation_march's baseline)";
    s.cost = walled_room(200, 120);
    s.goals = {{180, 60}};
    s.units = 1000;
    s.spawn_area = CellRect{3, 20, 50, 100};
    s.seconds = 90.0;
    if (!formation) {
        s.script.push_back({0.0, order_box({0.0f, 0.0f, 200.0f, 120.0f}, {{180, 60}})});
        return s;
    }
    return with_formation_order(std::move(s), {180, 60}, box_formation(40));
}

}  // namespace

const std::vector<std::string>& scenario_names() {
    static const std::vector<std::string> names{"door",
                                                "counter_flow",
                                                "gap_swap",
                                                "goal_beside_gap",
                                                "evacuation",
                                                "maze",
                                                "counter_flow_alone",
                                                "gap_swap_alone",
                                                "exit_flow",
                                                "tower_defense",
                                                "formation_turn",
                                                "formation_gap",
                                                "formation_march",
                                                "formation_march_plain"};
    return names;
}

Result<Scenario> make_scenario(std::string_view name) {
    Scenario s;
    if (name == "door") {
        s = door();
    } else if (name == "counter_flow" || name == "counter_flow_alone") {
        s = counter_flow(name == "counter_flow");
    } else if (name == "gap_swap" || name == "gap_swap_alone") {
        s = gap_swap(name == "gap_swap");
    } else if (name == "goal_beside_gap") {
        s = goal_beside_gap();
    } else if (name == "evacuation") {
        s = evacuation();
    } else if (name == "exit_flow") {
        s = exit_flow();
    } else if (name == "maze") {
        s = maze();
    } else if (name == "tower_defense") {
        s = tower_defense();
    } else if (name == "formation_turn") {
        s = formation_turn();
    } else if (name == "formation_gap") {
        s = formation_gap();
    } else if (name == "formation_march" || name == "formation_march_plain") {
        s = formation_march(name == "formation_march");
    } else {
        return Error{ErrorCode::not_found, "no scenario '" + std::string(name.substr(0, 40)) + "'"};
    }
    s.name = std::string(name);
    return s;
}

Result<void> load_scenario(World& world, const Scenario& s, std::size_t* refused) {
    if (auto r = world.load("scenario:" + s.name, s.cost, s.goals, s.units, s.spawn_area); !r) return r;
    if (s.exits) {
        if (auto r = world.apply(SetGoals{s.goals, 0, false, true}); !r) return r.error();
    }
    for (const TimedCommand& c : s.script) {
        if (c.at_s > 0.0) break;
        if (auto r = world.apply(c.command); !r) {
            if (!c.may_refuse) return r.error();
            if (refused) ++*refused;
        }
    }
    return {};
}

Result<void> load_scenario(World& world, std::string_view name) {
    auto s = make_scenario(name);
    if (!s) return s.error();
    return load_scenario(world, *s);
}

}  // namespace tide
