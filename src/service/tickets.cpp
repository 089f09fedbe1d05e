// The field service: tickets. What a request asks for (its "want"), a ticket's slot, looking its
// want up (cache, a build in flight, a new build; plans on hierarchical maps), offers and publication.

#include <algorithm>
#include <bit>
#include <cstdio>
#include <string>
#include "tide/detail/compat.hpp"

#include "../grid/cell_checks.hpp"
#include "service_state.hpp"

namespace tide {
using namespace svc;

// The checks of request() that do not depend on the cells.
Result<void> FieldService::State::check_options(const FieldOptions& options) const {
    const FieldParams& p = options.params;
    if (!(p.diagonal_factor >= 1.0 && p.diagonal_factor <= 2.0)) {
        return Error{"diagonal factor " + std::to_string(p.diagonal_factor) + " is outside 1..2"};
    }
    if (p.connectivity != Connectivity::eight && p.connectivity != Connectivity::four) {
        return Error{"connectivity " + std::to_string(static_cast<int>(p.connectivity)) + " is neither 8 nor 4"};
    }
    const bool flee = options.kind == FieldKind::flee;
    if (options.kind != FieldKind::goal && !flee) {
        return Error{"field kind " + std::to_string(static_cast<int>(options.kind)) + " is unknown"};
    }
    const double factor = options.flee.factor;
    if (flee && !(factor > 0.0 && factor <= kMaxFleeFactor)) {
        char text[80];
        std::snprintf(text, sizeof text, "flee factor %g is outside (0, %g]", factor, kMaxFleeFactor);
        return Error{text};
    }
    if (auto r = wall_margin_cost_field(CostField::create(1, 1).value(), options.wall_margin); !r) return r.error();
    const bool mixed = !options.dangers.empty();
    if (mixed && flee) {
        return Error{"a flee field takes its dangers as its cells: FieldOptions::dangers is for mixed goal fields"};
    }
    if (mixed) {
        const DangerCost& d = options.danger;
        if (d.weight < 0 || d.weight > kCostMax - 1) {
            return Error{"danger weight " + std::to_string(d.weight) + " is outside 0..253"};
        }
        if (!(d.radius > 0.0 && d.radius <= 65536.0)) {
            char text[80];
            std::snprintf(text, sizeof text, "danger radius %g is outside (0, 65536]", d.radius);
            return Error{text};
        }
    }
    if (options.congestion && flee) return Error{"a congestion layer is for goal fields, not flee fields"};
    if (hierarchical) {
        auto unsupported = [](const char* what) {
            return Error{ErrorCode::unsupported, std::string(what) + " not available on hierarchical maps"};
        };
        if (flee) return unsupported("flee orders are");
        if (mixed) return unsupported("mixed fields (goals with dangers) are");
        if (has_margin(options.wall_margin)) return unsupported("wall margins are");
        if (options.congestion) return unsupported("congestion is");
        const FieldParams& g = config.sectors.params;
        if (p.connectivity != g.connectivity ||
            (p.connectivity == Connectivity::eight && p.diagonal_factor != g.diagonal_factor)) {
            return Error{
                "plans move as the sector graph does (FieldServiceConfig::sectors.params): other field "
                "params are not available on hierarchical maps"};
        }
    }
    if (options.movement_class >= classes.size()) {
        return Error{ErrorCode::not_found, "movement class " + std::to_string(options.movement_class) +
                                               " is unknown (the service has " + std::to_string(classes.size()) +
                                               " classes, 0.." + std::to_string(classes.size() - 1) + ")"};
    }
    return {};
}

Result<void> FieldService::State::make_want(std::span<const Cell> goals, const FieldOptions& options, Want& out) const {
    if (auto r = check_options(options); !r) return r;
    const FieldParams& p = options.params;
    const bool flee = options.kind == FieldKind::flee;
    const double factor = options.flee.factor;
    const bool mixed = !options.dangers.empty();
    const char* const what = flee ? "danger" : "goal";
    if (goals.empty()) return Error{std::string("no ") + what + " given"};
    const CostField& map = *classes[options.movement_class].planning;
    auto check_cells = [&](std::span<const Cell> cells, const char* name) -> Result<void> {
        for (const Cell& g : cells) {
            if (auto r = detail::check_open_cell(map, g, name); !r) {
                if (options.movement_class == 0) return r.error();
                return Error{r.error().code, r.error().message + " for " + class_text(options.movement_class)};
            }
        }
        return {};
    };
    if (auto r = check_cells(goals, what); !r) return r.error();
    if (auto r = check_cells(options.dangers, "danger"); !r) return r.error();
    if (const CongestionLayer* layer = options.congestion.get();
        layer && (layer->width != map.width() || layer->height != map.height() ||
                  layer->extra.size() != static_cast<std::size_t>(map.width()) * map.height())) {
        return Error{"the congestion layer is " + std::to_string(layer->width) + "x" + std::to_string(layer->height) +
                     ", the map is " + std::to_string(map.width()) + "x" + std::to_string(map.height())};
    }
    auto canonical = [](std::span<const Cell> cells, std::pmr::vector<Cell>& to) {
        to.assign(cells.begin(), cells.end());
        std::sort(to.begin(), to.end(), [](Cell a, Cell b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
        to.erase(std::unique(to.begin(), to.end()), to.end());
    };
    canonical(goals, out.goals);
    canonical(options.dangers, out.dangers);
    out.danger = mixed ? options.danger : DangerCost{0, 0.0};
    out.connectivity = p.connectivity;
    out.diagonal = p.connectivity == Connectivity::four ? FieldParams{}.diagonal_factor : p.diagonal_factor;
    out.movement_class = options.movement_class;
    out.kind = options.kind;
    out.flee_factor = flee ? factor : 0.0;
    out.margin = has_margin(options.wall_margin) ? options.wall_margin : WallMargin{};
    out.congestion = options.congestion;
    std::uint64_t h = mix(0x7469646566696C64ULL, tide::detail::bit_cast<std::uint64_t>(out.diagonal));
    h = mix(h, static_cast<std::uint64_t>(out.connectivity) | (static_cast<std::uint64_t>(out.movement_class) << 8) |
                   (static_cast<std::uint64_t>(out.kind) << 16));
    h = mix(h, tide::detail::bit_cast<std::uint64_t>(out.flee_factor));
    h = mix(h, (static_cast<std::uint64_t>(out.margin.radius) << 32) | static_cast<std::uint32_t>(out.margin.extra));
    for (const Cell& g : out.goals) {
        h = mix(h,
                (static_cast<std::uint64_t>(static_cast<std::uint32_t>(g.y)) << 32) | static_cast<std::uint32_t>(g.x));
    }
    if (mixed) {
        h = mix(h, static_cast<std::uint64_t>(out.danger.weight) | (std::uint64_t{1} << 40));
        h = mix(h, tide::detail::bit_cast<std::uint64_t>(out.danger.radius));
        for (const Cell& d : out.dangers) {
            h = mix(h, (static_cast<std::uint64_t>(static_cast<std::uint32_t>(d.y)) << 32) |
                           static_cast<std::uint32_t>(d.x));
        }
    }
    if (out.congestion) h = mix(h, out.congestion->hash ^ 0x636F6E6765737469ULL);
    out.hash = h;
    return {};
}

Slot* FieldService::State::slot_of(FieldTicket t) {
    if (t.index >= slots.size()) return nullptr;
    Slot& s = slots[t.index];
    return s.live && s.generation == t.generation ? &s : nullptr;
}

const Slot* FieldService::State::slot_of(FieldTicket t) const {
    return const_cast<State*>(this)->slot_of(t);
}

// The ticket stops waiting for its build; a queued build nobody waits for any more is dropped.
void FieldService::State::detach(Slot& s) {
    Build* b = s.waiting;
    s.waiting = nullptr;
    if (!b || --b->waiters > 0 || b->running) return;
    const auto [lo, hi] = build_index.equal_range(key_hash(b->want, b->version));
    for (auto it = lo; it != hi; ++it) {
        if (it->second == b) {
            build_index.erase(it);
            break;
        }
    }
    builds.erase(b->self);
    --queued;
    ++stats.builds_cancelled;
    idle_cv.notify_all();
}

// Looks up what the slot wants: from the cache, else by joining or queuing a build.
void FieldService::State::attach(std::uint32_t index, Clock::time_point now) {
    if (hierarchical) return attach_plan(index, now);
    Slot& s = slots[index];
    s.requested = now;
    if (auto field = cache_find(s.want, s.want_version)) {
        ++stats.hits;
        offer(index, field, s.want_serial, s.want_version, true, false, 0.0, now);
        return;
    }
    ++stats.misses;
    // A ticket with no field for its goals at all (a new order) comes before tickets that only
    // need their field brought up to date with the terrain: those still have a field to follow.
    const bool urgent = !((s.field && s.field_serial == s.want_serial) || (s.next && s.next_serial == s.want_serial));
    const std::uint64_t h = key_hash(s.want, s.want_version);
    if (Build* b = find_build(s.want, s.want_version)) {
        ++stats.coalesced;
        ++b->waiters;
        b->priority = std::max(b->priority, s.priority);
        b->urgent = b->urgent || urgent;
        s.waiting = b;
        return;
    }
    builds.emplace_back(s.want, &pool);
    Build* b = &builds.back();
    b->self = std::prev(builds.end());
    b->version = s.want_version;
    b->priority = s.priority;
    b->urgent = urgent;
    b->seq = next_seq++;
    b->waiters = 1;
    build_index.emplace(h, b);
    ++queued;
    s.waiting = b;
}

// Hands a field to a slot if it is newer than what the slot has for its current want.
void FieldService::State::offer(std::uint32_t index, const FieldView& field, std::uint64_t serial,
                                std::uint64_t version, bool from_cache, bool repaired, double build_ms,
                                Clock::time_point ready_time) {
    Slot& s = slots[index];
    if (s.field == field) {  // already current (a retarget back to the goals it has): nothing to publish
        s.field_serial = serial;
        s.field_version = version;
        s.next = {};
        return;
    }
    const bool next_counts = s.next && s.next_serial == serial;
    const bool field_counts = s.field && s.field_serial == serial;
    if ((next_counts && s.next_version >= version) || (!next_counts && field_counts && s.field_version >= version)) {
        return;  // has this one or a newer one already
    }
    s.next = field;
    s.next_serial = serial;
    s.next_version = version;
    s.next_from_cache = from_cache;
    s.next_repaired = repaired;
    s.next_build_ms = build_ms;
    s.next_ready = ready_time;
    if (config.auto_publish) {
        publish_slot(index);
    } else if (!s.in_ready_list) {
        s.in_ready_list = true;
        ready.push_back(index);
    }
}

void FieldService::State::publish_slot(std::uint32_t index) {
    Slot& s = slots[index];
    s.in_ready_list = false;
    if (!s.live || !s.next) return;
    s.field = std::move(s.next);
    s.field_serial = s.next_serial;
    s.field_version = s.next_version;
    ++stats.publications;
    if (config.on_publish) {
        Publication p;
        p.ticket = FieldTicket{index, s.generation};
        p.field = s.field.flat();
        p.view = s.field;
        p.terrain_version = s.field_version;
        p.answers_request = s.field_serial == s.want_serial;
        p.up_to_date = p.answers_request && s.field_version == version;
        p.build_ms = s.next_build_ms;
        p.from_cache = s.next_from_cache;
        p.repaired = s.next_repaired;
        p.requested = s.requested;
        p.ready = s.next_ready;
        notify.push_back(std::move(p));
    }
}

std::size_t FieldService::State::publish_all() {
    std::size_t n = 0;
    for (const std::uint32_t i : ready) {
        if (slots[i].in_ready_list && slots[i].next) ++n;
        publish_slot(i);
    }
    ready.clear();
    return n;
}

}  // namespace tide
