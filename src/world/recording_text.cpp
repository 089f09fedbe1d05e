// The text of a recording (include/tide/recording.hpp; the format is in docs/formats.md): a
// format line, one `set KEY VALUE` line per setting, then one event per line (a load takes a
// block: the name, the map's size and its costs run-length encoded). Floats are hexadecimal
// (std::to_chars' hex format, exact and independent of the locale).

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include "tide/detail/compat.hpp"

#include "text_reader.hpp"
#include "tide/recording.hpp"

namespace tide {
namespace {

using world_detail::get;
using world_detail::get_goals;
using world_detail::get_hash;
using world_detail::Reader;

constexpr std::string_view kMagic = "tide-recording 1";

// Every setting of a WorldConfig a recording keeps, by name (not the memory resource and the
// route job system: a replay brings its own).
template <class Config, class F>
void each_setting(Config& c, F&& f) {
    f("seed", c.seed);
    f("field_budget_bytes", c.field_budget_bytes);
    f("hierarchy_cells", c.hierarchy_cells);
    f("lockstep", c.lockstep);
    auto& cr = c.crowd;
    f("crowd.radius", cr.radius);
    f("crowd.max_speed", cr.max_speed);
    f("crowd.max_force", cr.max_force);
    f("crowd.separation", cr.separation);
    f("crowd.separation_range", cr.separation_range);
    f("crowd.arrival_distance", cr.arrival_distance);
    f("crowd.settle_distance", cr.settle_distance);
    f("crowd.stuck_progress", cr.stuck_progress);
    f("crowd.stuck_seconds", cr.stuck_seconds);
    f("crowd.stuck_sidestep", cr.stuck_sidestep);
    f("crowd.max_substep", cr.max_substep);
    f("crowd.contact_passes", cr.contact_passes);
    f("crowd.yield_overlap", cr.yield_overlap);
    f("crowd.pack_overlap", cr.pack_overlap);
    f("crowd.sleep", cr.sleep);
    f("crowd.arrival_regions", cr.arrival_regions);
    f("crowd.line_of_sight", cr.line_of_sight);
    f("sectors.sector_size", c.sectors.sector_size);
    f("sectors.portal_limit", c.sectors.portal_limit);
    f("sectors.merge_runs", c.sectors.merge_runs);
    f("sectors.landmarks", c.sectors.landmarks);
    f("routes.corridor", c.routes.corridor);
    f("routes.fill_corners", c.routes.fill_corners);
    f("routes.corner_reach", c.routes.corner_reach);
    f("routes.refine_passes", c.routes.refine_passes);
    f("routes.settle_budget", c.routes.settle_budget);
    f("routes.short_route", c.routes.short_route);
    f("wall_margin.radius", c.wall_margin.radius);
    f("wall_margin.extra", c.wall_margin.extra);
    f("flee.factor", c.flee.factor);
    f("congestion.enabled", c.congestion.enabled);
    f("congestion.refresh_hz", c.congestion.refresh_hz);
    f("congestion.density_weight", c.congestion.density_weight);
    f("congestion.threshold", c.congestion.threshold);
    f("congestion.full", c.congestion.full);
    f("congestion.counter_weight", c.congestion.counter_weight);
    f("congestion.radius", c.congestion.radius);
    f("congestion.max_extra", c.congestion.max_extra);
}

// ---- writing ----

template <class T>
void put(std::string& out, T v) {
    char buf[64];
    std::to_chars_result r;
    if constexpr (std::is_same_v<T, bool>) {
        out += v ? '1' : '0';
        return;
    } else if constexpr (std::is_floating_point_v<T>) {
        r = detail::to_chars_float_hex(buf, buf + sizeof buf, v);
    } else {
        r = std::to_chars(buf, buf + sizeof buf, v);
    }
    out.append(buf, r.ptr);
}

template <class... T>
void line(std::string& out, std::string_view head, const T&... v) {
    out += head;
    ((out += ' ', put(out, v)), ...);
    out += '\n';
}

void put_hash(std::string& out, std::uint64_t h) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    out += buf;
}

void put_goals(std::string& out, const std::vector<Cell>& goals) {
    out += ' ';
    if (goals.empty()) out += '-';
    for (std::size_t i = 0; i < goals.size(); ++i) {
        if (i) out += ';';
        put(out, goals[i].x);
        out += ',';
        put(out, goals[i].y);
    }
}

void put_selection(std::string& out, const std::variant<SelectBox, std::vector<AgentId>>& select) {
    if (const auto* box = std::get_if<SelectBox>(&select)) {
        out += " box";
        for (const float v : {box->x0, box->y0, box->x1, box->y1}) {
            out += ' ';
            put(out, v);
        }
        return;
    }
    const auto& ids = std::get<std::vector<AgentId>>(select);
    out += " units ";
    if (ids.empty()) out += '-';
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i) out += ',';
        put(out, ids[i].index);
        out += ':';
        put(out, ids[i].generation);
    }
}

void put_command(std::string& out, const WorldCommand& command) {
    std::visit(
        [&](const auto& c) {
            using T = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<T, SetGoals>) {
                out += "set_goals ";
                put(out, c.group);
                out += ' ';
                put(out, c.flee);
                out += ' ';
                put(out, c.exit);
                put_goals(out, c.goals);
            } else if constexpr (std::is_same_v<T, Order>) {
                if (c.formation.shape != FormationShape::none) {
                    const Formation& f = c.formation;
                    out += "order_formation ";
                    put(out, static_cast<int>(f.shape));
                    for (const float v : {f.spacing}) out += ' ', put(out, v);
                    out += ' ';
                    put(out, f.columns);
                    for (const float v : {f.facing.x, f.facing.y}) out += ' ', put(out, v);
                    out += ' ';
                    if (f.offsets.empty()) out += '-';
                    for (std::size_t i = 0; i < f.offsets.size(); ++i) {
                        if (i) out += ';';
                        put(out, f.offsets[i].x);
                        out += ',';
                        put(out, f.offsets[i].y);
                    }
                } else {
                    out += "order ";
                    put(out, c.flee);
                    out += ' ';
                    put(out, c.exit);
                }
                put_goals(out, c.goals);
                put_selection(out, c.select);
            } else if constexpr (std::is_same_v<T, Paint>) {
                out += "paint";
                for (const int v : {c.x, c.y, c.radius, static_cast<int>(c.cost)}) {
                    out += ' ';
                    put(out, v);
                }
            } else if constexpr (std::is_same_v<T, Spawn>) {
                out += "spawn";
                for (const int v : {c.count, int{c.in_area}, c.x0, c.y0, c.x1, c.y1, c.size, int{c.add}}) {
                    out += ' ';
                    put(out, v);
                }
            } else if constexpr (std::is_same_v<T, SetUnitParams>) {
                out += "unit_params";
                for (const float v : {c.params.speed, c.params.separation, c.params.radius}) {
                    out += ' ';
                    put(out, v);
                }
            } else if constexpr (std::is_same_v<T, SetPaused>) {
                out += "paused ";
                put(out, c.paused);
            } else if constexpr (std::is_same_v<T, PlaceTower>) {
                out += "tower";
                for (const int v : {c.x0, c.y0, c.x1, c.y1}) {
                    out += ' ';
                    put(out, v);
                }
            } else if constexpr (std::is_same_v<T, SetWallMargin>) {
                out += "wall_margin ";
                put(out, c.margin.radius);
                out += ' ';
                put(out, c.margin.extra);
            } else if constexpr (std::is_same_v<T, SetCongestion>) {
                const CongestionParams& p = c.params;
                out += "congestion ";
                put(out, p.enabled);
                for (const float v : {p.refresh_hz, p.density_weight, p.threshold, p.full, p.counter_weight}) {
                    out += ' ';
                    put(out, v);
                }
                out += ' ';
                put(out, p.radius);
                out += ' ';
                put(out, p.max_extra);
            } else if constexpr (std::is_same_v<T, RemoveUnits>) {
                out += "remove";
                put_selection(out, c.select);
            } else if constexpr (std::is_same_v<T, AddSpawner>) {
                const SpawnerSpec& p = c.spec;
                out += "add_spawner";
                for (const int v : {p.area.x0, p.area.y0, p.area.x1, p.area.y1}) {
                    out += ' ';
                    put(out, v);
                }
                put_goals(out, p.goals);
                out += ' ';
                put(out, p.exit);
                for (const int v : {p.size, p.per_emission, p.wave_emissions, p.waves}) {
                    out += ' ';
                    put(out, v);
                }
                for (const double v : {p.start_s, p.every_s, p.wave_pause_s}) {
                    out += ' ';
                    put(out, v);
                }
            } else if constexpr (std::is_same_v<T, RemoveSpawner>) {
                out += "remove_spawner ";
                put(out, c.id);
            }
        },
        command);
}

void put_load(std::string& out, const RecordedLoad& l) {
    out += "load ";
    put(out, l.units);
    put_goals(out, l.goals);
    if (l.spawn_area) {
        out += " area";
        for (const int v : {l.spawn_area->x0, l.spawn_area->y0, l.spawn_area->x1, l.spawn_area->y1}) {
            out += ' ';
            put(out, v);
        }
    } else {
        out += " -";
    }
    std::string name = l.name;  // one line: a line break in a map's name would end it early
    std::replace(name.begin(), name.end(), '\n', ' ');
    std::replace(name.begin(), name.end(), '\r', ' ');
    out += "\nname " + name + "\n";
    line(out, "map", l.cost.width(), l.cost.height());
    // Runs of equal costs, "COST" or "COST*COUNT", 24 to a line.
    const auto cells = l.cost.cells();
    int on_line = 0;
    for (std::size_t i = 0; i < cells.size();) {
        std::size_t j = i + 1;
        while (j < cells.size() && cells[j] == cells[i]) ++j;
        if (on_line) out += ' ';
        put(out, static_cast<int>(cells[i]));
        if (j - i > 1) {
            out += '*';
            put(out, j - i);
        }
        if (++on_line == 24) {
            out += '\n';
            on_line = 0;
        }
        i = j;
    }
    out += on_line ? "\nend\n" : "end\n";
}

// ---- reading (the line reader and value parsers: text_reader.hpp) ----

// A selection from tokens[at...]: "box X0 Y0 X1 Y1" or "units I:G,I:G" (or "units -").
// "X,Y;X,Y" (hexadecimal floats) as formation offsets; "-": none.
bool get_offsets(std::string_view t, std::vector<Vec2>& out) {
    if (t == "-") return true;
    while (!t.empty()) {
        const std::size_t semi = std::min(t.find(';'), t.size());
        const std::string_view one = t.substr(0, semi);
        const std::size_t comma = one.find(',');
        Vec2 v;
        if (comma == std::string_view::npos || !get(one.substr(0, comma), v.x) || !get(one.substr(comma + 1), v.y)) {
            return false;
        }
        out.push_back(v);
        if (out.size() > kMaxFormationSlots) return false;
        t.remove_prefix(std::min(semi + 1, t.size()));
    }
    return true;
}

bool get_selection(const std::vector<std::string_view>& tk, std::size_t at,
                   std::variant<SelectBox, std::vector<AgentId>>& select) {
    if (tk.size() == at + 5 && tk[at] == "box") {
        SelectBox b;
        if (!get(tk[at + 1], b.x0) || !get(tk[at + 2], b.y0) || !get(tk[at + 3], b.x1) || !get(tk[at + 4], b.y1)) {
            return false;
        }
        select = b;
        return true;
    }
    if (tk.size() != at + 2 || tk[at] != "units") return false;
    std::vector<AgentId> ids;
    std::string_view t = tk[at + 1];
    if (t != "-") {
        while (!t.empty()) {
            const std::size_t comma = std::min(t.find(','), t.size());
            const std::string_view one = t.substr(0, comma);
            const std::size_t colon = one.find(':');
            AgentId id;
            if (colon == std::string_view::npos || !get(one.substr(0, colon), id.index) ||
                !get(one.substr(colon + 1), id.generation)) {
                return false;
            }
            ids.push_back(id);
            t.remove_prefix(std::min(comma + 1, t.size()));
        }
    }
    select = std::move(ids);
    return true;
}

// Integers tokens[from...] into `v...`, all of them and nothing more.
template <class... T>
bool get_all(const std::vector<std::string_view>& tk, std::size_t from, T&... v) {
    if (tk.size() != from + sizeof...(T)) return false;
    std::size_t i = from;
    return (get(tk[i++], v) && ...);
}

// A command from "command REFUSED KIND ...".
bool get_command(const std::vector<std::string_view>& tk, RecordedCommand& out) {
    if (tk.size() < 3 || !get(tk[1], out.refused)) return false;
    const std::string_view kind = tk[2];
    if (kind == "set_goals") {
        SetGoals c;
        if (tk.size() != 7 || !get(tk[3], c.group) || !get(tk[4], c.flee) || !get(tk[5], c.exit) ||
            !get_goals(tk[6], c.goals)) {
            return false;
        }
        out.command = std::move(c);
    } else if (kind == "order") {
        Order c;
        if (tk.size() < 7 || !get(tk[3], c.flee) || !get(tk[4], c.exit) || !get_goals(tk[5], c.goals) ||
            !get_selection(tk, 6, c.select)) {
            return false;
        }
        out.command = std::move(c);
    } else if (kind == "order_formation") {
        Order c;
        Formation& f = c.formation;
        int shape = 0;
        if (tk.size() < 12 || !get(tk[3], shape) || shape < 1 || shape > static_cast<int>(FormationShape::custom) ||
            !get(tk[4], f.spacing) || !get(tk[5], f.columns) || !get(tk[6], f.facing.x) || !get(tk[7], f.facing.y) ||
            !get_offsets(tk[8], f.offsets) || !get_goals(tk[9], c.goals) || !get_selection(tk, 10, c.select)) {
            return false;
        }
        f.shape = static_cast<FormationShape>(shape);
        out.command = std::move(c);
    } else if (kind == "paint") {
        Paint c;
        int cost = 0;
        if (!get_all(tk, 3, c.x, c.y, c.radius, cost) || cost < 0 || cost > 255) return false;
        c.cost = static_cast<Cost>(cost);
        out.command = c;
    } else if (kind == "spawn") {
        Spawn c;
        if (!get_all(tk, 3, c.count, c.in_area, c.x0, c.y0, c.x1, c.y1, c.size, c.add)) return false;
        out.command = c;
    } else if (kind == "unit_params") {
        SetUnitParams c;
        if (!get_all(tk, 3, c.params.speed, c.params.separation, c.params.radius)) return false;
        out.command = c;
    } else if (kind == "paused") {
        SetPaused c;
        if (!get_all(tk, 3, c.paused)) return false;
        out.command = c;
    } else if (kind == "tower") {
        PlaceTower c;
        if (!get_all(tk, 3, c.x0, c.y0, c.x1, c.y1)) return false;
        out.command = c;
    } else if (kind == "wall_margin") {
        SetWallMargin c;
        if (!get_all(tk, 3, c.margin.radius, c.margin.extra)) return false;
        out.command = c;
    } else if (kind == "congestion") {
        SetCongestion c;
        CongestionParams& p = c.params;
        if (!get_all(tk, 3, p.enabled, p.refresh_hz, p.density_weight, p.threshold, p.full, p.counter_weight, p.radius,
                     p.max_extra)) {
            return false;
        }
        out.command = c;
    } else if (kind == "remove") {
        RemoveUnits c;
        if (!get_selection(tk, 3, c.select)) return false;
        out.command = std::move(c);
    } else if (kind == "add_spawner") {
        AddSpawner c;
        SpawnerSpec& p = c.spec;
        if (tk.size() != 16 || !get(tk[3], p.area.x0) || !get(tk[4], p.area.y0) || !get(tk[5], p.area.x1) ||
            !get(tk[6], p.area.y1) || !get_goals(tk[7], p.goals) || !get(tk[8], p.exit) ||
            !get_all(tk, 9, p.size, p.per_emission, p.wave_emissions, p.waves, p.start_s, p.every_s, p.wave_pause_s)) {
            return false;
        }
        out.command = std::move(c);
    } else if (kind == "remove_spawner") {
        RemoveSpawner c;
        if (!get_all(tk, 3, c.id)) return false;
        out.command = c;
    } else {
        return false;
    }
    return true;
}

// The block after "load UNITS GOALS AREA": "name ...", "map W H", runs, "end".
Result<RecordedLoad> get_load(Reader& r) {
    RecordedLoad l;
    const auto& tk = r.tokens;
    bool ok = tk.size() >= 4 && get(tk[1], l.units) && get_goals(tk[2], l.goals);
    if (ok && tk[3] == "area" && tk.size() == 8) {
        CellRect a;
        ok = get(tk[4], a.x0) && get(tk[5], a.y0) && get(tk[6], a.x1) && get(tk[7], a.y1);
        l.spawn_area = a;
    } else {
        ok = ok && tk[3] == "-" && tk.size() == 4;
    }
    if (!ok) return r.error("expected 'load UNITS GOALS -' or 'load UNITS GOALS area X0 Y0 X1 Y1'");
    if (!r.next() || r.current.substr(0, 5) != "name ") return r.error("expected 'name NAME' after the load line");
    l.name = std::string(r.current.substr(5));
    int w = 0, h = 0;
    if (!r.next() || r.tokens.size() != 3 || r.tokens[0] != "map" || !get(r.tokens[1], w) || !get(r.tokens[2], h)) {
        return r.error("expected 'map WIDTH HEIGHT'");
    }
    auto cost = CostField::create(w, h);
    if (!cost) return r.error(cost.error().message);
    const std::size_t total = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    std::size_t at = 0;
    while (true) {
        if (!r.next()) return r.error("the map's costs end without 'end'");
        if (r.tokens.size() == 1 && r.tokens[0] == "end") break;
        for (const std::string_view t : r.tokens) {
            const std::size_t star = t.find('*');
            int value = 0;
            std::size_t count = 1;
            if (!get(t.substr(0, std::min(star, t.size())), value) || value < 1 || value > 255 ||
                (star != std::string_view::npos && (!get(t.substr(star + 1), count) || count == 0))) {
                return r.error("'" + std::string(t) + "' is not COST or COST*COUNT with a cost 1..255");
            }
            if (count > total - at) {
                return r.error("the costs run past the " + std::to_string(w) + "x" + std::to_string(h) + " map");
            }
            for (std::size_t k = 0; k < count; ++k, ++at) {
                cost->set(static_cast<int>(at % static_cast<std::size_t>(w)),
                          static_cast<int>(at / static_cast<std::size_t>(w)), static_cast<Cost>(value));
            }
        }
    }
    if (at != total) {
        return r.error("the map holds " + std::to_string(at) + " costs, not " + std::to_string(total));
    }
    l.cost = std::move(*cost);
    return l;
}

// One event from the reader's current line (more lines for a load).
Result<RecordedEvent> get_event(Reader& r) {
    const auto& tk = r.tokens;
    const std::string_view head = tk[0];
    if (head == "tick") {
        RecordedTick t;
        if (tk.size() != 4 || !get(tk[1], t.dt) || !get(tk[2], t.force) || !get_hash(tk[3], t.hash)) {
            return r.error("expected 'tick DT FORCE HASH' (DT a hexadecimal float, HASH 16 hex digits)");
        }
        return RecordedEvent{t};
    }
    if (head == "command") {
        RecordedCommand c;
        if (!get_command(tk, c)) return r.error("malformed command '" + std::string(r.current) + "'");
        return RecordedEvent{std::move(c)};
    }
    if (head == "finish" && tk.size() == 1) return RecordedEvent{RecordedFinish{}};
    if (head == "line_of_sight") {
        RecordedLineOfSight l;
        if (tk.size() != 2 || !get(tk[1], l.on)) return r.error("expected 'line_of_sight 0' or 'line_of_sight 1'");
        return RecordedEvent{l};
    }
    if (head == "load") {
        auto l = get_load(r);
        if (!l) return l.error();
        return RecordedEvent{std::move(*l)};
    }
    return r.error("unknown line '" + std::string(r.current) + "'");
}

}  // namespace

std::string recording_header_text(const WorldConfig& config) {
    std::string out(kMagic);
    out += '\n';
    each_setting(config, [&](std::string_view key, const auto& v) {
        out += "set ";
        out += key;
        out += ' ';
        put(out, v);
        out += '\n';
    });
    return out;
}

std::string recorded_event_text(const RecordedEvent& event) {
    std::string out;
    std::visit(
        [&](const auto& e) {
            using T = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<T, RecordedLoad>) {
                put_load(out, e);
            } else if constexpr (std::is_same_v<T, RecordedCommand>) {
                out += "command ";
                put(out, e.refused);
                out += ' ';
                put_command(out, e.command);
                out += '\n';
            } else if constexpr (std::is_same_v<T, RecordedTick>) {
                out += "tick ";
                put(out, e.dt);
                out += ' ';
                put(out, e.force);
                out += ' ';
                put_hash(out, e.hash);
                out += '\n';
            } else if constexpr (std::is_same_v<T, RecordedFinish>) {
                out += "finish\n";
            } else {
                line(out, "line_of_sight", e.on);
            }
        },
        event);
    return out;
}

std::string recording_text(const Recording& recording) {
    std::string out = recording_header_text(recording.config);
    for (const RecordedEvent& e : recording.events) out += recorded_event_text(e);
    return out;
}

Result<Recording> parse_recording(std::string_view text, std::string_view source) {
    Reader r{text, source};
    if (!r.next() || r.current != kMagic)
        return r.error("not a recording: the first line is not '" + std::string(kMagic) + "'");
    Recording rec;
    while (r.next()) {
        if (r.tokens.empty()) continue;
        if (r.tokens[0] == "set") {
            bool known = false, ok = false;
            if (r.tokens.size() == 3) {
                each_setting(rec.config, [&](std::string_view key, auto& v) {
                    if (key != r.tokens[1]) return;
                    known = true;
                    ok = get(r.tokens[2], v);
                });
            }
            if (!known) return r.error("unknown setting line '" + std::string(r.current) + "'");
            if (!ok) return r.error("bad value '" + std::string(r.tokens[2]) + "' for " + std::string(r.tokens[1]));
            continue;
        }
        auto e = get_event(r);
        if (!e) return e.error();
        rec.events.push_back(std::move(*e));
    }
    return rec;
}

Result<Recording> load_recording(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{ErrorCode::io, "cannot read recording '" + path + "'"};
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_recording(ss.str(), path);
}

}  // namespace tide
