// A host that moves its own units: Tide answers only "which way?" (tide::Steering), the host's
// own integrator moves the units (no tide::Crowd). The host keeps positions in its own world units:
// a y-up world with cells half a metre wide (tide::GridTransform).
//   tide_example_host [map] [units] [--check]
// map: a built-in name (default, random256, maze, ...) or a .map/.tmap file; units: 1000.
// With --check it exits 1 when a unit entered a wall or when a unit that could see the goal
// across open ground walked more than 1.05x the straight distance to it.
#include <tide/field_builder.hpp>
#include <tide/generate.hpp>
#include <tide/map_io.hpp>
#include <tide/sample_check.hpp>
#include <tide/steering.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

int fail(const tide::Error& e) {
    std::fprintf(stderr, "error (%s): %s\n", tide::error_code_name(e.code), e.message.c_str());
    return 1;
}

// The host's units: its own arrays, in world units (metres, y up).
struct Units {
    std::vector<float> x, y;                // position
    std::vector<float> dir_x, dir_y;        // direction asked of Tide this frame
    std::vector<tide::SteerMemory> memory;  // what each unit saw last (Tide's, kept by the host)
    std::vector<float> walked;              // metres walked
    std::vector<float> start_x, start_y;
    std::vector<char> done;
};

}  // namespace

int main(int argc, char** argv) {
    std::string name = "default";
    int count = 1000;
    bool check = false;
    int positional = 0;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--check") == 0) {
            check = true;
        } else if (positional++ == 0) {
            name = argv[i];
        } else {
            count = std::atoi(argv[i]);
        }
    }
    if (count < 1 || count > 1000000)
        return fail(tide::Error{"units must be 1..1000000, not " + std::to_string(count)});

    // The map and its goal: a built-in map, or a file (goal: the passable cell nearest its centre).
    auto builtin = tide::make_builtin_map(name);
    if (!builtin) {  // not a built-in name: a file, its goal the passable cell nearest its centre
        auto map = tide::load_map(name);
        if (!map) return fail(map.error());
        builtin = tide::BuiltinMap{std::move(map->cost), {{map->cost.width() / 2, map->cost.height() / 2}}};
        tide::snap_goals(builtin->cost, builtin->goals);
    }
    const tide::CostField& cost = builtin->cost;
    const std::vector<tide::Cell>& goals = builtin->goals;

    tide::FieldBuilder builder;
    auto field = std::make_shared<tide::FlowField>();
    if (auto r = builder.build(cost, goals, {}, *field); !r) return fail(r.error());

    // World: cells 0.5 m wide, y up, the map's bottom-left corner at (100, -20).
    const float cell = 0.5f;
    const tide::GridTransform world = tide::GridTransform::y_up({100.0f, -20.0f}, cell, cost.height());
    tide::SteerParams params;
    params.radius = 0.25f;  // cells
    auto steering = tide::Steering::create(tide::FieldView(field), cost, params, world);
    if (!steering) return fail(steering.error());

    // Units on random reachable cells.
    std::mt19937 rng(42);
    Units u;
    std::uniform_int_distribution<int> ux(0, cost.width() - 1), uy(0, cost.height() - 1);
    std::uniform_real_distribution<float> jitter(0.3f, 0.7f);
    while (static_cast<int>(u.x.size()) < count) {
        const int cx = ux(rng), cy = uy(rng);
        if (!tide::is_move(field->direction(cx, cy))) continue;
        const tide::Vec2 p =
            world.to_world({static_cast<float>(cx) + jitter(rng), static_cast<float>(cy) + jitter(rng)});
        u.x.push_back(p.x);
        u.y.push_back(p.y);
        u.start_x.push_back(p.x);
        u.start_y.push_back(p.y);
    }
    const std::size_t n = u.x.size();
    u.dir_x.assign(n, 0.0f);
    u.dir_y.assign(n, 0.0f);
    u.memory.assign(n, {});
    u.walked.assign(n, 0.0f);
    u.done.assign(n, 0);

    // The host's loop: ask for directions in one batch, then move with its own integrator
    // (speed divided by the terrain's cost, as Tide's crowd slows in costly ground).
    const float speed = 4.0f * cell;  // metres per second: 4 cells/s
    const float dt = 1.0f / 30.0f;
    const auto blocked = [&cost](int x, int y) { return !cost.contains(x, y) || !cost.passable(x, y); };
    std::size_t penetrations = 0, arrived = 0;
    int frames = 0;
    for (; frames < 30 * 240 && arrived < n; ++frames) {
        steering->steer(u.x, u.y, u.memory, u.dir_x, u.dir_y);
        for (std::size_t i = 0; i < n; ++i) {
            if (u.done[i]) continue;
            if (u.dir_x[i] == 0.0f && u.dir_y[i] == 0.0f) {  // at the goal (or cut off)
                u.done[i] = 1;
                ++arrived;
                continue;
            }
            const tide::Cell c = world.cell_of({u.x[i], u.y[i]});
            const float step = speed * dt / static_cast<float>(cost.at(c));
            const float nx = u.x[i] + u.dir_x[i] * step, ny = u.y[i] + u.dir_y[i] * step;
            // The host's own check: the step, in cell units, crosses no wall and cuts no corner.
            const tide::Vec2 from = world.to_grid({u.x[i], u.y[i]});
            const tide::Vec2 d = world.direction_to_grid({u.dir_x[i], u.dir_y[i]});
            if (!tide::step_is_clear(blocked, from, d, step / cell, nullptr)) ++penetrations;
            u.x[i] = nx;
            u.y[i] = ny;
            u.walked[i] += step;
        }
    }

    if (std::getenv("TIDE_HOST_DEBUG")) {
        for (std::size_t i = 0; i < n; ++i) {
            if (u.done[i]) continue;
            const tide::Vec2 g = world.to_grid({u.x[i], u.y[i]});
            const tide::Vec2 s = world.to_grid({u.start_x[i], u.start_y[i]});
            std::printf("left: (%.2f, %.2f) from (%.2f, %.2f) dir (%.2f, %.2f) cost %d\n", g.x, g.y, s.x, s.y,
                        u.dir_x[i], u.dir_y[i], cost.at(world.cell_of({u.x[i], u.y[i]})));
        }
    }
    // Units that saw the goal's centre across open ground (cost 1 all the way) from their start:
    // their walk, plus what is left from where they stopped to the goal's centre, against the
    // straight distance (the any-angle optimum there).
    const auto open = [&cost](int x, int y) { return !cost.contains(x, y) || cost.at(x, y) != 1; };
    double worst = 0.0, sum = 0.0;
    std::size_t open_units = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!u.done[i]) continue;
        const tide::Vec2 s = world.to_grid({u.start_x[i], u.start_y[i]});
        const tide::Vec2 e = world.to_grid({u.x[i], u.y[i]});
        tide::Vec2 g{};
        float straight = 1e30f;
        for (const tide::Cell c : goals) {  // the nearest goal centre
            const tide::Vec2 centre{static_cast<float>(c.x) + 0.5f, static_cast<float>(c.y) + 0.5f};
            const float d = std::hypot(centre.x - s.x, centre.y - s.y);
            if (d < straight) {
                straight = d;
                g = centre;
            }
        }
        if (straight < 2.0f) continue;  // started next to the goal
        if (!tide::step_is_clear(open, s, {(g.x - s.x) / straight, (g.y - s.y) / straight}, straight, nullptr))
            continue;
        const double travelled = u.walked[i] / cell + std::hypot(g.x - e.x, g.y - e.y);
        const double ratio = travelled / straight;
        if (std::getenv("TIDE_HOST_DEBUG") && ratio > 1.04)
            std::printf("ratio %.4f start (%.2f, %.2f) goal (%.1f, %.1f) straight %.2f\n", ratio, s.x, s.y, g.x, g.y,
                        straight);
        worst = std::max(worst, ratio);
        sum += ratio;
        ++open_units;
    }
    std::printf("%s: %dx%d cells, %zu units, %zu arrived in %.1f s, %zu steps into walls", name.c_str(), cost.width(),
                cost.height(), n, arrived, frames * dt, penetrations);
    if (open_units > 0) {
        std::printf(
            "; %zu units saw the goal across open ground: went %.4fx the straight distance on average, %.4fx "
            "at worst\n",
            open_units, sum / static_cast<double>(open_units), worst);
    } else {
        std::printf("; no unit saw the goal across open ground (cost 1 all the way)\n");
    }
    if (check && (penetrations != 0 || worst > 1.05 || arrived < n * 95 / 100)) {
        std::fprintf(
            stderr,
            "check failed: %zu steps into walls, worst open-ground ratio %.4f (limit 1.05), %zu of %zu arrived\n",
            penetrations, worst, arrived, n);
        return 1;
    }
    return 0;
}
