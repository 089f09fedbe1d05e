// Replaying a recording, snapshots of a world's state and where two runs part
// (include/tide/recording.hpp).

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include "tide/detail/compat.hpp"

#include "text_reader.hpp"
#include "tide/recording.hpp"

namespace tide {
namespace {

std::uint64_t fnv(std::uint64_t h, const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}
constexpr std::uint64_t kFnvSeed = 0xcbf29ce484222325ull;

std::uint64_t field_hash(const World& world, UnitGroupId id) {
    std::uint64_t h = kFnvSeed;
    const int W = world.cost().width(), H = world.cost().height();
    if (auto f = world.field(id)) {
        const std::span<const float> v = f->integration(), s = f->to_stop();
        h = fnv(h, v.data(), v.size_bytes());
        h = fnv(h, s.data(), s.size_bytes());
        for (int y = 0; y < H; ++y) {
            for (int x = 0; x < W; ++x) {
                const auto d = static_cast<std::uint8_t>(f->direction(x, y));
                h = fnv(h, &d, 1);
            }
        }
        return h;
    }
    if (auto p = world.plan(id)) {
        for (int y = 0; y < H; y += 3) {
            for (int x = 0; x < W; x += 3) {
                const Vec2 v = p->blend({static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f});
                h = fnv(h, &v, sizeof v);
            }
        }
        return h;
    }
    return 0;
}

std::string hex16(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
    return buf;
}

std::string number(float v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    return buf;
}

// Floats apart in units in the last place (both finite, same sign); a large value otherwise.
std::int64_t ulps(float a, float b) {
    const auto ia = static_cast<std::int64_t>(tide::detail::bit_cast<std::int32_t>(a));
    const auto ib = static_cast<std::int64_t>(tide::detail::bit_cast<std::int32_t>(b));
    if (!std::isfinite(a) || !std::isfinite(b) || (ia < 0) != (ib < 0)) return INT64_MAX;
    return ia > ib ? ia - ib : ib - ia;
}

std::string vec_diff(const char* what, Vec2 a, Vec2 b) {
    std::string s =
        std::string(what) + " (" + number(a.x) + ", " + number(a.y) + ") vs (" + number(b.x) + ", " + number(b.y) + ")";
    const std::int64_t u = std::max(a.x != b.x ? ulps(a.x, b.x) : 0, a.y != b.y ? ulps(a.y, b.y) : 0);
    if (u < 1000000) s += ", " + std::to_string(u) + " ulp apart";
    return s;
}

std::string goals_text(const std::vector<Cell>& goals) {
    std::string s;
    for (std::size_t i = 0; i < goals.size(); ++i) {
        if (i) s += ';';
        s += std::to_string(goals[i].x) + "," + std::to_string(goals[i].y);
    }
    return s.empty() ? "-" : s;
}

std::string unit_name(const UnitSnapshot& u) {
    return "unit " + std::to_string(u.id.index) + ":" + std::to_string(u.id.generation);
}

// "kind" of an event, for messages.
std::string event_line(const RecordedEvent& e) {
    std::string t = recorded_event_text(e);
    const std::size_t nl = t.find('\n');
    if (nl != std::string::npos) t.resize(nl);
    if (t.size() > 160) t = t.substr(0, 157) + "...";
    return t;
}

}  // namespace

WorldSnapshot snapshot(const World& world, std::uint64_t tick) {
    WorldSnapshot s;
    s.tick = tick;
    s.state_hash = world.state_hash();
    const auto cells = world.cost().cells();
    s.terrain_hash = fnv(kFnvSeed, cells.data(), cells.size_bytes());
    s.terrain_version = world.terrain_version();
    for (const UnitGroup& g : world.groups()) {
        s.groups.push_back(GroupSnapshot{g.id, g.goals, g.members, g.field_serial, field_hash(world, g.id)});
    }
    const Crowd& crowd = world.crowd();
    s.units.reserve(world.agents().size());
    for (const AgentId id : world.agents()) {
        s.units.push_back(UnitSnapshot{id, world.group_of(id), world.unit_size(id), crowd.position(id),
                                       crowd.velocity(id), crowd.state(id)});
    }
    return s;
}

std::string snapshot_text(const WorldSnapshot& s) {
    std::string out = "tide-snapshot 1\ntick " + std::to_string(s.tick) + "\nstate_hash " + hex16(s.state_hash) +
                      "\nterrain " + hex16(s.terrain_hash) + " " + std::to_string(s.terrain_version) + "\n";
    for (const GroupSnapshot& g : s.groups) {
        out += "group " + std::to_string(g.id) + " " + std::to_string(g.members) + " " +
               std::to_string(g.field_serial) + " " + hex16(g.field_hash) + " " + goals_text(g.goals) + "\n";
    }
    // Floats as their bits (exact), the decimal values after '#'.
    auto bits = [](float f) { return hex16(tide::detail::bit_cast<std::uint32_t>(f)).substr(8); };
    for (const UnitSnapshot& u : s.units) {
        out += "unit " + std::to_string(u.id.index) + " " + std::to_string(u.id.generation) + " " +
               std::to_string(u.group) + " " + std::to_string(u.size) + " " + agent_state_name(u.state) + " " +
               bits(u.position.x) + " " + bits(u.position.y) + " " + bits(u.velocity.x) + " " + bits(u.velocity.y) +
               " # " + number(u.position.x) + " " + number(u.position.y) + " " + number(u.velocity.x) + " " +
               number(u.velocity.y) + "\n";
    }
    return out;
}

Result<WorldSnapshot> parse_snapshot(std::string_view text, std::string_view source) {
    using world_detail::get;
    using world_detail::get_hash;
    world_detail::Reader r(text, source);
    if (!r.next() || r.current != "tide-snapshot 1") {
        return r.error("not a snapshot: the first line is not 'tide-snapshot 1'");
    }
    WorldSnapshot s;
    while (r.next()) {
        auto& tk = r.tokens;
        // Decimal values after '#' are for people.
        tk.erase(std::find_if(tk.begin(), tk.end(), [](std::string_view t) { return t.front() == '#'; }), tk.end());
        if (tk.empty()) continue;
        const std::string_view k = tk[0];
        bool ok = false;
        if (k == "tick") {
            ok = tk.size() == 2 && get(tk[1], s.tick);
        } else if (k == "state_hash") {
            ok = tk.size() == 2 && get_hash(tk[1], s.state_hash);
        } else if (k == "terrain") {
            ok = tk.size() == 3 && get_hash(tk[1], s.terrain_hash) && get(tk[2], s.terrain_version);
        } else if (k == "group") {
            GroupSnapshot g;
            ok = tk.size() == 6 && get(tk[1], g.id) && get(tk[2], g.members) && get(tk[3], g.field_serial) &&
                 get_hash(tk[4], g.field_hash) && world_detail::get_goals(tk[5], g.goals);
            s.groups.push_back(std::move(g));
        } else if (k == "unit") {
            UnitSnapshot u;
            std::uint32_t bits[4] = {};
            ok = tk.size() == 10 && get(tk[1], u.id.index) && get(tk[2], u.id.generation) && get(tk[3], u.group) &&
                 get(tk[4], u.size) && get_hash(tk[6], bits[0]) && get_hash(tk[7], bits[1]) &&
                 get_hash(tk[8], bits[2]) && get_hash(tk[9], bits[3]);
            bool named = false;
            for (const AgentState st :
                 {AgentState::moving, AgentState::arrived, AgentState::no_path, AgentState::queued}) {
                if (ok && tk[5] == agent_state_name(st)) {
                    u.state = st;
                    named = true;
                }
            }
            ok = ok && named;
            u.position = {tide::detail::bit_cast<float>(bits[0]), tide::detail::bit_cast<float>(bits[1])};
            u.velocity = {tide::detail::bit_cast<float>(bits[2]), tide::detail::bit_cast<float>(bits[3])};
            s.units.push_back(u);
        } else {
            return r.error("unknown line '" + std::string(r.current) + "'");
        }
        if (!ok) return r.error("malformed " + std::string(k) + " line '" + std::string(r.current) + "'");
    }
    return s;
}

Desync first_difference(const WorldSnapshot& a, const WorldSnapshot& b) {
    Desync d;
    d.tick = static_cast<std::int64_t>(a.tick);
    auto found = [&](std::string what) {
        d.found = true;
        d.what = std::move(what);
        return d;
    };
    if (a.tick != b.tick) {
        return found("the snapshots are of different ticks: " + std::to_string(a.tick) + " vs " +
                     std::to_string(b.tick));
    }
    if (a.terrain_hash != b.terrain_hash || a.terrain_version != b.terrain_version) {
        return found("terrain " + hex16(a.terrain_hash) + " (version " + std::to_string(a.terrain_version) + ") vs " +
                     hex16(b.terrain_hash) + " (version " + std::to_string(b.terrain_version) + ")");
    }
    for (std::size_t i = 0; i < std::min(a.groups.size(), b.groups.size()); ++i) {
        const GroupSnapshot &ga = a.groups[i], &gb = b.groups[i];
        const std::string name = "group " + std::to_string(ga.id);
        if (ga.id != gb.id) return found("group " + std::to_string(ga.id) + " vs group " + std::to_string(gb.id));
        if (ga.goals != gb.goals)
            return found(name + ": goals " + goals_text(ga.goals) + " vs " + goals_text(gb.goals));
        if (ga.members != gb.members) {
            return found(name + ": " + std::to_string(ga.members) + " vs " + std::to_string(gb.members) + " members");
        }
        if (ga.field_hash != gb.field_hash || ga.field_serial != gb.field_serial) {
            return found(name + ": field " + hex16(ga.field_hash) + " (serial " + std::to_string(ga.field_serial) +
                         ") vs " + hex16(gb.field_hash) + " (serial " + std::to_string(gb.field_serial) + ")");
        }
    }
    if (a.groups.size() != b.groups.size()) {
        return found(std::to_string(a.groups.size()) + " vs " + std::to_string(b.groups.size()) + " groups");
    }
    for (std::size_t i = 0; i < std::min(a.units.size(), b.units.size()); ++i) {
        const UnitSnapshot &ua = a.units[i], &ub = b.units[i];
        if (ua == ub) continue;
        std::string w = "unit #" + std::to_string(i) + " (roster order): ";
        if (ua.id != ub.id) return found(w + unit_name(ua) + " vs " + unit_name(ub));
        w = unit_name(ua) + " (roster #" + std::to_string(i) + ", group " + std::to_string(ua.group) + "): ";
        if (ua.group != ub.group || ua.size != ub.size) {
            return found(w + "group " + std::to_string(ua.group) + " size " + std::to_string(ua.size) + " vs group " +
                         std::to_string(ub.group) + " size " + std::to_string(ub.size));
        }
        if (!(ua.position == ub.position)) return found(w + vec_diff("position", ua.position, ub.position));
        if (!(ua.velocity == ub.velocity)) return found(w + vec_diff("velocity", ua.velocity, ub.velocity));
        return found(w + "state " + agent_state_name(ua.state) + " vs " + agent_state_name(ub.state));
    }
    if (a.units.size() != b.units.size()) {
        return found(std::to_string(a.units.size()) + " vs " + std::to_string(b.units.size()) + " units");
    }
    if (a.state_hash != b.state_hash) {
        return found("state hash " + hex16(a.state_hash) + " vs " + hex16(b.state_hash) +
                     " with every unit and group equal (a unit's hidden state, or the tick count)");
    }
    d.tick = -1;
    return d;
}

Desync first_difference(const Recording& a, const Recording& b) {
    Desync d;
    const std::string ha = recording_header_text(a.config), hb = recording_header_text(b.config);
    if (ha != hb) {
        std::size_t i = 0;
        while (i < ha.size() && i < hb.size() && ha[i] == hb[i]) ++i;
        auto line_at = [](const std::string& s, std::size_t at) {
            const std::size_t from = s.rfind('\n', at == 0 ? 0 : at - 1);
            const std::size_t start = from == std::string::npos ? 0 : from + 1;
            return s.substr(start, s.find('\n', start) - start);
        };
        d.found = true;
        d.what = "settings: '" + line_at(ha, i) + "' vs '" + line_at(hb, i) + "'";
        return d;
    }
    std::int64_t ticks = 0;
    const std::size_t n = std::min(a.events.size(), b.events.size());
    for (std::size_t i = 0; i < n; ++i) {
        const auto* ta = std::get_if<RecordedTick>(&a.events[i]);
        const auto* tb = std::get_if<RecordedTick>(&b.events[i]);
        if (ta && tb && ta->dt == tb->dt && ta->force == tb->force) {
            ++ticks;
            if (ta->hash == tb->hash) continue;
            d.found = true;
            d.tick = ticks;
            d.what = "tick " + std::to_string(ticks) + ": state hash " + hex16(ta->hash) + " vs " + hex16(tb->hash) +
                     " (the same commands up to here; the runs agree through tick " + std::to_string(ticks - 1) + ")";
            return d;
        }
        if (recorded_event_text(a.events[i]) == recorded_event_text(b.events[i])) continue;
        d.found = true;
        d.tick = ticks;
        d.what = "event " + std::to_string(i + 1) + " (after tick " + std::to_string(ticks) + "): '" +
                 event_line(a.events[i]) + "' vs '" + event_line(b.events[i]) + "'";
        return d;
    }
    if (a.events.size() != b.events.size()) {
        d.what = "equal through the " + std::to_string(n) + " events both hold (" + std::to_string(ticks) +
                 " ticks); one recording goes on (" + std::to_string(a.events.size()) + " vs " +
                 std::to_string(b.events.size()) + " events)";
    }
    return d;
}

Result<ReplayReport> replay(const Recording& recording, JobSystem& jobs, const ReplayOptions& options) {
    if (recording.events.empty() || !std::holds_alternative<RecordedLoad>(recording.events.front())) {
        return Error{"the recording does not start with a load"};
    }
    WorldConfig config = recording.config;
    config.lockstep = true;
    config.field_memory = std::pmr::get_default_resource();
    config.routes.jobs = nullptr;
    World world(jobs, config);
    ReplayReport report;
    auto refused = [](std::size_t i, const RecordedEvent& e, const std::string& why) {
        return Error{"event " + std::to_string(i + 1) + " ('" + event_line(e) + "'): " + why};
    };
    for (std::size_t i = 0; i < recording.events.size(); ++i) {
        if (options.stop_after_tick >= 0 && report.ticks >= static_cast<std::uint64_t>(options.stop_after_tick)) break;
        const RecordedEvent& e = recording.events[i];
        if (const auto* load = std::get_if<RecordedLoad>(&e)) {
            if (auto r = world.load(load->name, load->cost, load->goals, load->units, load->spawn_area); !r) {
                return refused(i, e, "refused on replay: " + r.error().message);
            }
        } else if (const auto* c = std::get_if<RecordedCommand>(&e)) {
            const auto r = world.apply(c->command);
            if (r.ok() == c->refused) {
                return refused(i, e,
                               c->refused ? "refused when recorded, accepted on replay"
                                          : "accepted when recorded, refused on replay: " + r.error().message);
            }
        } else if (const auto* t = std::get_if<RecordedTick>(&e)) {
            if (auto r = world.tick(t->dt, t->force); !r) return refused(i, e, r.error().message);
            ++report.ticks;
            report.final_hash = world.state_hash();
            report.recorded_final_hash = t->hash;
            if (report.final_hash != t->hash && report.first_mismatch < 0) {
                report.first_mismatch = static_cast<std::int64_t>(report.ticks);
                report.mismatch_recorded = t->hash;
                report.mismatch_replayed = report.final_hash;
                if (options.stop_at_mismatch) break;
            }
        } else if (std::holds_alternative<RecordedFinish>(e)) {
            world.finish_builds();
        } else {
            world.set_line_of_sight(std::get<RecordedLineOfSight>(e).on);
        }
    }
    if (report.ticks == 0) report.final_hash = world.state_hash();
    if (options.snapshot) report.last = snapshot(world, report.ticks);
    return report;
}

}  // namespace tide
