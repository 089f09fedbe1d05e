// The Python module `tide`: maps from numpy cost arrays or files, flow fields whose layers are
// numpy views (no copy), the crowd, and scen/sim equivalents of the CLI commands (sim runs the
// world library's Simulation, as `tide sim` does).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tide/crowd.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"
#include "tide/generate.hpp"
#include "tide/map_io.hpp"
#include "tide/scenario_costs.hpp"
#include "tide/simulation.hpp"
#include "tide/steering.hpp"
#include "tide/world.hpp"

namespace py = pybind11;

namespace {

py::object g_error_type;  // tide.Error, a ValueError with a `code` attribute ("on_wall", ...)

[[noreturn]] void raise(const tide::Error& e) {
    py::object exc = g_error_type(e.message);
    exc.attr("code") = tide::error_code_name(e.code);
    PyErr_SetObject(g_error_type.ptr(), exc.ptr());
    throw py::error_already_set();
}

template <class T>
T take(tide::Result<T> r) {
    if (!r) raise(r.error());
    return std::move(r.value());
}

void check(const tide::Result<void>& r) {
    if (!r) raise(r.error());
}

// A group handle in Python: (index, generation), as an agent's.
using GroupHandle = std::pair<std::uint32_t, std::uint32_t>;
tide::GroupId group_id(const GroupHandle& g) {
    return {g.first, g.second};
}
GroupHandle group_handle(tide::GroupId g) {
    return {g.index, g.generation};
}

// Runs `work` (returning Result<void>) with the GIL released and raises its error once the GIL is
// held again: raising without the GIL crashed the interpreter. Check arguments before calling it.
template <class Work>
void run_unlocked(Work&& work) {
    tide::Result<void> r;
    {
        py::gil_scoped_release unlocked;
        r = work();
    }
    check(r);
}

// A read-only numpy view of `count` rows x `width` items at `data`, keeping `owner` alive.
template <class T>
py::array view(const T* data, int height, int width, py::handle owner) {
    py::array a(py::dtype::of<T>(), {height, width},
                {static_cast<py::ssize_t>(sizeof(T)) * width, static_cast<py::ssize_t>(sizeof(T))}, data, owner);
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return a;
}

std::vector<tide::Cell> to_cells(const std::vector<std::pair<int, int>>& xy) {
    std::vector<tide::Cell> out;
    out.reserve(xy.size());
    for (auto [x, y] : xy) out.push_back({x, y});
    return out;
}

tide::FieldParams field_params(double diagonal, int connectivity) {
    if (connectivity != 8 && connectivity != 4) {
        raise(tide::Error{"connectivity " + std::to_string(connectivity) + " is neither 8 nor 4"});
    }
    tide::FieldParams p;
    p.diagonal_factor = diagonal;
    p.connectivity = connectivity == 4 ? tide::Connectivity::four : tide::Connectivity::eight;
    return p;
}

// A map owned by Python; crowds made on it keep it alive (py::keep_alive).
struct PyMap {
    tide::Map map;
    std::vector<tide::Cell> goals;  // a built-in map's default goals
};

// A Steering with what it reads kept alive: the map (its terrain) and the field; and the memory of
// steer_many()'s units (row i is unit i).
struct PySteering {
    std::shared_ptr<PyMap> map;
    std::shared_ptr<const tide::FlowField> field;
    tide::Steering steering;
    std::vector<tide::SteerMemory> memory;
};

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

// Directions for positions xs, ys (1-D, same length) by `query(x_span, y_span, out_x, out_y)`:
// an (n, 2) float32 array.
template <class Query>
py::array_t<float> directions_of(const FloatArray& xs, const FloatArray& ys, Query&& query) {
    if (xs.ndim() != 1 || ys.ndim() != 1 || xs.shape(0) != ys.shape(0))
        raise(tide::Error{"xs and ys must be 1-D arrays of the same length"});
    const auto n = static_cast<std::size_t>(xs.shape(0));
    std::vector<float> ox(n), oy(n);
    query(std::span<const float>(xs.data(), n), std::span<const float>(ys.data(), n), std::span<float>(ox),
          std::span<float>(oy));
    py::array_t<float> out({static_cast<py::ssize_t>(n), py::ssize_t{2}});
    auto w = out.mutable_unchecked<2>();
    for (std::size_t i = 0; i < n; ++i) {
        w(static_cast<py::ssize_t>(i), 0) = ox[i];
        w(static_cast<py::ssize_t>(i), 1) = oy[i];
    }
    return out;
}

// A goal field, or with `dangers` a mixed field (goal field on the costs plus the danger term).
std::shared_ptr<const tide::FlowField> build(const PyMap& m, const std::vector<std::pair<int, int>>& goals,
                                             double diagonal, int connectivity,
                                             const std::vector<std::pair<int, int>>& dangers = {},
                                             tide::DangerCost danger = {}) {
    auto field = std::make_shared<tide::FlowField>();
    tide::FieldBuilder builder;
    const auto cells = to_cells(goals);
    const auto danger_cells = to_cells(dangers);
    // Everything that may raise is checked, and raised, while this thread holds the GIL: raising
    // with the GIL released crashed the interpreter (connectivity=6).
    const tide::FieldParams params = field_params(diagonal, connectivity);
    run_unlocked([&] {
        return danger_cells.empty() ? builder.build(m.map.cost, cells, params, *field)
                                    : builder.build_mixed(m.map.cost, cells, danger_cells, danger, params, *field);
    });
    return field;
}

// The flee field of `dangers`.
std::shared_ptr<const tide::FlowField> build_flee(const PyMap& m, const std::vector<std::pair<int, int>>& dangers,
                                                  double factor, double diagonal, int connectivity) {
    auto field = std::make_shared<tide::FlowField>();
    tide::FieldBuilder builder;
    const auto cells = to_cells(dangers);
    const tide::FieldParams params = field_params(diagonal, connectivity);  // raises with the GIL held
    run_unlocked([&] { return builder.build_flee(m.map.cost, cells, tide::FleeParams{factor}, params, *field); });
    return field;
}

// tide scen: the cost of Tide's path from every row's start to its goal (tide::scenario_costs, the
// check of `tide scen`), next to the published optimum.
py::dict scen(const PyMap& m, const std::string& scen_path, double diagonal, int connectivity) {
    const auto rows = take(tide::load_scenarios(scen_path));
    check(tide::check_scenarios(rows, m.map.cost, scen_path));
    const tide::FieldParams params = field_params(diagonal, connectivity);  // raises with the GIL held
    tide::ScenarioCosts costs;
    run_unlocked([&]() -> tide::Result<void> {
        tide::SerialJobSystem jobs;
        auto r = tide::scenario_costs(m.map.cost, rows, params, jobs);
        if (!r) return r.error();
        costs = std::move(r.value());
        return {};
    });
    const auto n = static_cast<py::ssize_t>(rows.size());
    py::array_t<std::int32_t> start({n, py::ssize_t{2}}), goal({n, py::ssize_t{2}});
    py::array_t<double> optimal(n), cost(n);
    auto s = start.mutable_unchecked<2>();
    auto g = goal.mutable_unchecked<2>();
    auto o = optimal.mutable_unchecked<1>();
    auto c = cost.mutable_unchecked<1>();
    for (py::ssize_t i = 0; i < n; ++i) {
        const auto& r = rows[static_cast<std::size_t>(i)];
        s(i, 0) = r.start.x;
        s(i, 1) = r.start.y;
        g(i, 0) = r.goal.x;
        g(i, 1) = r.goal.y;
        o(i) = r.optimal;
        c(i) = costs.costs[static_cast<std::size_t>(i)];
    }
    py::dict out;
    out["start"] = start;
    out["goal"] = goal;
    out["optimal"] = optimal;
    out["cost"] = cost;
    return out;
}

// A float array of `n` values taken from `get(k)`.
template <class Get>
py::array_t<double> doubles(std::size_t n, Get&& get) {
    py::array_t<double> out(static_cast<py::ssize_t>(n));
    auto v = out.mutable_unchecked<1>();
    for (std::size_t k = 0; k < n; ++k) v(static_cast<py::ssize_t>(k)) = get(k);
    return out;
}

// tide sim: the world library's Simulation (as the CLI runs it) on the calling thread.
py::dict sim(const PyMap& m, std::vector<std::pair<int, int>> goals, int agents, double seconds, double dt,
             std::uint64_t seed, std::vector<std::pair<int, int>> flee, double flee_factor,
             const std::string& unit_class, int size, std::int64_t hierarchy_cells, py::object wall_margin,
             bool line_of_sight, py::object spawn, bool detail) {
    if (!goals.empty() && !flee.empty()) raise(tide::Error{"give goals (go there) or flee (run from there), not both"});
    if (goals.empty() && flee.empty()) {
        for (const auto& c : m.goals) goals.push_back({c.x, c.y});
        if (goals.empty()) raise(tide::Error{"give goals (this map has no built-in goals) or flee"});
    }
    if (size < 0) raise(tide::Error{"size " + std::to_string(size) + " is outside 1..8 (0: the class's own)"});
    tide::SimulationSettings settings;
    settings.flee = !flee.empty();
    settings.targets = to_cells(settings.flee ? flee : goals);
    settings.agents = agents;
    settings.seconds = seconds;
    settings.dt = dt;
    settings.detail = detail;
    if (!spawn.is_none()) {
        const auto a = spawn.cast<std::tuple<float, float, float, float>>();
        settings.spawn = tide::SpawnArea{std::get<0>(a), std::get<1>(a), std::get<2>(a), std::get<3>(a)};
    }
    tide::WorldConfig& config = settings.world;
    config.seed = seed;
    config.hierarchy_cells = hierarchy_cells;
    config.flee.factor = flee_factor;
    config.crowd.line_of_sight = line_of_sight;
    if (!wall_margin.is_none()) {
        const auto [radius, extra] = wall_margin.cast<std::pair<int, int>>();
        config.wall_margin = tide::WallMargin{radius, extra};
    }
    // As `tide sim --class --size`: sizes a World holds walk with bodies of their size on the
    // class's costs at size 1; bigger ones as size-1 bodies on the class's sized costs.
    const tide::UnitClass* c = tide::find_class(m.map, unit_class);
    const int planned_size = size > 0 ? size : (c ? c->size : 1);
    const int body_size = planned_size <= tide::kWorldUnitSizes ? planned_size : 1;
    tide::CostField cost = take(tide::class_cost_field(m.map, unit_class, body_size > 1 ? 1 : size));
    settings.unit_size = body_size;
    tide::SerialJobSystem jobs;
    std::unique_ptr<tide::Simulation> run;
    tide::SimulationReport r;
    run_unlocked([&] {
        auto created = tide::Simulation::create(jobs, "<python>", std::move(cost), settings);
        if (!created) return tide::Result<void>{created.error()};
        run = std::move(created.value());
        if (auto ran = run->run(); !ran) return ran;
        r = run->report();
        return tide::Result<void>{};
    });
    const std::size_t n = r.units.size();
    py::array_t<float> positions({static_cast<py::ssize_t>(n), py::ssize_t{2}});
    py::array_t<std::uint8_t> states(static_cast<py::ssize_t>(n));
    auto pv = positions.mutable_unchecked<2>();
    auto sv = states.mutable_unchecked<1>();
    for (std::size_t k = 0; k < n; ++k) {
        const auto i = static_cast<py::ssize_t>(k);
        pv(i, 0) = r.units[k].end.x;
        pv(i, 1) = r.units[k].end.y;
        sv(i) = static_cast<std::uint8_t>(r.units[k].state);
    }
    py::dict out;
    out["positions"] = positions;
    out["states"] = states;
    out["arrived"] = r.crowd.arrived;
    out["stuck"] = r.crowd.stuck;
    out["queued"] = r.crowd.queued;
    out["no_path"] = r.crowd.no_path;
    out["sidestepping"] = r.crowd.sidestepping;
    out["time"] = r.seconds;
    out["state_hash"] = r.state_hash;
    out["agents"] = r.agents;
    out["dt"] = r.dt;
    out["threads"] = r.threads;
    out["class"] = unit_class;
    out["size"] = planned_size;
    out["body_size"] = body_size;
    out["planner"] = r.hierarchical ? "hierarchical" : "flat";
    out["line_of_sight"] = line_of_sight;
    out["arrived_fraction"] = r.arrived_fraction;
    out["arrived_by_second"] =
        doubles(r.arrived_by_second.size(), [&](std::size_t k) { return r.arrived_by_second[k]; });
    out["arrival_s"] =
        doubles(n, [&](std::size_t k) { return r.units[k].arrival_s >= 0 ? r.units[k].arrival_s : NAN; });
    out["mean_arrival_s"] = r.mean_arrival_s;
    out["max_arrival_s"] = r.max_arrival_s;
    out["wall_penetrations"] = r.wall_penetrations;
    out["nan"] = r.nan;
    out["max_overlap"] = r.max_overlap;
    out["mean_step_ms"] = r.mean_step_ms;
    out["max_step_ms"] = r.max_step_ms;
    if (tide::has_margin(r.wall_margin)) out["wall_margin"] = std::make_pair(r.wall_margin.radius, r.wall_margin.extra);
    if (settings.flee) {
        out["flee_factor"] = flee_factor;
        out["danger_distance_mean_start"] = r.danger_distance_mean_start;
        out["danger_distance_mean_end"] = r.danger_distance_mean_end;
        out["danger_distance_min_end"] = r.danger_distance_min_end;
    }
    if (r.hierarchical) {
        out["graph_ms"] = r.graph_ms;
        out["sector_fields"] = r.sector_fields;
        out["sector_field_bytes"] = r.sector_field_bytes;
    }
    if (detail) {
        py::array_t<float> start({static_cast<py::ssize_t>(n), py::ssize_t{2}});
        auto st = start.mutable_unchecked<2>();
        for (std::size_t k = 0; k < n; ++k) {
            st(static_cast<py::ssize_t>(k), 0) = r.units[k].start.x;
            st(static_cast<py::ssize_t>(k), 1) = r.units[k].start.y;
        }
        out["start"] = start;
        out["path_length"] = doubles(n, [&](std::size_t k) { return r.units[k].path_length; });
        py::list names;
        for (const auto& u : r.units) names.append(u.stuck ? "stuck" : tide::agent_state_name(u.state));
        out["unit_states"] = names;
    }
    return out;
}

}  // namespace

PYBIND11_MODULE(tide, m) {
    m.doc() =
        "Tide: flow-field pathfinding and crowd steering. Cells are (x, y) = (column, row); "
        "arrays are indexed [y, x]; positions are in cell units.";
    g_error_type = py::reinterpret_borrow<py::object>(PyErr_NewExceptionWithDoc(
        "tide.Error", "A Tide error; `code` names its kind (\"on_wall\", \"parse_error\", ...).", PyExc_ValueError,
        nullptr));
    m.attr("Error") = g_error_type;
    m.attr("COST_WALL") = static_cast<int>(tide::kCostWall);
    static const std::string builtin_doc = [] {
        std::string names;
        for (const auto& n : tide::builtin_map_names()) names += (names.empty() ? "" : ", ") + n;
        return "A built-in map: " + names + ".";
    }();

    py::class_<PyMap, std::shared_ptr<PyMap>>(m, "Map", "A grid of entry costs: 1..254 passable, 255 a wall.")
        .def(py::init([](py::array costs) {
                 if (costs.ndim() != 2) raise(tide::Error{"costs must be a 2-D array (rows, columns)"});
                 const auto h = static_cast<int>(costs.shape(0)), w = static_cast<int>(costs.shape(1));
                 auto cost = take(tide::CostField::create(std::max(w, 1), std::max(h, 1)));
                 if (costs.shape(0) != cost.height() || costs.shape(1) != cost.width()) {
                     raise(tide::Error{"costs must be at least 1 x 1"});
                 }
                 // Every value is checked as given, never converted first: a cast to uint8 turned
                 // int64 300 into 44, int32 -1 into a wall and 1.9 into 1. Integer and float arrays
                 // are read through float64 (exact for every integer a cost can be).
                 const std::string dtype = py::str(costs.dtype());
                 const char kind = costs.dtype().kind();
                 if (kind != 'u' && kind != 'i' && kind != 'f') {
                     raise(tide::Error{"costs of dtype " + dtype + ": give integers 1..255 (uint8 is read as is)"});
                 }
                 auto values = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(costs);
                 if (!values) raise(tide::Error{"costs of dtype " + dtype + " cannot be read as numbers"});
                 const double* src = values.data();
                 auto cells = cost.cells();
                 for (std::size_t i = 0; i < cells.size(); ++i) {
                     const double v = src[i];
                     if (!(v >= 1.0 && v <= 255.0 && v == std::floor(v))) {
                         char text[64];
                         std::snprintf(text, sizeof text, "%.17g", v);
                         raise(tide::Error{"cost " + std::string(text) + " (" + dtype + ") at (" +
                                           std::to_string(i % w) + ", " + std::to_string(i / w) +
                                           ") is not a cost: passable costs are the integers 1..254, 255 a wall"});
                     }
                     cells[i] = static_cast<tide::Cost>(v);
                 }
                 return std::make_shared<PyMap>(PyMap{tide::Map{std::move(cost)}, {}});
             }),
             py::arg("costs"), "A map from a (height, width) array of costs (copied).")
        .def_static(
            "load",
            [](const std::string& path) {
                if (path.find('\0') != std::string::npos) {
                    raise(tide::Error{"path '" + path.substr(0, path.find('\0')) +
                                      "\\x00...' holds a NUL character (a file name cannot)"});
                }
                return std::make_shared<PyMap>(PyMap{take(tide::load_map(path)), {}});
            },
            py::arg("path"), "Reads a Moving AI .map or Tide text map.")
        .def_static(
            "parse",
            [](const std::string& text, const std::string& source) {
                return std::make_shared<PyMap>(PyMap{take(tide::parse_map(text, source)), {}});
            },
            py::arg("text"), py::arg("source") = "<text>", "Parses map text.")
        .def_static(
            "builtin",
            [](const std::string& name) {
                auto b = take(tide::make_builtin_map(name));
                return std::make_shared<PyMap>(PyMap{tide::Map{std::move(b.cost)}, std::move(b.goals)});
            },
            py::arg("name"), builtin_doc.c_str())
        .def_property_readonly("width", [](const PyMap& p) { return p.map.cost.width(); })
        .def_property_readonly("height", [](const PyMap& p) { return p.map.cost.height(); })
        .def_property_readonly(
            "costs",
            [](py::object self) {
                const auto& p = self.cast<const PyMap&>();
                return view(p.map.cost.cells().data(), p.map.cost.height(), p.map.cost.width(), self);
            },
            "(height, width) uint8 view of the costs (read-only; edit with set_cost).")
        .def_property_readonly(
            "goals",
            [](const PyMap& p) {
                std::vector<std::pair<int, int>> out;
                for (const auto& c : p.goals) out.push_back({c.x, c.y});
                return out;
            },
            "A built-in map's default goals (empty for other maps).")
        .def(
            "set_cost",
            [](PyMap& p, int x, int y, int cost) {
                if (!p.map.cost.contains(x, y)) {
                    raise(tide::Error{tide::ErrorCode::off_map, "cell (" + std::to_string(x) + ", " +
                                                                    std::to_string(y) + ") is outside the map"});
                }
                if (cost < 1 || cost > 255) raise(tide::Error{"cost " + std::to_string(cost) + " is outside 1..255"});
                p.map.cost.set(x, y, static_cast<tide::Cost>(cost));
            },
            py::arg("x"), py::arg("y"), py::arg("cost"));

    py::class_<tide::FlowField, std::shared_ptr<tide::FlowField>>(m, "Field", "An immutable flow field.")
        .def_property_readonly("width", &tide::FlowField::width)
        .def_property_readonly("height", &tide::FlowField::height)
        .def_property_readonly(
            "integration",
            [](py::object self) {
                const auto& f = self.cast<const tide::FlowField&>();
                return view(f.integration().data(), f.height(), f.width(), self);
            },
            "(height, width) float32 view: least cost to the nearest goal, inf where unreachable (no copy).")
        .def_property_readonly(
            "directions",
            [](py::object self) {
                const auto& f = self.cast<const tide::FlowField&>();
                return view(reinterpret_cast<const std::uint8_t*>(f.directions().data()), f.height(), f.width(), self);
            },
            "(height, width) uint8 view: 0..7 moves E, SE, S, SW, W, NW, N, NE; 8 goal, 9 unreachable, 10 wall.")
        .def_property_readonly(
            "flee", [](const tide::FlowField& f) { return f.kind() == tide::FieldKind::flee; },
            "True for a flee field (build_flee).")
        .def_property_readonly(
            "to_stop",
            [](py::object self) {
                const auto& f = self.cast<const tide::FlowField&>();
                return view(f.to_stop().data(), f.height(), f.width(), self);
            },
            "(height, width) float32 view: cost of following the flow to where it stops (a goal or a safe spot).")
        .def(
            "sample",
            [](const tide::FlowField& f, float x, float y) {
                const tide::Vec2 v = f.sample({x, y});
                return std::make_tuple(v.x, v.y);
            },
            py::arg("x"), py::arg("y"),
            "Wall-safe unit steering direction at a position: a step of up to one cell along it enters no wall "
            "and cuts no wall corner ((0, 0) at goals, walls, off the map).")
        .def(
            "blend",
            [](const tide::FlowField& f, float x, float y) {
                const tide::Vec2 v = f.blend({x, y});
                return std::make_tuple(v.x, v.y);
            },
            py::arg("x"), py::arg("y"), "The plain bilinear blend (smooth; near a wall it may point into it).")
        .def(
            "sample_many",
            [](const tide::FlowField& f, const FloatArray& xs, const FloatArray& ys) {
                return directions_of(xs, ys, [&f](auto x, auto y, auto ox, auto oy) { f.sample(x, y, ox, oy); });
            },
            py::arg("xs"), py::arg("ys"), "sample() for arrays of positions: an (n, 2) float32 array.");

    py::class_<PySteering>(m, "Steering",
                           "Directions for a host that moves its own units (include/tide/steering.hpp): raw move, "
                           "wall-safe sample and the straightened steer, in world units given by origin, cell_size "
                           "and flipped axes.")
        .def(py::init([](std::shared_ptr<tide::FlowField> field, std::shared_ptr<PyMap> map, float radius, int size,
                         int look_ahead, bool corners, std::pair<float, float> origin, float cell_size, bool flip_x,
                         bool flip_y) {
                 if (!field || !map) raise(tide::Error{"field and map are required"});
                 tide::SteerParams p;
                 p.radius = radius;
                 p.size = size;
                 p.look_ahead = look_ahead;
                 p.corners = corners;
                 tide::GridTransform t;
                 t.origin = {origin.first, origin.second};
                 t.cell_size = cell_size;
                 t.flip_x = flip_x;
                 t.flip_y = flip_y;
                 std::shared_ptr<const tide::FlowField> f = field;
                 auto made = take(tide::Steering::create(tide::FieldView(f), map->map.cost, p, t));
                 return PySteering{std::move(map), std::move(f), std::move(made), {}};
             }),
             py::arg("field"), py::arg("map"), py::arg("radius") = 0.0f, py::arg("size") = 1,
             py::arg("look_ahead") = tide::SteerParams{}.look_ahead, py::arg("corners") = true,
             py::arg("origin") = std::pair<float, float>{0.0f, 0.0f}, py::arg("cell_size") = 1.0f,
             py::arg("flip_x") = false, py::arg("flip_y") = false)
        .def(
            "move",
            [](const PySteering& s, float x, float y) {
                const tide::Vec2 v = s.steering.move({x, y});
                return std::make_tuple(v.x, v.y);
            },
            py::arg("x"), py::arg("y"), "The raw move of the cell under a world position.")
        .def(
            "sample",
            [](const PySteering& s, float x, float y) {
                const tide::Vec2 v = s.steering.sample({x, y});
                return std::make_tuple(v.x, v.y);
            },
            py::arg("x"), py::arg("y"), "The wall-safe direction at a world position.")
        .def(
            "steer",
            [](const PySteering& s, float x, float y) {
                const tide::Vec2 v = s.steering.steer({x, y});
                return std::make_tuple(v.x, v.y);
            },
            py::arg("x"), py::arg("y"), "The direction straightened by line of sight (looks every call).")
        .def(
            "sample_many",
            [](const PySteering& s, const FloatArray& xs, const FloatArray& ys) {
                return directions_of(xs, ys,
                                     [&s](auto x, auto y, auto ox, auto oy) { s.steering.sample(x, y, ox, oy); });
            },
            py::arg("xs"), py::arg("ys"), "sample() for arrays of world positions: (n, 2) float32.")
        .def(
            "steer_many",
            [](PySteering& s, const FloatArray& xs, const FloatArray& ys) {
                if (s.memory.size() != static_cast<std::size_t>(xs.shape(0)))
                    s.memory.assign(static_cast<std::size_t>(xs.shape(0)), tide::SteerMemory{});
                return directions_of(xs, ys, [&s](auto x, auto y, auto ox, auto oy) {
                    s.steering.steer(x, y, std::span<tide::SteerMemory>(s.memory), ox, oy);
                });
            },
            py::arg("xs"), py::arg("ys"),
            "steer() for units (row i is unit i, remembered between calls: looks again every few cells); a new "
            "length starts the memory afresh.")
        .def(
            "reset_memory", [](PySteering& s) { s.memory.clear(); }, "Forget what steer_many()'s units saw.")
        .def_property_readonly(
            "straightens", [](const PySteering& s) { return s.steering.straightens(); },
            "True when steer() straightens (a goal field on the map's own costs).");

    m.def(
        "build_field",
        [](const PyMap& map, const std::vector<std::pair<int, int>>& goals, double diagonal, int connectivity,
           const std::vector<std::pair<int, int>>& dangers, int danger_weight, double danger_radius) {
            return std::const_pointer_cast<tide::FlowField>(
                build(map, goals, diagonal, connectivity, dangers, tide::DangerCost{danger_weight, danger_radius}));
        },
        py::arg("map"), py::arg("goals"), py::arg("diagonal") = tide::FieldParams{}.diagonal_factor,
        py::arg("connectivity") = 8, py::arg("dangers") = std::vector<std::pair<int, int>>{},
        py::arg("danger_weight") = tide::DangerCost{}.weight, py::arg("danger_radius") = tide::DangerCost{}.radius,
        "Builds the field toward the nearest of `goals`, a list of (x, y); with `dangers`, a mixed field whose "
        "cells near a danger cost up to `danger_weight` more (nothing from `danger_radius` on).");
    m.def(
        "build_flee",
        [](const PyMap& map, const std::vector<std::pair<int, int>>& dangers, double factor, double diagonal,
           int connectivity) {
            return std::const_pointer_cast<tide::FlowField>(build_flee(map, dangers, factor, diagonal, connectivity));
        },
        py::arg("map"), py::arg("dangers"), py::arg("factor") = tide::FleeParams{}.factor,
        py::arg("diagonal") = tide::FieldParams{}.diagonal_factor, py::arg("connectivity") = 8,
        "Builds the flee field of `dangers` (docs/flee.md): integration holds the flee values (<= 0), "
        "direction 8 marks the safe spots.");

    py::class_<tide::Crowd>(m, "Crowd", "Agents steering along flow fields (see include/tide/crowd.hpp).")
        .def(py::init([](std::shared_ptr<PyMap> map) {
                 if (!map) raise(tide::Error{"map is None: a Crowd needs a tide.Map"});
                 return std::make_unique<tide::Crowd>(map->map.cost);
             }),
             py::arg("map"), py::keep_alive<1, 2>())
        .def(
            "add_group",
            [](tide::Crowd& c, std::shared_ptr<tide::FlowField> f, int unit_size, std::uint8_t movement_class) {
                if (!f) raise(tide::Error{"field is None: add_group needs a tide.Field (build_field, build_flee)"});
                return group_handle(
                    take(c.add_group(std::shared_ptr<const tide::FlowField>(std::move(f)), unit_size, movement_class)));
            },
            py::arg("field"), py::arg("unit_size") = 1, py::arg("movement_class") = 0,
            "Adds a group following `field`; only agents of its movement class may join it. Returns the handle "
            "(index, generation): a removed group's handle is refused (code 'not_found').")
        .def(
            "set_group_formation",
            [](tide::Crowd& c, GroupHandle g, const std::string& shape, float spacing, int columns,
               std::vector<std::pair<float, float>> offsets, std::pair<float, float> facing) {
                tide::Formation f;
                static const std::pair<const char*, tide::FormationShape> kShapes[] = {
                    {"none", tide::FormationShape::none},     {"line", tide::FormationShape::line},
                    {"column", tide::FormationShape::column}, {"box", tide::FormationShape::box},
                    {"wedge", tide::FormationShape::wedge},   {"custom", tide::FormationShape::custom}};
                bool known = false;
                for (const auto& [name, value] : kShapes) {
                    if (shape == name) f.shape = value, known = true;
                }
                if (!known) {
                    raise(tide::Error{"formation shape '" + shape.substr(0, 40) +
                                      "' is not one of none, line, column, box, wedge, custom"});
                }
                f.spacing = spacing;
                f.columns = columns;
                for (const auto& [x, y] : offsets) f.offsets.push_back({x, y});
                f.facing = {facing.first, facing.second};
                check(c.set_group_formation(group_id(g), f));
            },
            py::arg("group"), py::arg("shape"), py::arg("spacing") = 1.0f, py::arg("columns") = 0,
            py::arg("offsets") = std::vector<std::pair<float, float>>{},
            py::arg("facing") = std::pair<float, float>{0.0f, 0.0f},
            "Marches the group in a formation: shape 'line', 'column', 'box' (`columns` a rank, 0: about "
            "square), 'wedge' or 'custom' (`offsets`: (x right, y ahead) per slot), `spacing` cells apart, "
            "facing `facing` at the goal ((0, 0): the way it came); 'none' ends it.")
        .def(
            "group_formation",
            [](const tide::Crowd& c, GroupHandle g) {
                const tide::FormationState f = c.group_formation(group_id(g));
                py::dict d;
                d["active"] = f.active;
                d["arrived"] = f.arrived;
                d["anchor"] = py::make_tuple(f.anchor.x, f.anchor.y);
                d["heading"] = py::make_tuple(f.heading.x, f.heading.y);
                py::list slots;
                for (const tide::Vec2& p : f.slots) slots.append(py::make_tuple(p.x, p.y));
                d["slots"] = slots;
                d["error"] = f.error;
                d["reassignments"] = f.reassignments;
                d["units_reassigned"] = f.units_reassigned;
                return d;
            },
            py::arg("group"),
            "The group's formation after the last step: active, arrived (anchor at the goal), anchor, heading, "
            "slots (each slot's place), error (mean distance of the units to their slots), reassignments.")
        .def(
            "formation_slot",
            [](const tide::Crowd& c, std::pair<std::uint32_t, std::uint32_t> a) {
                return c.formation_slot(tide::AgentId{a.first, a.second});
            },
            py::arg("agent"), "The agent's slot in its group's formation (an index into slots), -1 when none.")
        .def(
            "movement_class", [](const tide::Crowd& c, GroupHandle g) { return c.movement_class(group_id(g)); },
            py::arg("group"), "A group's movement class (0 for an unknown group).")
        .def(
            "set_group_movement_class",
            [](tide::Crowd& c, GroupHandle g, std::uint8_t movement_class) {
                check(c.set_group_movement_class(group_id(g), movement_class));
            },
            py::arg("group"), py::arg("movement_class"),
            "Changes a group's movement class (refused while a member is of another class).")
        .def(
            "remove_group", [](tide::Crowd& c, GroupHandle g) { check(c.remove_group(group_id(g))); }, py::arg("group"),
            "Removes an empty group; its handle is stale from then on.")
        .def(
            "has_group", [](const tide::Crowd& c, GroupHandle g) { return c.has_group(group_id(g)); }, py::arg("group"),
            "True when the handle names a live group.")
        .def(
            "add_agent",
            [](tide::Crowd& c, float x, float y, GroupHandle g, py::object radius, py::object max_speed,
               std::uint64_t tag, std::uint8_t movement_class) {
                const tide::GroupId group = group_id(g);
                tide::AgentParams p = c.default_agent_params();
                if (!radius.is_none()) p.radius = radius.cast<float>();
                if (!max_speed.is_none()) p.max_speed = max_speed.cast<float>();
                p.user_tag = tag;
                p.movement_class = movement_class;
                const tide::AgentId id = take(c.add_agent({x, y}, group, p));
                return std::make_tuple(id.index, id.generation);
            },
            py::arg("x"), py::arg("y"), py::arg("group"), py::arg("radius") = py::none(),
            py::arg("max_speed") = py::none(), py::arg("tag") = 0, py::arg("movement_class") = 0,
            "Returns the handle (index, generation). The movement class must be the group's.")
        .def(
            "step",
            [](tide::Crowd& c, float dt, int steps) {
                if (steps < 0) raise(tide::Error{"steps " + std::to_string(steps) + " is negative"});
                run_unlocked([&] {
                    tide::Result<void> r;
                    for (int s = 0; s < steps && r; ++s) r = c.step(dt);
                    return r;
                });
            },
            py::arg("dt"), py::arg("steps") = 1)
        .def("__len__", &tide::Crowd::size)
        .def_property_readonly("time", &tide::Crowd::time)
        .def_property_readonly("state_hash", &tide::Crowd::state_hash)
        .def(
            "positions",
            [](const tide::Crowd& c) {
                const auto n = static_cast<py::ssize_t>(c.size());
                py::array_t<float> out({n, py::ssize_t{2}});
                tide::AgentBuffers b;
                b.positions = {reinterpret_cast<tide::Vec2*>(out.mutable_data()), static_cast<std::size_t>(n)};
                take(c.read_agents(b));
                return out;
            },
            "(agents, 2) float32 array of positions, in handle order (a copy).")
        .def(
            "states",
            [](const tide::Crowd& c) {
                std::vector<tide::AgentState> s(c.size());
                tide::AgentBuffers b;
                b.states = s;
                take(c.read_agents(b));
                py::list out;
                for (auto v : s) out.append(tide::agent_state_name(v));
                return out;
            },
            "State names ('moving', 'arrived', 'no_path', 'queued'), in handle order.")
        .def(
            "tags",
            [](const tide::Crowd& c) {
                py::array_t<std::uint64_t> out(static_cast<py::ssize_t>(c.size()));
                tide::AgentBuffers b;
                b.user_tags = {out.mutable_data(), c.size()};
                take(c.read_agents(b));
                return out;
            },
            "User tags given to add_agent, in handle order.");

    m.def("scen", &scen, py::arg("map"), py::arg("scen"), py::arg("diagonal") = tide::FieldParams{}.diagonal_factor,
          py::arg("connectivity") = 8,
          "Like `tide scen` (the same check): for every row of a Moving AI .scen file, the cost of Tide's "
          "path from start to goal ('cost', inf when unreachable) next to the published least cost "
          "('optimal'); numpy arrays.");
    m.def("sim", &sim, py::arg("map"), py::arg("goals") = std::vector<std::pair<int, int>>{}, py::arg("agents") = 1000,
          py::arg("seconds") = 30.0, py::arg("dt") = 1.0 / 60.0, py::arg("seed") = 1,
          py::arg("flee") = std::vector<std::pair<int, int>>{}, py::arg("flee_factor") = tide::FleeParams{}.factor,
          py::arg("unit_class") = "default", py::arg("size") = 0,
          py::arg("hierarchy_cells") = tide::WorldConfig{}.hierarchy_cells, py::arg("wall_margin") = py::none(),
          py::arg("line_of_sight") = true, py::arg("spawn") = py::none(), py::arg("detail") = false,
          "Like `tide sim` (the same World run, on the calling thread): `agents` units spawned at random "
          "(inside spawn=(x0, y0, x1, y1) when given) go to `goals` (a built-in map's own when none are given) "
          "or flee from the cells in `flee`, planning on `unit_class` at `size` (0: the class's own; sizes 1..3 "
          "walk with bodies of their size, bigger ones as size-1 bodies: 'body_size'), "
          "hierarchically on maps of at least `hierarchy_cells` cells, with wall_margin=(radius, extra); "
          "stepped for `seconds`. Returns the report: positions, states, arrival_s, arrived_by_second, "
          "mean/max arrival, wall_penetrations, max_overlap, step times, state_hash, planner, ...");
}
