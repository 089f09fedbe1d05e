// The field service's C API (include/tide/tide.h, "The field service") over tide::FieldService.
#include <memory>
#include <string>
#include <vector>

#include "capi_internal.hpp"
#include "tide/field_service.hpp"

struct tide_service {
    std::unique_ptr<tide::JobSystem> jobs;
    std::unique_ptr<tide::FieldService> service;
};

namespace tide::capi {

tide_status check_host_jobs(const tide_jobs* jobs, const tide_background* background) {
    if (jobs && (!jobs->parallel_for || jobs->max_concurrency < 1)) {
        return fail(TIDE_ERROR_INVALID_ARGUMENT, "jobs: parallel_for is NULL or max_concurrency < 1");
    }
    if (background && (!background->enqueue || background->concurrency < 1)) {
        return fail(TIDE_ERROR_INVALID_ARGUMENT, "background: enqueue is NULL or concurrency < 1");
    }
    return TIDE_OK;
}

namespace {

tide::FieldTicket ticket_of(tide_ticket t) {
    return tide::FieldTicket{t.index, t.generation};
}

tide_status options_of(const tide_field_options* o, tide::FieldOptions& out) {
    const tide_field_options c = o ? *o : tide_field_options_default();
    if (c.movement_class < 0 || c.movement_class > 255) {
        return fail(TIDE_ERROR_INVALID_ARGUMENT,
                    "movement class " + std::to_string(c.movement_class) + " is outside 0..255");
    }
    if (c.params.connectivity != 4 && c.params.connectivity != 8) {
        return fail(TIDE_ERROR_INVALID_ARGUMENT,
                    "connectivity " + std::to_string(c.params.connectivity) + " is not 4 or 8");
    }
    out.params.diagonal_factor = c.params.diagonal_factor;
    out.params.connectivity = c.params.connectivity == 4 ? tide::Connectivity::four : tide::Connectivity::eight;
    out.movement_class = static_cast<tide::MovementClass>(c.movement_class);
    out.kind = c.flee ? tide::FieldKind::flee : tide::FieldKind::goal;
    out.flee.factor = c.flee_factor;
    out.wall_margin = tide::WallMargin{c.wall_margin_radius, c.wall_margin_extra};
    out.priority = c.priority;
    return TIDE_OK;
}

std::span<const tide::Cell> cells_of(const tide_cell* cells, std::size_t count) {
    return {reinterpret_cast<const tide::Cell*>(cells), count};
}

template <class S, class Fn>
tide_status with_service(S* service, Fn&& fn) noexcept {
    return with_live(service, Kind::service, "service", [&](tide_service& s) { return fn(*s.service); });
}

}  // namespace
}  // namespace tide::capi

using namespace tide::capi;

extern "C" {

tide_service_config tide_service_config_default(void) {
    const tide::FieldServiceConfig d;
    return tide_service_config{d.budget_bytes, d.max_parallel_builds, d.auto_publish, d.repair, d.hierarchy_cells};
}

tide_field_options tide_field_options_default(void) {
    const tide::FieldOptions d;
    tide_field_options o{};
    o.params = tide_field_params_default();
    o.movement_class = 0;
    o.flee = 0;
    o.flee_factor = d.flee.factor;
    o.wall_margin_radius = 0;
    o.wall_margin_extra = 0;
    o.priority = 0;
    return o;
}

tide_status tide_service_create(const tide_map* map, const tide_service_config* config,
                                const tide_background* background, tide_service** out) {
    return guarded([&]() -> tide_status {
        if (!out) return fail_null("out");
        *out = nullptr;
        if (!live(map, Kind::map)) return fail_dead("map");
        if (auto s = check_host_jobs(nullptr, background); s != TIDE_OK) return s;
        const tide_service_config c = config ? *config : tide_service_config_default();
        tide::FieldServiceConfig sc;
        sc.budget_bytes = static_cast<std::size_t>(c.budget_bytes);
        sc.max_parallel_builds = c.max_parallel_builds;
        sc.auto_publish = c.auto_publish != 0;
        sc.repair = c.repair != 0;
        sc.hierarchy_cells = c.hierarchy_cells;
        sc.classes = map->map.classes;
        auto s = std::make_unique<tide_service>();
        s->jobs = std::make_unique<CHostJobs>(nullptr, background);
        auto made = tide::FieldService::create(map->map.cost, *s->jobs, std::move(sc));
        if (!made) return fail(made.error());
        s->service = std::move(*made);
        *out = registered(s.release(), Kind::service);
        return TIDE_OK;
    });
}

void tide_service_destroy(tide_service* service) {
    if (!service || !unregister(service, Kind::service)) return;
    delete service;
}

tide_status tide_service_request(tide_service* service, const tide_cell* goals, size_t goal_count,
                                 const tide_field_options* options, tide_ticket* out) {
    return with_service(service, [&](tide::FieldService& fs) -> tide_status {
        if (!out) return fail_null("out");
        if (goal_count > 0 && !goals) return fail_null("goals");
        tide::FieldOptions o;
        if (auto s = options_of(options, o); s != TIDE_OK) return s;
        auto t = fs.request(cells_of(goals, goal_count), o);
        if (!t) return fail(t.error());
        *out = tide_ticket{t->index, t->generation};
        return TIDE_OK;
    });
}

tide_status tide_service_retarget(tide_service* service, tide_ticket ticket, const tide_cell* goals, size_t goal_count,
                                  const tide_field_options* options) {
    return with_service(service, [&](tide::FieldService& fs) -> tide_status {
        if (goal_count > 0 && !goals) return fail_null("goals");
        tide::FieldOptions o;
        if (auto s = options_of(options, o); s != TIDE_OK) return s;
        auto r = fs.retarget(ticket_of(ticket), cells_of(goals, goal_count), o);
        return r ? TIDE_OK : fail(r.error());
    });
}

tide_status tide_service_release(tide_service* service, tide_ticket ticket) {
    return with_service(service, [&](tide::FieldService& fs) {
        auto r = fs.release(ticket_of(ticket));
        return r ? TIDE_OK : fail(r.error());
    });
}

size_t tide_service_publish(tide_service* service) {
    std::size_t n = 0;
    (void)with_service(service, [&](tide::FieldService& fs) {
        n = fs.publish();
        return TIDE_OK;
    });
    return n;
}

tide_status tide_service_wait_idle(tide_service* service) {
    return with_service(service, [&](tide::FieldService& fs) {
        fs.wait_idle();
        return TIDE_OK;
    });
}

tide_status tide_service_current(const tide_service* service, tide_ticket ticket, tide_field** out) {
    return with_service(service, [&](tide::FieldService& fs) -> tide_status {
        if (!out) return fail_null("out");
        *out = nullptr;
        if (fs.hierarchical())
            return fail(TIDE_ERROR_UNSUPPORTED, "hierarchical maps plan in sectors: no whole-map field");
        auto f = fs.current(ticket_of(ticket));
        if (!f) return fail(TIDE_ERROR_NOT_FOUND, "the ticket has no published field (not yet, or released)");
        *out = registered(new tide_field{std::move(f)}, Kind::field);
        return TIDE_OK;
    });
}

tide_status tide_service_status(const tide_service* service, tide_ticket ticket, tide_ticket_status* out) {
    return with_service(service, [&](tide::FieldService& fs) -> tide_status {
        if (!out) return fail_null("out");
        const tide::TicketStatus t = fs.status(ticket_of(ticket));
        *out = tide_ticket_status{t.live,     t.has_field, t.up_to_date,    t.ready,
                                  t.building, t.queued,    t.blocked_goals, t.field_terrain_version};
        return TIDE_OK;
    });
}

tide_status tide_service_edit_rect(tide_service* service, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                                   uint8_t cost) {
    return with_service(service, [&](tide::FieldService& fs) {
        auto r = fs.edit_rect(x0, y0, x1, y1, cost);
        return r ? TIDE_OK : fail(r.error());
    });
}

tide_status tide_service_edit_cells(tide_service* service, const tide_cell* cells, size_t count, uint8_t cost) {
    return with_service(service, [&](tide::FieldService& fs) -> tide_status {
        if (count > 0 && !cells) return fail_null("cells");
        auto r = fs.edit_cells(cells_of(cells, count), cost);
        return r ? TIDE_OK : fail(r.error());
    });
}

tide_status tide_service_would_block(const tide_service* service, tide_ticket ticket, const tide_cell* walls,
                                     size_t wall_count, int32_t* out_blocks, uint64_t* out_cut_off) {
    return with_service(service, [&](tide::FieldService& fs) -> tide_status {
        if (!out_blocks) return fail_null("out_blocks");
        if (wall_count > 0 && !walls) return fail_null("walls");
        auto r = fs.would_block(ticket_of(ticket), cells_of(walls, wall_count));
        if (!r) return fail(r.error());
        *out_blocks = r->blocks;
        if (out_cut_off) *out_cut_off = r->cut_off_cells;
        return TIDE_OK;
    });
}

tide_status tide_service_get_stats(const tide_service* service, tide_service_stats* out) {
    return with_service(service, [&](tide::FieldService& fs) -> tide_status {
        if (!out) return fail_null("out");
        const tide::FieldServiceStats s = fs.stats();
        *out = tide_service_stats{s.requests,     s.hits,         s.misses,          s.coalesced,
                                  s.builds,       s.repairs,      s.repair_rebuilds, s.evictions,
                                  s.publications, s.bytes_cached, s.fields_cached,   s.budget_bytes,
                                  s.queued,       s.running,      s.tickets,         s.terrain_version};
        return TIDE_OK;
    });
}

tide_status tide_service_terrain(const tide_service* service, tide_map** out) {
    return with_service(service, [&](tide::FieldService& fs) -> tide_status {
        if (!out) return fail_null("out");
        *out = registered(new tide_map{tide::Map{*fs.terrain()}}, Kind::map);
        return TIDE_OK;
    });
}

tide_status tide_service_set_budget(tide_service* service, uint64_t bytes) {
    return with_service(service, [&](tide::FieldService& fs) {
        auto r = fs.set_budget(static_cast<std::size_t>(bytes));
        return r ? TIDE_OK : fail(r.error());
    });
}

tide_status tide_service_clear_cache(tide_service* service) {
    return with_service(service, [&](tide::FieldService& fs) {
        fs.clear_cache();
        return TIDE_OK;
    });
}

}  // extern "C"
