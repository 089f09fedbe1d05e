// Scenario presets; see scenarios.hpp.

#include "scenarios.hpp"

#include <algorithm>

#include "tide/generate.hpp"

namespace tide::serve {
namespace {

// A w x h map of plain cells inside a wall border.
CostField walled_room(int w, int h) {
    CostField cost = *CostField::create(w, h);
    for (int x = 0; x < w; ++x) {
        cost.set(x, 0, kCostWall);
        cost.set(x, h - 1, kCostWall);
    }
    for (int y = 0; y < h; ++y) {
        cost.set(0, y, kCostWall);
        cost.set(w - 1, y, kCostWall);
    }
    return cost;
}

void wall_rect(CostField& cost, int x0, int y0, int x1, int y1, Cost c = kCostWall) {
    for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) cost.set(x, y, c);
}

// 1,000 units behind a wall with a 4-cell door, the goal on the other side.
Result<void> door(World& world) {
    CostField cost = walled_room(64, 40);
    wall_rect(cost, 30, 1, 31, 38);
    wall_rect(cost, 30, 18, 31, 21, kCostPlain);  // the door: rows 18..21
    return world.load("scenario:door", std::move(cost), {{56, 20}}, 1000, CellRect{2, 2, 24, 37});
}

// Two groups of 300 at either end of a 6-cell corridor, each heading for the other end.
Result<void> counter_flow(World& world) {
    CostField cost = walled_room(96, 24);
    wall_rect(cost, 20, 1, 75, 8);  // the corridor: rows 9..14 between x = 20 and 75
    wall_rect(cost, 20, 15, 75, 22);
    if (auto r = world.load("scenario:counter_flow", std::move(cost), {{90, 12}}, 300, CellRect{2, 2, 16, 21}); !r)
        return r;
    Spawn east;
    east.count = 300;
    east.add = true;
    east.in_area = true;
    east.x0 = 79, east.y0 = 2, east.x1 = 93, east.y1 = 21;
    // Added units with the same goals join the first group: an order to the east end's units
    // makes them a group of their own, heading west.
    if (auto spawned = world.apply(east); !spawned) return spawned.error();
    Order west;
    west.select = SelectBox{79.0f, 2.0f, 94.0f, 22.0f};
    west.goals = {{5, 11}};
    if (auto ordered = world.apply(west); !ordered) return ordered.error();
    return {};
}

// A room with pillars and four exits in its outer wall; every unit goes to the nearest.
Result<void> evacuation(World& world) {
    CostField cost = walled_room(72, 48);
    for (int y = 8; y < 44; y += 9)
        for (int x = 8; x < 68; x += 10) wall_rect(cost, x, y, x + 2, y + 2);
    wall_rect(cost, 20, 22, 50, 23);  // a long table in the middle
    const std::vector<Cell> exits{{0, 10}, {71, 36}, {35, 0}, {12, 47}};
    for (const Cell e : exits) cost.set(e.x, e.y, kCostPlain);
    return world.load("scenario:evacuation", std::move(cost), exits, 1200, CellRect{3, 3, 68, 44});
}

// The built-in maze, 400 units from its corner.
Result<void> maze(World& world) {
    auto m = make_builtin_map("maze");
    if (!m) return m.error();
    const CellRect corner{0, 0, 30, 30};
    return world.load("scenario:maze", std::move(m->cost), std::move(m->goals),
                      std::min(400, max_units(m->cost, corner)), corner);
}

}  // namespace

Result<void> load_scenario(World& world, std::string_view name) {
    if (name == "door") return door(world);
    if (name == "counter_flow") return counter_flow(world);
    if (name == "evacuation") return evacuation(world);
    if (name == "maze") return maze(world);
    return Error{"no scenario '" + std::string(name.substr(0, 40)) + "'"};
}

}  // namespace tide::serve
