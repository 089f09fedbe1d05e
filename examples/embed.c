/* Embedding Tide through its C API (C99): load a map, build a field, step a crowd on the host's
   job system, print where the agents are.
     tide_example_c [map file]   (default: arena.map in the working directory) */
#include <stdio.h>
#include <stdlib.h>

#include <tide/tide.h>

/* The host's job system. This one runs each range on the calling thread, in order; an engine
   hands the ranges to its workers and returns when all are done. */
static void host_parallel_for(void* host, size_t count, size_t grain, tide_range_fn task, void* context) {
    size_t begin;
    (void)host;
    if (grain == 0) grain = 1;
    for (begin = 0; begin < count; begin += grain) {
        size_t end = begin + grain < count ? begin + grain : count;
        task(context, begin, end);
    }
}

static int fail(tide_status status) {
    fprintf(stderr, "error (%s): %s\n", tide_status_name(status), tide_last_error());
    return 1;
}

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : "arena.map";
    tide_map* map = NULL;
    tide_field* field = NULL;
    tide_crowd* crowd = NULL;
    tide_cell goal;
    tide_group group;
    tide_agent_params params;
    tide_jobs jobs;
    tide_status status;
    tide_vec2 positions[8];
    uint8_t states[8];
    uint64_t tags[8];
    size_t count = 0, k, arrived = 0;
    int i, step;

    status = tide_map_load(path, &map);
    if (status != TIDE_OK) return fail(status);
    goal.x = tide_map_width(map) - 2;
    goal.y = tide_map_height(map) / 2;
    status = tide_field_build(map, &goal, 1, NULL, &field);
    if (status != TIDE_OK) return fail(status);
    printf("field toward (%d, %d): cost from (1, 1) is %.2f\n", (int)goal.x, (int)goal.y,
           tide_field_integration(field)[1 * tide_field_width(field) + 1]);

    /* A goal on a wall is refused with a code the program can branch on. */
    {
        tide_cell wall;
        tide_field* bad = NULL;
        wall.x = 10;
        wall.y = 5;
        if (tide_map_costs(map)[wall.y * tide_map_width(map) + wall.x] == TIDE_COST_WALL &&
            tide_field_build(map, &wall, 1, NULL, &bad) == TIDE_ERROR_ON_WALL) {
            printf("refused: %s\n", tide_last_error());
        }
    }

    status = tide_crowd_create(map, NULL, &crowd);
    if (status != TIDE_OK) return fail(status);
    status = tide_crowd_add_group(crowd, field, 1, &group);
    if (status != TIDE_OK) return fail(status);
    tide_field_destroy(field); /* the group keeps its own reference */
    params = tide_crowd_default_agent_params(crowd);
    for (i = 0; i < 8; ++i) {
        tide_vec2 p;
        tide_agent unit; /* the handle: keep it to remove or move the unit later */
        p.x = 1.5f + (float)(i % 2);
        p.y = 1.5f + (float)i;
        params.user_tag = 100u + (uint64_t)i; /* e.g. the engine's entity id */
        status = tide_crowd_add_agent(crowd, p, group, &params, &unit);
        if (status != TIDE_OK) return fail(status);
    }

    jobs.parallel_for = host_parallel_for;
    jobs.max_concurrency = 1;
    jobs.host = NULL;
    for (step = 0; step < 600; ++step) {
        status = tide_crowd_step(crowd, 1.0f / 60.0f, &jobs);
        if (status != TIDE_OK) return fail(status);
    }

    status = tide_crowd_read_agents(crowd, 8, NULL, positions, NULL, states, tags, &count);
    if (status != TIDE_OK) return fail(status);
    for (k = 0; k < count; ++k) {
        printf("agent %llu at (%.2f, %.2f) %s\n", (unsigned long long)tags[k], positions[k].x, positions[k].y,
               states[k] == TIDE_AGENT_ARRIVED  ? "arrived"
               : states[k] == TIDE_AGENT_QUEUED ? "queued"
               : states[k] == TIDE_AGENT_NO_PATH ? "no path"
                                                 : "moving");
        arrived += states[k] == TIDE_AGENT_ARRIVED;
    }
    printf("%lu of %lu arrived\n", (unsigned long)arrived, (unsigned long)count);

    tide_crowd_destroy(crowd);
    tide_map_destroy(map);
    return 0;
}
