/* A game's order loop through the World's C API (C99, tide/tide_world.h): spawn 1,000 units on the
   built-in default map, order the half right of x = 32 to (8, 30) across the wall's gap, paint a
   wall across their way, tick at 60 Hz until every unit has arrived, and print the state hash a
   lockstep peer compares (the same as the C++ World's, tests/capi/world_capi_test.cpp).
     tide_example_world [--record FILE]   (FILE: a recording `tide sim --replay FILE` runs again) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tide/tide_world.h>

static int fail(const char* what, tide_status status) {
    fprintf(stderr, "%s: %s: %s\n", what, tide_status_name(status), tide_last_error());
    return 1;
}

int main(int argc, char** argv) {
    const char* record = argc > 2 && strcmp(argv[1], "--record") == 0 ? argv[2] : NULL;
    tide_world_config config = tide_world_config_default();
    tide_world* world = NULL;
    tide_map* map = NULL;
    tide_cell goal, order_goal;
    tide_group_id group = 0;
    tide_world_stats stats;
    size_t ordered = 0;
    tide_status s;
    int tick;

    config.lockstep = 1; /* fields published at fixed points: the same run on every machine */
    s = tide_world_create(&config, NULL, NULL, &world);
    if (s != TIDE_OK) return fail("create", s);
    if (record && (s = tide_world_record_start(world)) != TIDE_OK) return fail("record", s);
    s = tide_map_builtin("default", &map, &goal);
    if (s != TIDE_OK) return fail("map", s);
    s = tide_world_load(world, map, "default", &goal, 1, 1000, NULL);
    tide_map_destroy(map); /* the world keeps its own copy of the terrain */
    if (s != TIDE_OK) return fail("load", s);

    order_goal.x = 8;
    order_goal.y = 30;
    s = tide_world_order_box(world, 32.0f, 0.0f, 64.0f, 40.0f, &order_goal, 1, 0, &group, &ordered);
    if (s != TIDE_OK) return fail("order", s);
    printf("ordered %u units to (8, 30): group %u\n", (unsigned)ordered, (unsigned)group);
    s = tide_world_paint(world, 22, 20, 3, TIDE_COST_WALL);
    if (s != TIDE_OK) return fail("paint", s);

    for (tick = 0; tick < 90 * 60; ++tick) {
        if ((s = tide_world_get_stats(world, &stats)) != TIDE_OK) return fail("stats", s);
        if (stats.arrived == stats.units) break;
        if ((s = tide_world_tick(world, 1.0f / 60.0f)) != TIDE_OK) return fail("tick", s);
    }
    tide_world_get_stats(world, &stats);
    printf("%llu of %llu units arrived after %d ticks (%.1f s)\n", (unsigned long long)stats.arrived,
           (unsigned long long)stats.units, tick, tick / 60.0);
    printf("state hash %016llx\n", (unsigned long long)tide_world_state_hash(world));
    if (record) {
        if ((s = tide_world_record_save(world, record)) != TIDE_OK) return fail("save", s);
        printf("recorded to %s\n", record);
    }
    tide_world_destroy(world);
    return stats.arrived == stats.units ? 0 : 2;
}
