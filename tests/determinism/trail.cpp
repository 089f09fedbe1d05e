// Hash trails of scripted World runs, for `make determinism` (scripts/determinism.sh): the same
// runs built with other compilers, optimisation levels and CPUs must print the same lines.
//
//   trail [--quick]
//
// Each line: "<run> <tick> <crowd state hash> <field hash>", every 60 ticks and at the end. The
// runs: `bench` (the 256x256 benchmark map, one goal, congestion on), `orders` (the default map:
// a box order through the gap, paints and a goal change mid-run), `flee` (the default map, the
// crowd fleeing a danger, then a paint), `hier` (a 192x192 map planned hierarchically in 16-cell
// sectors, an order and paints). --quick: `orders` only, shorter (what `make test` compares).
// Only the library's public API: what a host's lockstep game would call.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tide/default_map.hpp"
#include "tide/flow_field.hpp"
#include "tide/generate.hpp"
#include "tide/world.hpp"

namespace {

using namespace tide;

// FNV-1a over bytes.
std::uint64_t fnv(std::uint64_t h, const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

// The bits of every group's field (integration values, to-stop values and moves), or of its plan's
// sector fields on a hierarchical map (the sampled directions over the map).
std::uint64_t field_hash(const World& world) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    const int W = world.cost().width(), H = world.cost().height();
    for (const UnitGroup& g : world.groups()) {
        if (auto f = world.field(g.id)) {
            const std::span<const float> v = f->integration(), s = f->to_stop();
            h = fnv(h, v.data(), v.size_bytes());
            h = fnv(h, s.data(), s.size_bytes());
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) {
                    const auto d = static_cast<std::uint8_t>(f->direction(x, y));
                    h = fnv(h, &d, 1);
                }
        } else if (auto p = world.plan(g.id)) {
            for (int y = 0; y < H; y += 3)
                for (int x = 0; x < W; x += 3) {
                    const Vec2 v = p->blend({static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f});
                    h = fnv(h, &v, sizeof v);
                }
        }
    }
    return h;
}

// load(), saying why it failed.
bool load(World& world, const char* name, CostField cost, std::vector<Cell> goals, int units) {
    if (auto r = world.load(name, std::move(cost), std::move(goals), units); !r) {
        std::fprintf(stderr, "%s: load refused: %s\n", name, r.error().message.c_str());
        return false;
    }
    return true;
}

struct Step {
    int tick;
    WorldCommand command;
};

// Runs `ticks` ticks of 1/60 s, applying the script's commands at their ticks; prints the trail.
bool run(const char* name, World& world, const std::vector<Step>& script, int ticks) {
    std::size_t next = 0;
    for (int t = 0; t <= ticks; ++t) {
        while (next < script.size() && script[next].tick == t) {
            if (auto r = world.apply(script[next].command); !r) {
                std::fprintf(stderr, "%s: tick %d: command refused: %s\n", name, t, r.error().message.c_str());
                return false;
            }
            ++next;
        }
        world.finish_builds();  // every build lands at the same tick on every machine
        if (t % 60 == 0 || t == ticks) {
            std::printf("%s %d %016llx %016llx\n", name, t, static_cast<unsigned long long>(world.crowd().state_hash()),
                        static_cast<unsigned long long>(field_hash(world)));
        }
        if (t == ticks) break;
        if (auto r = world.tick(1.0f / 60.0f); !r) {
            std::fprintf(stderr, "%s: tick %d: %s\n", name, t, r.error().message.c_str());
            return false;
        }
    }
    return true;
}

bool orders_run(bool quick) {
    SerialJobSystem jobs;
    WorldConfig c;
    c.congestion.enabled = true;
    World world(jobs, c);
    auto m = make_builtin_map("default");
    if (!m || !load(world, "orders", m->cost, m->goals, 1500)) return false;
    const std::vector<Step> script{
        {60, Order{.select = SelectBox{16.0f, 0.0f, 64.0f, 40.0f}, .goals = {{12, 19}}}},
        {240, Paint{.x = 40, .y = 30, .radius = 2, .cost = kCostWall}},
        {300, Paint{.x = 30, .y = 8, .radius = 3, .cost = 6}},
        {480, SetGoals{.goals = {{5, 5}}, .group = 2}},
    };
    return run("orders", world, script, quick ? 420 : 1200);
}

bool bench_run() {
    SerialJobSystem jobs;
    WorldConfig c;
    c.congestion.enabled = true;
    World world(jobs, c);
    auto map = generate_random_map({});
    if (!map) return false;
    const Cell goal{128, 128};
    map->set(goal.x, goal.y, 1);
    if (!load(world, "bench", *map, {goal}, 10000)) return false;
    return run("bench", world, {}, 600);
}

bool flee_run() {
    SerialJobSystem jobs;
    World world(jobs, WorldConfig{});
    auto m = make_builtin_map("default");
    if (!m || !load(world, "flee", m->cost, m->goals, 1000)) return false;
    const std::vector<Step> script{
        {30, Order{.select = SelectBox{0.0f, 0.0f, 64.0f, 40.0f}, .goals = {{40, 20}}, .flee = true}},
        {300, Paint{.x = 48, .y = 20, .radius = 2, .cost = kCostWall}},
    };
    return run("flee", world, script, 720);
}

bool hier_run() {
    SerialJobSystem jobs;
    WorldConfig c;
    c.hierarchy_cells = 0;
    c.sectors.sector_size = 16;
    c.sectors.portal_limit = 8;
    World world(jobs, c);
    RandomMapSpec spec;
    spec.width = spec.height = 192;
    spec.seed = 7;
    auto map = generate_random_map(spec);
    if (!map) return false;
    map->set(96, 96, 1);
    map->set(20, 170, 1);
    if (!load(world, "hier", *map, {Cell{96, 96}}, 1500)) return false;
    const std::vector<Step> script{
        {90, Order{.select = SelectBox{0.0f, 0.0f, 96.0f, 192.0f}, .goals = {{20, 170}}}},
        {200, Paint{.x = 60, .y = 120, .radius = 3, .cost = kCostWall}},
        {320, Paint{.x = 100, .y = 90, .radius = 2, .cost = 6}},
    };
    return run("hier", world, script, 720);
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    if (argc > 1 && !quick) {
        std::fprintf(stderr, "usage: trail [--quick]\n");
        return 2;
    }
    bool ok = orders_run(quick);
    if (!quick) ok = ok && bench_run() && flee_run() && hier_run();
    return ok ? 0 : 1;
}
