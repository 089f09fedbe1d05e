// tide field: build the integration and flow fields for one map and goal set (or the flee field of
// a set of dangers, or a mixed field: goals with a danger term); optionally edit the costs
// afterwards (each edit repaired in place, for every kind), and ask whether walling a rectangle
// would cut cells off (goal fields).

#include <charconv>
#include <cstdio>
#include <optional>

#include "cli_common.hpp"
#include "csv_writer.hpp"
#include "render.hpp"
#include "tide/field_builder.hpp"

namespace tide::cli {
namespace {

struct FieldOptions {
    std::string map;
    std::vector<std::string> goals;
    double diagonal = 1.4142135623730951;
    int connectivity = 8;
    ClassChoice unit_class;
    std::string dist_csv, next_csv, raw, png;
    int repeat = 0;
    std::vector<std::string> edits;
    std::string would_block;
    std::vector<std::string> spawns;
    std::vector<std::string> flee;  // danger cells of a flee field
    double flee_factor = FleeParams{}.factor;
    std::vector<std::string> dangers;  // danger cells of a mixed field
    int danger_weight = DangerCost{}.weight;
    double danger_radius = DangerCost{}.radius;
    std::string wall_margin;
};

// One --edit: an inclusive rectangle of cells and the cost it gets.
struct Edit {
    std::string text;  // the option value, for messages
    CellRect rect;
    Cost cost = kCostPlain;
};

// Parses exactly `count` comma-separated integers.
bool parse_ints(std::string_view text, int* out, int count) {
    for (int i = 0; i < count; ++i) {
        const auto comma = i + 1 < count ? text.find(',') : text.size();
        if (comma == std::string_view::npos) return false;
        const std::string_view part = text.substr(0, comma);
        const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), out[i]);
        if (part.empty() || ec != std::errc() || p != part.data() + part.size()) return false;
        text.remove_prefix(std::min(text.size(), comma + 1));
    }
    return true;
}

// "X0,Y0,X1,Y1" on the map, X0 <= X1 and Y0 <= Y1; `form` is the expected form for the message.
CellRect parse_rect(std::string_view text, const std::string& option, const std::string& value, const std::string& form,
                    const CostField& cost) {
    int v[4];
    if (!parse_ints(text, v, 4)) throw Failure{option + " '" + value + "' is not of the form " + form};
    const CellRect r{v[0], v[1], v[2], v[3]};
    if (r.x0 > r.x1 || r.y0 > r.y1) throw Failure{option + " '" + value + "': needs X0 <= X1 and Y0 <= Y1"};
    for (const Cell c : {Cell{r.x0, r.y0}, Cell{r.x1, r.y1}}) {
        if (!cost.contains(c)) {
            throw Failure{option + " '" + value + "': cell " + cell_text(c) + " is outside the " +
                          std::to_string(cost.width()) + "x" + std::to_string(cost.height()) + " map"};
        }
    }
    return r;
}

Edit parse_edit(const std::string& text, const CostField& cost) {
    const std::string form = "X0,Y0,X1,Y1=V (V a cost 1..254 or wall)";
    const auto eq = text.find('=');
    if (eq == std::string::npos) throw Failure{"--edit '" + text + "' is not of the form " + form};
    Edit e;
    e.text = text;
    e.rect = parse_rect(std::string_view(text).substr(0, eq), "--edit", text, form, cost);
    const std::string_view v = std::string_view(text).substr(eq + 1);
    int value = 0;
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
    if (v == "wall") {
        e.cost = kCostWall;
    } else if (!v.empty() && ec == std::errc() && p == v.data() + v.size() && value >= 1 && value <= kCostMax) {
        e.cost = static_cast<Cost>(value);
    } else {
        throw Failure{"--edit '" + text + "': cost '" + std::string(v) + "' is not 1..254 or wall"};
    }
    return e;
}

std::string edit_text(const Edit& e) {
    return std::to_string(e.rect.x0) + "," + std::to_string(e.rect.y0) + "," + std::to_string(e.rect.x1) + "," +
           std::to_string(e.rect.y1) + "=" + (e.cost == kCostWall ? std::string("wall") : std::to_string(e.cost));
}

// The costs the field is planned on: the class's costs, with the wall margin when one is given
// (then `base` keeps the costs without it, which edits go to).
struct PlanCosts {
    CostField& cost;            // planned on
    CostField* base = nullptr;  // edited, when a margin is derived from it
    WallMargin margin;
};

// Applies `e` to the costs and repairs `field`; returns the stats and sets `ms` to the repair's time.
// With a wall margin the edit goes to the base costs, the margin layer is derived again and the
// repair is told every cell whose planned cost changed (the edit grown by the margin's radius).
RepairStats apply_edit(FieldBuilder& builder, PlanCosts& plan, const Edit& e, FlowField& field, FieldRepairState& state,
                       double& ms) {
    Result<RepairStats> r = RepairStats{};
    if (!plan.base) {
        plan.cost.fill_rect(e.rect.x0, e.rect.y0, e.rect.x1, e.rect.y1, e.cost);
        const auto t0 = std::chrono::steady_clock::now();
        r = builder.repair_rect(plan.cost, e.rect.x0, e.rect.y0, e.rect.x1, e.rect.y1, field, state);
        ms = ms_since(t0);
    } else {
        plan.base->fill_rect(e.rect.x0, e.rect.y0, e.rect.x1, e.rect.y1, e.cost);
        const auto t0 = std::chrono::steady_clock::now();
        const CostField next = wall_margin_cost_field(*plan.base, plan.margin).value();
        std::vector<Cell> changed;
        for (int y = 0; y < next.height(); ++y)
            for (int x = 0; x < next.width(); ++x)
                if (next.at(x, y) != plan.cost.at(x, y)) changed.push_back({x, y});
        plan.cost = next;
        r = builder.repair(plan.cost, changed, field, state);
        ms = ms_since(t0);
    }
    if (!r) throw Failure{"--edit '" + e.text + "': " + r.error().message};
    return r.value();
}

// Puts the cells of every edit back to `original` and repairs the field to match (untimed).
void undo_edits(FieldBuilder& builder, PlanCosts& plan, const CostField& original, const std::vector<Edit>& edits,
                FlowField& field, FieldRepairState& state) {
    std::vector<Cell> cells;
    CostField& edited = plan.base ? *plan.base : plan.cost;
    for (const Edit& e : edits) {
        for (int y = e.rect.y0; y <= e.rect.y1; ++y) {
            for (int x = e.rect.x0; x <= e.rect.x1; ++x) {
                edited.set(x, y, original.at(x, y));
                cells.push_back({x, y});
            }
        }
    }
    if (plan.base) {
        const CostField next = wall_margin_cost_field(*plan.base, plan.margin).value();
        cells.clear();
        for (int y = 0; y < next.height(); ++y)
            for (int x = 0; x < next.width(); ++x)
                if (next.at(x, y) != plan.cost.at(x, y)) cells.push_back({x, y});
        plan.cost = next;
    }
    check(builder.repair(plan.cost, cells, field, state));
}

// What `tide field` builds: a goal field, a flee field (--flee) or a mixed field (--goal with --danger).
enum class Kind { goal, flee, mixed };

void run_field(const FieldOptions& o) {
    const Map map = load_map_or_fail(o.map);
    if (o.goals.empty() == o.flee.empty()) throw Failure{"give --goal (a goal field) or --flee (a flee field)"};
    const std::vector<Cell> goals = parse_goals(o.goals);
    const std::vector<Cell> flee = parse_dangers(o.flee);
    std::vector<Cell> dangers;
    for (const auto& t : o.dangers) dangers.push_back(parse_cell(t, "--danger"));
    if (!flee.empty() && !dangers.empty()) throw Failure{"--danger (a mixed field) needs --goal, not --flee"};
    const Kind kind = !flee.empty() ? Kind::flee : !dangers.empty() ? Kind::mixed : Kind::goal;
    if (kind != Kind::goal && !o.would_block.empty()) {
        throw Failure{"--would-block is for goal fields (without --flee or --danger)"};
    }
    const FieldParams params = make_params(o.diagonal, o.connectivity);
    if (o.repeat < 0 || o.repeat > 100000)
        throw Failure{"--repeat " + std::to_string(o.repeat) + " is outside 0..100000"};
    PlanningCost planning = planning_cost(map, o.map, o.unit_class);
    const WallMargin margin = o.wall_margin.empty() ? WallMargin{} : parse_wall_margin(o.wall_margin);
    std::optional<CostField> base;  // the class's costs without the margin (edits go there)
    if (has_margin(margin)) {
        base = planning.cost;
        planning.cost = wall_margin_cost_field(*base, margin).value();
    }
    for (const Cell& d : flee) require_open_for_class(planning, d, "danger");
    for (const Cell& d : dangers) require_open_for_class(planning, d, "danger");
    const DangerCost danger{o.danger_weight, o.danger_radius};
    const FleeParams flee_params{o.flee_factor};
    CostField& cost = planning.cost;  // edited in place by --edit
    PlanCosts plan{cost, base ? &*base : nullptr, margin};
    std::vector<Edit> edits;
    for (const auto& t : o.edits) edits.push_back(parse_edit(t, cost));
    std::optional<CellRect> block_rect;
    if (!o.would_block.empty()) {
        block_rect = parse_rect(o.would_block, "--would-block", o.would_block, "X0,Y0,X1,Y1", cost);
    }
    std::vector<Cell> spawns;
    for (const auto& t : o.spawns) {
        const Cell c = parse_cell(t, "--spawn");
        if (!cost.contains(c)) {
            throw Failure{"--spawn '" + t + "': cell " + cell_text(c) + " is outside the " +
                          std::to_string(cost.width()) + "x" + std::to_string(cost.height()) + " map"};
        }
        spawns.push_back(c);
    }
    if (!spawns.empty() && !block_rect) throw Failure{"--spawn is only used with --would-block"};
    for (const Cell& g : goals) require_open_for_class(planning, g, "goal");

    // Every kind is built with a repair state, so --edit repairs it in place.
    FieldBuilder builder;
    auto build = [&](FlowField& out, FieldRepairState* state) -> Result<void> {
        switch (kind) {
            case Kind::flee:
                return state ? builder.build_flee(cost, flee, flee_params, params, out, *state)
                             : builder.build_flee(cost, flee, flee_params, params, out);
            case Kind::mixed:
                return state ? builder.build_mixed(cost, goals, dangers, danger, params, out, *state)
                             : builder.build_mixed(cost, goals, dangers, danger, params, out);
            case Kind::goal:
                break;
        }
        return state ? builder.build(cost, goals, params, out, *state) : builder.build(cost, goals, params, out);
    };
    FlowField field;
    FieldRepairState state;
    auto t0 = std::chrono::steady_clock::now();
    check(build(field, &state));
    const double first_ms = ms_since(t0);

    if (o.repeat > 0) {  // one warm-up (the build above), then N timed builds
        FlowField scratch;
        std::vector<double> times;
        times.reserve(static_cast<std::size_t>(o.repeat));
        for (int i = 0; i < o.repeat; ++i) {
            t0 = std::chrono::steady_clock::now();
            check(build(scratch, nullptr));
            times.push_back(ms_since(t0));
        }
        std::printf("build_ms_median=%.6f\n", median(times));
    }

    if (!edits.empty()) {
        const CostField original = plan.base ? *plan.base : cost;
        for (const Edit& e : edits) {
            double ms = 0.0;
            const RepairStats s = apply_edit(builder, plan, e, field, state, ms);
            std::printf("edit %s: changed=%zu affected=%zu touched=%zu rebuilt=%s repair_ms=%.3f\n",
                        edit_text(e).c_str(), s.changed_cells, s.affected_cells, s.touched_cells,
                        s.rebuilt ? "yes" : "no", ms);
        }
        if (o.repeat > 0) {  // every round: back to the original field (untimed), then all edits (timed)
            std::vector<double> times;
            times.reserve(static_cast<std::size_t>(o.repeat));
            for (int i = 0; i < o.repeat; ++i) {
                undo_edits(builder, plan, original, edits, field, state);
                double round_ms = 0.0;
                for (const Edit& e : edits) {
                    double ms = 0.0;
                    apply_edit(builder, plan, e, field, state, ms);
                    round_ms += ms;
                }
                times.push_back(round_ms);
            }
            std::printf("repair_ms_median=%.6f\n", median(times));
        }
    }

    if (kind == Kind::flee) {
        std::size_t reachable = 0, safe = 0;
        float lowest = 0.0f;
        for (std::size_t i = 0; i < field.integration().size(); ++i) {
            const float v = field.integration()[i];
            if (v == kUnreachable) continue;
            ++reachable;
            lowest = std::min(lowest, v);
            safe += field.directions()[i] == Direction::goal ? 1 : 0;
        }
        std::printf(
            "map %s: %dx%d, %zu danger(s), flee factor %g, %zu reachable cells, %zu safe spots, lowest flee "
            "value %.6g, first build %.3f ms\n",
            o.map.c_str(), cost.width(), cost.height(), flee.size(), o.flee_factor, reachable, safe,
            static_cast<double>(lowest), first_ms);
        if (!o.dist_csv.empty()) write_values_csv(field, o.dist_csv);
        if (!o.next_csv.empty()) write_next_csv(field, o.next_csv);
        if (!o.raw.empty()) write_raw_layers(field, o.raw);
        if (!o.png.empty()) check(render::write_png(render::render_layers(cost, field, flee), o.png));
        return;
    }
    // A mixed field's values are costs on the combined costs (the map plus the danger term).
    std::optional<CostField> combined;
    if (kind == Kind::mixed) {
        auto c = FieldBuilder().danger_cost_field(cost, dangers, danger, params);
        check(c);
        combined.emplace(std::move(*c));
    }
    const CostField& planned = combined ? *combined : cost;
    std::size_t reachable = 0;
    float max_value = 0.0f;
    for (float v : field.integration()) {
        if (v != kUnreachable) {
            ++reachable;
            max_value = std::max(max_value, v);
        }
    }
    const std::string class_text = planning.is_default() ? "" : ", " + planning.describe();
    std::printf("map %s: %dx%d%s, %zu goal(s), %zu reachable cells, max integration %.6g, first build %.3f ms\n",
                o.map.c_str(), cost.width(), cost.height(), class_text.c_str(), goals.size(), reachable,
                static_cast<double>(max_value), first_ms);

    if (block_rect) {
        std::vector<Cell> walls;
        for (int y = block_rect->y0; y <= block_rect->y1; ++y)
            for (int x = block_rect->x0; x <= block_rect->x1; ++x) walls.push_back({x, y});
        auto answer = builder.would_block(cost, field, params, walls, spawns);
        if (!answer) throw Failure{"--would-block '" + o.would_block + "': " + answer.error().message};
        std::printf("blocks=%s\ncut_off_cells=%zu\n", answer->blocks ? "yes" : "no", answer->cut_off_cells);
        if (!spawns.empty()) std::printf("cut_off_spawns=%zu\n", answer->cut_off_spawns);
    }
    if (!o.dist_csv.empty()) write_dist_csv(planned, field, params, o.dist_csv);
    if (!o.next_csv.empty()) write_next_csv(field, o.next_csv);
    if (!o.raw.empty()) write_raw_layers(field, o.raw);
    if (!o.png.empty()) check(render::write_png(render::render_layers(planned, field, goals), o.png));
}

}  // namespace

void add_field_command(CLI::App& app) {
    auto o = std::make_shared<FieldOptions>();
    auto* cmd = app.add_subcommand("field", "Build the integration and flow fields for a map and goal(s)");
    cmd->add_option("--map", o->map, "Map file (.map or Tide text map), or @default")->required();
    cmd->add_option("--goal", o->goals, "Goal cell X,Y (repeat for several goals: nearest wins)");
    cmd->add_option("--flee", o->flee,
                    "Instead of --goal: a danger cell X,Y (repeatable); builds the flee field (--dist-csv then "
                    "holds the flee values, negative; --next-csv -1 at safe spots)");
    cmd->add_option("--flee-factor", o->flee_factor, "With --flee: the factor k of -k x danger distance (default 1.2)");
    cmd->add_option("--danger", o->dangers,
                    "With --goal: a danger cell X,Y (repeatable): a mixed field, whose cells near a danger cost more "
                    "(--danger-weight W on the danger, falling to 0 at --danger-radius R)");
    cmd->add_option("--danger-weight", o->danger_weight,
                    "Mixed field: extra cost on a danger cell, 0..253 (default 8)");
    cmd->add_option("--danger-radius", o->danger_radius,
                    "Mixed field: reach of the danger term in cost units (default 8 = eight plain cells)");
    add_wall_margin_option(*cmd, o->wall_margin);
    add_field_options(*cmd, o->diagonal, o->connectivity);
    add_class_options(*cmd, o->unit_class);
    cmd->add_option("--dist-csv", o->dist_csv,
                    "Write least costs (H lines of W values, inf when unreachable; flee values with --flee)");
    cmd->add_option("--next-csv", o->next_csv, "Write next-cell indices y*W+x (-1 for goals, walls, unreachable)");
    cmd->add_option("--raw", o->raw,
                    "Write the field's two layers as they are in memory: W*H float32 integration values "
                    "(little-endian), then W*H direction codes (0..7 moves, 8 none, 9 goal)");
    cmd->add_option("--png", o->png, "Write a picture of the three layers");
    cmd->add_option("--repeat", o->repeat,
                    "Build N more times after a warm-up; print build_ms_median=<ms>. With --edit, also "
                    "repair_ms_median=<ms>: N rounds of all edits from the unedited field, repairs timed");
    cmd->add_option("--edit", o->edits,
                    "After the build, set the cells of X0,Y0,X1,Y1 (inclusive, on the map) to cost V (1..254 or "
                    "wall) in the planning costs and repair the field (goal, flee or mixed); repeatable, applied in "
                    "order; one line each: "
                    "edit ...: changed= affected= touched= rebuilt= repair_ms=. Outputs describe the edited field");
    cmd->add_option("--would-block", o->would_block,
                    "After the build (and edits), would walling X0,Y0,X1,Y1 cut reachable cells off? Prints "
                    "blocks=yes|no and cut_off_cells=N; changes nothing");
    cmd->add_option("--spawn", o->spawns,
                    "With --would-block: a spawn cell X,Y (repeatable); blocks= then asks about the spawns only, "
                    "and cut_off_spawns=N is printed");
    cmd->callback([o] { run_field(*o); });
}

}  // namespace tide::cli
