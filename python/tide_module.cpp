// The Python module `tide`: maps from numpy cost arrays or files, flow fields whose layers are
// numpy views (no copy), the crowd, and scen/sim equivalents of the CLI commands.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "tide/crowd.hpp"
#include "tide/flow_field.hpp"
#include "tide/generate.hpp"
#include "tide/map_io.hpp"

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

std::shared_ptr<const tide::FlowField> build(const PyMap& m, const std::vector<std::pair<int, int>>& goals,
                                             double diagonal, int connectivity) {
    auto field = std::make_shared<tide::FlowField>();
    tide::FieldBuilder builder;
    const auto cells = to_cells(goals);
    {
        py::gil_scoped_release unlocked;
        auto r = builder.build(m.map.cost, cells, field_params(diagonal, connectivity), *field);
        if (!r) {
            py::gil_scoped_acquire locked;
            raise(r.error());
        }
    }
    return field;
}

const char* state_name(tide::AgentState s) {
    switch (s) {
        case tide::AgentState::moving:
            return "moving";
        case tide::AgentState::arrived:
            return "arrived";
        case tide::AgentState::no_path:
            return "no_path";
    }
    return "?";
}

// tide scen: the least cost from every row's start to its goal, next to the published optimum.
py::dict scen(const PyMap& m, const std::string& scen_path, double diagonal, int connectivity) {
    const auto rows = take(tide::load_scenarios(scen_path));
    check(tide::check_scenarios(rows, m.map.cost, scen_path));
    const auto n = static_cast<py::ssize_t>(rows.size());
    py::array_t<std::int32_t> start({n, py::ssize_t{2}}), goal({n, py::ssize_t{2}});
    py::array_t<double> optimal(n), cost(n);
    auto s = start.mutable_unchecked<2>();
    auto g = goal.mutable_unchecked<2>();
    auto o = optimal.mutable_unchecked<1>();
    auto c = cost.mutable_unchecked<1>();
    // Rows grouped by goal: one field answers every row of a goal.
    std::map<std::pair<int, int>, std::vector<py::ssize_t>> by_goal;
    for (py::ssize_t i = 0; i < n; ++i) by_goal[{rows[i].goal.x, rows[i].goal.y}].push_back(i);
    const tide::FieldParams params = field_params(diagonal, connectivity);
    tide::FieldBuilder builder;
    tide::FlowField field;
    for (const auto& [xy, members] : by_goal) {
        const tide::Cell goal_cell{xy.first, xy.second};
        check(builder.build(m.map.cost, {&goal_cell, 1}, params, field));
        for (py::ssize_t i : members) {
            const auto& r = rows[i];
            s(i, 0) = r.start.x;
            s(i, 1) = r.start.y;
            g(i, 0) = r.goal.x;
            g(i, 1) = r.goal.y;
            o(i) = r.optimal;
            const float v = field.integration(r.start.x, r.start.y);
            c(i) = std::isfinite(v) ? builder.exact_integration(r.start.x, r.start.y) : INFINITY;
        }
    }
    py::dict out;
    out["start"] = start;
    out["goal"] = goal;
    out["optimal"] = optimal;
    out["cost"] = cost;
    return out;
}

// tide sim: agents spawned on random cells that reach the goals, stepped for `seconds`.
py::dict sim(const PyMap& m, std::vector<std::pair<int, int>> goals, int agents, double seconds, double dt,
             std::uint64_t seed) {
    if (goals.empty()) {
        for (const auto& c : m.goals) goals.push_back({c.x, c.y});
    }
    if (agents < 0 || agents > 1'000'000)
        raise(tide::Error{"agents " + std::to_string(agents) + " is outside 0..1000000"});
    if (!(seconds >= 0.0 && seconds <= 3600.0)) raise(tide::Error{"seconds must be in 0..3600"});
    if (!(dt > 0.0 && dt <= 10.0)) raise(tide::Error{"dt must be in (0, 10]"});
    auto field = build(m, goals, tide::FieldParams{}.diagonal_factor, 8);
    tide::Crowd crowd(m.map.cost);
    const tide::GroupId group = take(crowd.add_group(field));
    std::vector<std::uint32_t> open;
    const int w = m.map.cost.width();
    for (int y = 0; y < m.map.cost.height(); ++y) {
        for (int x = 0; x < w; ++x) {
            if (field->reachable(x, y) && field->direction(x, y) != tide::Direction::wall) open.push_back(y * w + x);
        }
    }
    if (open.empty() && agents > 0) raise(tide::Error{tide::ErrorCode::on_wall, "no open cell reaches the goals"});
    tide::SplitMix64 rng{seed};
    for (int i = 0; i < agents; ++i) {
        const std::uint32_t c = open[rng.below(open.size())];
        const tide::Vec2 p{static_cast<float>(c % w) + 0.2f + 0.6f * static_cast<float>(rng.uniform()),
                           static_cast<float>(c / w) + 0.2f + 0.6f * static_cast<float>(rng.uniform())};
        take(crowd.add_agent(p, group));
    }
    const int steps = static_cast<int>(std::llround(seconds / dt));
    {
        py::gil_scoped_release unlocked;
        for (int s = 0; s < steps; ++s) {
            if (auto r = crowd.step(static_cast<float>(dt)); !r) {
                py::gil_scoped_acquire locked;
                raise(r.error());
            }
        }
    }
    const auto n = static_cast<py::ssize_t>(crowd.size());
    py::array_t<float> positions({n, py::ssize_t{2}});
    py::array_t<std::uint8_t> states(n);
    tide::AgentBuffers out;
    out.positions = {reinterpret_cast<tide::Vec2*>(positions.mutable_data()), static_cast<std::size_t>(n)};
    out.states = {reinterpret_cast<tide::AgentState*>(states.mutable_data()), static_cast<std::size_t>(n)};
    take(crowd.read_agents(out));
    py::dict result;
    result["positions"] = positions;
    result["states"] = states;
    result["arrived"] = crowd.stats().arrived;
    result["stuck"] = crowd.stats().stuck;
    result["time"] = crowd.time();
    result["state_hash"] = crowd.state_hash();
    return result;
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
        .def(py::init([](py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast> costs) {
                 if (costs.ndim() != 2) raise(tide::Error{"costs must be a 2-D array (rows, columns)"});
                 const auto h = static_cast<int>(costs.shape(0)), w = static_cast<int>(costs.shape(1));
                 auto cost = take(tide::CostField::create(std::max(w, 1), std::max(h, 1)));
                 if (costs.shape(0) != cost.height() || costs.shape(1) != cost.width()) {
                     raise(tide::Error{"costs must be at least 1 x 1"});
                 }
                 const std::uint8_t* src = costs.data();
                 auto cells = cost.cells();
                 for (std::size_t i = 0; i < cells.size(); ++i) {
                     if (src[i] == 0)
                         raise(tide::Error{"cost 0 at (" + std::to_string(i % w) + ", " + std::to_string(i / w) +
                                           ") (passable costs are 1..254)"});
                     cells[i] = src[i];
                 }
                 return std::make_shared<PyMap>(PyMap{tide::Map{std::move(cost)}, {}});
             }),
             py::arg("costs"), "A map from a (height, width) array of costs (copied).")
        .def_static(
            "load",
            [](const std::string& path) {
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
        .def(
            "sample",
            [](const tide::FlowField& f, float x, float y) {
                const tide::Vec2 v = f.sample({x, y});
                return std::make_tuple(v.x, v.y);
            },
            py::arg("x"), py::arg("y"), "Unit steering direction at a position ((0, 0) at goals, walls, off the map).");

    m.def(
        "build_field",
        [](const PyMap& map, const std::vector<std::pair<int, int>>& goals, double diagonal, int connectivity) {
            return std::const_pointer_cast<tide::FlowField>(build(map, goals, diagonal, connectivity));
        },
        py::arg("map"), py::arg("goals"), py::arg("diagonal") = tide::FieldParams{}.diagonal_factor,
        py::arg("connectivity") = 8, "Builds the field toward the nearest of `goals`, a list of (x, y).");

    py::class_<tide::Crowd>(m, "Crowd", "Agents steering along flow fields (see include/tide/crowd.hpp).")
        .def(py::init([](std::shared_ptr<PyMap> map) { return std::make_unique<tide::Crowd>(map->map.cost); }),
             py::arg("map"), py::keep_alive<1, 2>())
        .def(
            "add_group",
            [](tide::Crowd& c, std::shared_ptr<tide::FlowField> f, int unit_size) {
                return take(c.add_group(std::shared_ptr<const tide::FlowField>(std::move(f)), unit_size));
            },
            py::arg("field"), py::arg("unit_size") = 1)
        .def("remove_group", [](tide::Crowd& c, tide::GroupId g) { check(c.remove_group(g)); })
        .def(
            "add_agent",
            [](tide::Crowd& c, float x, float y, tide::GroupId group, py::object radius, py::object max_speed,
               std::uint64_t tag) {
                tide::AgentParams p = c.default_agent_params();
                if (!radius.is_none()) p.radius = radius.cast<float>();
                if (!max_speed.is_none()) p.max_speed = max_speed.cast<float>();
                p.user_tag = tag;
                const tide::AgentId id = take(c.add_agent({x, y}, group, p));
                return std::make_tuple(id.index, id.generation);
            },
            py::arg("x"), py::arg("y"), py::arg("group"), py::arg("radius") = py::none(),
            py::arg("max_speed") = py::none(), py::arg("tag") = 0, "Returns the handle (index, generation).")
        .def(
            "step",
            [](tide::Crowd& c, float dt, int steps) {
                py::gil_scoped_release unlocked;
                for (int s = 0; s < steps; ++s) {
                    if (auto r = c.step(dt); !r) {
                        py::gil_scoped_acquire locked;
                        raise(r.error());
                    }
                }
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
                for (auto v : s) out.append(state_name(v));
                return out;
            },
            "State names ('moving', 'arrived', 'no_path'), in handle order.")
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
          "Like `tide scen`: for every row of a Moving AI .scen file, the least cost from start to goal "
          "('cost') next to the published one ('optimal'); numpy arrays.");
    m.def("sim", &sim, py::arg("map"), py::arg("goals") = std::vector<std::pair<int, int>>{}, py::arg("agents") = 1000,
          py::arg("seconds") = 30.0, py::arg("dt") = 1.0 / 60.0, py::arg("seed") = 1,
          "Like `tide sim`: `agents` agents on random cells that reach the goals (a built-in map's own goals "
          "when none are given), stepped for `seconds`; positions, states and counts.");
}
