// tide verify: independent checks of a built field. It does not trust the builder: every claim is
// re-derived from the cost field alone.
//  1. walls carry Direction::wall and +inf; goals carry Direction::goal and 0;
//  2. every reachable non-goal cell has a legal move (on the map, passable, corner rule);
//  3. following the flow from every reachable cell reaches a goal without a cycle, and the summed
//     move costs along that walk equal the cell's integration value;
//  4. Bellman optimality: no legal move offers a cheaper (move cost + neighbour value);
//  5. unreachable cells have no direction and no passable neighbour with a finite value that a
//     legal move could use (so they really are cut off).
// Flee fields (--flee) get their own checks (FleeChecker): D, the least cost to the nearest danger,
// by an independent Dijkstra; every reached cell has V <= -k D; Bellman optimality (no legal move
// offers less than V, and V equals min(-k D, best move)); every move legal and tight; safe spots
// have no move cheaper than staying; the flow falls strictly to a safe spot without cycles, the
// summed move costs plus the safe spot's value equal V; unreached cells marked as such.

#include <cmath>
#include <cstdio>
#include <functional>
#include <queue>

#include "cli_common.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"
#include "tide/sample_check.hpp"

namespace tide::cli {
namespace {

struct VerifyOptions {
    std::string map;
    std::vector<std::string> goals;
    int random_goals = 0;
    std::uint64_t seed = 1;
    double diagonal = 1.4142135623730951;
    int connectivity = 8;
    ClassChoice unit_class;
    std::vector<std::string> flee;
    double flee_factor = FleeParams{}.factor;
    std::string wall_margin;
    int sample_lattice = 16;
};

// The wall-safe sampling guarantee (FlowField::sample(), tide/sample_check.hpp) on a lattice of
// lattice x lattice points in every cell next to a wall or the map's edge; 0: skipped. Prints one
// line; returns the number of faults.
std::size_t verify_sampling(const FlowField& field, int lattice) {
    if (lattice == 0) {
        std::printf("  wall-safe sampling: not checked (--sample-lattice 0)\n");
        return 0;
    }
    const FieldView view{std::shared_ptr<const FlowField>(&field, [](const FlowField*) {})};
    const SampleCheck check = check_sample_safety(view, lattice);
    std::printf("  wall-safe sampling: %zu positions (%dx%d per cell) in %zu cells next to walls or the edge: %s\n",
                check.positions, lattice, lattice, check.cells,
                check.faults ? (std::to_string(check.faults) + " fault(s)").c_str() : "OK");
    for (const SampleFault& f : check.first) {
        if (f.no_direction) {
            std::printf("    at (%g, %g): no direction in a cell with a move\n", f.position.x, f.position.y);
        } else {
            std::printf("    at (%g, %g): direction (%g, %g) reaches wall %s within %g cells\n", f.position.x,
                        f.position.y, f.direction.x, f.direction.y, cell_text(f.wall).c_str(), kSampleReach);
        }
    }
    return check.faults;
}

struct Checker {
    const CostField& cost;
    const FlowField& field;
    double diag;
    bool eight;
    std::size_t violations = 0;
    double max_walk_error = 0.0;
    double max_bellman_gap = 0.0;

    bool tolerant_equal(double a, double b) const {
        return std::fabs(a - b) <= 1e-5 * std::max(1.0, std::fabs(b)) + 1e-6;
    }
    void fail(int x, int y, const std::string& what) {
        if (violations < 20) std::fprintf(stderr, "violation at (%d, %d): %s\n", x, y, what.c_str());
        ++violations;
    }
    bool legal(int x, int y, int d) const {
        const int nx = x + kDirectionDx[d], ny = y + kDirectionDy[d];
        if (!cost.passable(nx, ny)) return false;
        if (d & 1) return eight && cost.passable(nx, y) && cost.passable(x, ny);
        return true;
    }
    double move_cost(int x, int y, int d) const {
        const double c = cost.at(x + kDirectionDx[d], y + kDirectionDy[d]);
        return (d & 1) ? c * diag : c;
    }

    void run() {
        const int w = cost.width(), h = cost.height();
        const std::size_t n = static_cast<std::size_t>(w) * h;
        // Pass 1: local rules.
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                const Direction d = field.direction(x, y);
                const float v = field.integration(x, y);
                if (!cost.passable(x, y)) {
                    if (d != Direction::wall || v != kUnreachable) fail(x, y, "wall without wall code or with a value");
                    continue;
                }
                if (d == Direction::wall) fail(x, y, "passable cell marked as wall");
                if (d == Direction::goal) {
                    if (v != 0.0f) fail(x, y, "goal with non-zero value");
                    continue;
                }
                // Best legal move by the optimality rule.
                double best = std::numeric_limits<double>::infinity();
                for (int k = 0; k < kDirectionCount; ++k) {
                    if (!legal(x, y, k)) continue;
                    const float nv = field.integration(x + kDirectionDx[k], y + kDirectionDy[k]);
                    if (nv == kUnreachable) continue;
                    best = std::min(best, move_cost(x, y, k) + static_cast<double>(nv));
                }
                if (d == Direction::unreachable) {
                    if (v != kUnreachable) fail(x, y, "unreachable cell with a finite value");
                    if (std::isfinite(best))
                        fail(x, y, "marked unreachable but a legal move leads to a reachable cell");
                    continue;
                }
                if (!is_move(d)) {
                    fail(x, y, "invalid direction code");
                    continue;
                }
                if (v == kUnreachable) fail(x, y, "cell with a move but an infinite value");
                const int k = static_cast<int>(d);
                if (!legal(x, y, k)) {
                    fail(x, y, "illegal move (off the map, into a wall or cutting a corner)");
                    continue;
                }
                const double chosen = move_cost(x, y, k) + field.integration(x + kDirectionDx[k], y + kDirectionDy[k]);
                max_bellman_gap = std::max(max_bellman_gap, std::fabs(chosen - best));
                if (!tolerant_equal(chosen, best)) fail(x, y, "chosen move is not the cheapest legal move");
                if (!tolerant_equal(best, v)) fail(x, y, "value differs from the best move cost + neighbour value");
            }
        }
        // Pass 2: walk the flow from every reachable cell; memoised, with cycle detection.
        std::vector<double> walked(n, -1.0);   // summed move costs to the goal, -1 = not yet known
        std::vector<std::uint8_t> mark(n, 0);  // 1 = on the current walk
        std::vector<std::size_t> stack;
        for (std::size_t start = 0; start < n; ++start) {
            if (walked[start] >= 0.0 || !is_move(field.directions()[start])) continue;
            std::size_t c = start;
            stack.clear();
            bool broken = false;
            while (walked[c] < 0.0) {
                const Direction d = field.directions()[c];
                if (d == Direction::goal) {
                    walked[c] = 0.0;
                    break;
                }
                if (!is_move(d) || mark[c]) {
                    broken = true;
                    fail(static_cast<int>(c % w), static_cast<int>(c / w),
                         mark[c] ? "the flow runs in a cycle" : "the flow leads to a cell without a move");
                    break;
                }
                mark[c] = 1;
                stack.push_back(c);
                const std::int64_t nx = field.next_index(static_cast<int>(c % w), static_cast<int>(c / w));
                c = static_cast<std::size_t>(nx);
            }
            double acc = broken ? std::numeric_limits<double>::quiet_NaN() : walked[c];
            for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
                const std::size_t s = *it;
                mark[s] = 0;
                const int x = static_cast<int>(s % w), y = static_cast<int>(s / w);
                acc += move_cost(x, y, static_cast<int>(field.directions()[s]));
                walked[s] = broken ? std::numeric_limits<double>::infinity() : acc;
                if (!broken) {
                    const double v = field.integration(x, y);
                    max_walk_error = std::max(max_walk_error, std::fabs(acc - v) / std::max(1.0, v));
                    if (!tolerant_equal(acc, v)) fail(x, y, "summed move costs along the flow differ from the value");
                }
            }
        }
    }
};

// Independent checks of a flee field (see the file comment); shares the move rules with Checker.
struct FleeChecker {
    Checker rules;  // legal(), move_cost(), fail(), tolerant_equal()
    std::span<const Cell> dangers;
    double factor;
    double max_bellman_gap = 0.0;
    std::size_t safe_spots = 0;

    // Least cost from every cell to the nearest danger: plain Dijkstra over reversed moves.
    std::vector<double> danger_distance() const {
        const CostField& cost = rules.cost;
        const int w = cost.width();
        std::vector<double> d(cost.size(), std::numeric_limits<double>::infinity());
        using Item = std::pair<double, std::size_t>;
        std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
        for (const Cell& c : dangers) {
            d[static_cast<std::size_t>(c.y) * w + c.x] = 0.0;
            queue.push({0.0, static_cast<std::size_t>(c.y) * w + c.x});
        }
        while (!queue.empty()) {
            const auto [v, i] = queue.top();
            queue.pop();
            if (v > d[i]) continue;
            const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
            for (int k = 0; k < kDirectionCount; ++k) {
                // The neighbour u = (x, y) - step k moves into (x, y) in direction k.
                const int ux = x - kDirectionDx[k], uy = y - kDirectionDy[k];
                if (!cost.passable(ux, uy) || !rules.legal(ux, uy, k)) continue;
                const std::size_t u = static_cast<std::size_t>(uy) * w + ux;
                const double cand = v + rules.move_cost(ux, uy, k);
                if (cand < d[u]) {
                    d[u] = cand;
                    queue.push({cand, u});
                }
            }
        }
        return d;
    }

    void run() {
        const CostField& cost = rules.cost;
        const FlowField& field = rules.field;
        const int w = cost.width(), h = cost.height();
        const std::vector<double> d = danger_distance();
        auto value = [&](int x, int y) { return static_cast<double>(field.integration(x, y)); };
        if (field.kind() != FieldKind::flee) rules.fail(0, 0, "the field is not a flee field");
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                const Direction dir = field.direction(x, y);
                const double v = value(x, y);
                const double start = -factor * d[static_cast<std::size_t>(y) * w + x];
                if (!cost.passable(x, y)) {
                    if (dir != Direction::wall || v != kUnreachable)
                        rules.fail(x, y, "wall without wall code or with a value");
                    continue;
                }
                if (!std::isfinite(start)) {
                    if (dir != Direction::unreachable || v != kUnreachable)
                        rules.fail(x, y, "no danger reaches the cell but it is not marked unreachable");
                    continue;
                }
                if (!std::isfinite(v)) {
                    rules.fail(x, y, "a danger reaches the cell but its value is infinite");
                    continue;
                }
                if (v > start && !rules.tolerant_equal(v, start)) rules.fail(x, y, "value above -k x danger distance");
                double best = std::numeric_limits<double>::infinity();
                for (int k = 0; k < kDirectionCount; ++k) {
                    if (!rules.legal(x, y, k)) continue;
                    best = std::min(best, rules.move_cost(x, y, k) + value(x + kDirectionDx[k], y + kDirectionDy[k]));
                }
                if (best < v && !rules.tolerant_equal(best, v))
                    rules.fail(x, y, "a legal move offers less than V (not optimal)");
                const double want = std::min(start, best);
                max_bellman_gap = std::max(max_bellman_gap, std::fabs(want - v));
                if (!rules.tolerant_equal(v, want)) rules.fail(x, y, "V differs from min(-k D, best move + neighbour)");
                if (dir == Direction::goal) {
                    ++safe_spots;
                    if (!rules.tolerant_equal(v, start)) rules.fail(x, y, "safe spot whose value is not its own -k D");
                    continue;
                }
                if (!is_move(dir)) {
                    rules.fail(x, y, "invalid direction code");
                    continue;
                }
                const int k = static_cast<int>(dir);
                if (!rules.legal(x, y, k)) {
                    rules.fail(x, y, "illegal move (off the map, into a wall or cutting a corner)");
                    continue;
                }
                const double chosen = rules.move_cost(x, y, k) + value(x + kDirectionDx[k], y + kDirectionDy[k]);
                if (!rules.tolerant_equal(chosen, v)) rules.fail(x, y, "the move does not reach V (not the best move)");
            }
        }
        // Walks: V falls at every move, the walk ends at a safe spot (so no cycle), and the summed
        // move costs plus the safe spot's value equal V.
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                if (!is_move(field.direction(x, y))) continue;
                int cx = x, cy = y;
                double sum = 0.0;
                for (std::size_t steps = 0; is_move(field.direction(cx, cy)); ++steps) {
                    const int k = static_cast<int>(field.direction(cx, cy));
                    if (steps > cost.size() || !rules.legal(cx, cy, k)) {
                        rules.fail(x, y, "the flow runs in a cycle or off its legal moves");
                        break;
                    }
                    sum += rules.move_cost(cx, cy, k);
                    const int nx = cx + kDirectionDx[k], ny = cy + kDirectionDy[k];
                    if (!(value(nx, ny) < value(cx, cy))) rules.fail(cx, cy, "V does not fall along the flow");
                    cx = nx;
                    cy = ny;
                }
                if (field.direction(cx, cy) != Direction::goal) {
                    rules.fail(x, y, "the flow does not end at a safe spot");
                } else if (!rules.tolerant_equal(sum + value(cx, cy), value(x, y))) {
                    rules.fail(x, y, "summed move costs to the safe spot plus its value differ from V");
                }
            }
        }
    }
};

void run_verify(const VerifyOptions& o) {
    const Map map = load_map_or_fail(o.map);
    // Fields for another class are checked against that class's costs, like the default's.
    PlanningCost planning = planning_cost(map, o.map, o.unit_class);
    if (!o.wall_margin.empty())
        planning.cost = wall_margin_cost_field(planning.cost, parse_wall_margin(o.wall_margin)).value();
    const CostField& cost = planning.cost;
    if (!o.flee.empty()) {
        if (!o.goals.empty() || o.random_goals > 0)
            throw Failure{"--flee checks one flee field: drop --goal and --random-goals"};
        const std::vector<Cell> dangers = parse_dangers(o.flee);
        for (const Cell& d : dangers) require_open_for_class(planning, d, "danger");
        const FieldParams params = make_params(o.diagonal, o.connectivity);
        FieldBuilder builder;
        FlowField field;
        check(builder.build_flee(cost, dangers, FleeParams{o.flee_factor}, params, field));
        FleeChecker checker{
            Checker{cost, field, params.connectivity == Connectivity::eight ? params.diagonal_factor : 1.0,
                    params.connectivity == Connectivity::eight},
            dangers, o.flee_factor};
        checker.run();
        std::string list;
        for (const Cell& d : dangers) list += cell_text(d) + " ";
        std::printf(
            "verify %s flee from %sk=%g: %dx%d cells, %zu reachable, %zu safe spots; checked codes, legal "
            "moves, V <= -k D, Bellman optimality (max gap %.3g), flow walks fall to a safe spot without "
            "cycles: %s\n",
            o.map.c_str(), list.c_str(), o.flee_factor, cost.width(), cost.height(), builder.settled_cells(),
            checker.safe_spots, checker.max_bellman_gap,
            checker.rules.violations ? (std::to_string(checker.rules.violations) + " violation(s)").c_str() : "OK");
        const std::size_t faults = verify_sampling(field, o.sample_lattice);
        if (checker.rules.violations + faults > 0)
            throw Failure{std::to_string(checker.rules.violations + faults) + " violation(s) found"};
        return;
    }
    std::vector<std::vector<Cell>> goal_sets;
    if (!o.goals.empty()) goal_sets.push_back(parse_goals(o.goals));
    for (const auto& goals : goal_sets)
        for (const Cell& g : goals) require_open_for_class(planning, g, "goal");
    if (o.random_goals < 0 || o.random_goals > 10000) throw Failure{"--random-goals must be 0..10000"};
    if (o.random_goals > 0) {
        std::vector<Cell> free_cells;
        for (int y = 0; y < cost.height(); ++y)
            for (int x = 0; x < cost.width(); ++x)
                if (cost.passable(x, y)) free_cells.push_back({x, y});
        if (free_cells.empty()) {
            throw Failure{o.map + ": the map has no passable cell" +
                          (planning.is_default() ? "" : " for " + planning.describe())};
        }
        SplitMix64 rng{o.seed};  // the project's one generator (tide/generate.hpp)
        for (int i = 0; i < o.random_goals; ++i) goal_sets.push_back({free_cells[rng.below(free_cells.size())]});
    }
    if (goal_sets.empty()) throw Failure{"give at least one --goal, --random-goals N or --flee X,Y"};
    const FieldParams params = make_params(o.diagonal, o.connectivity);
    FieldBuilder builder;
    FlowField field;
    const std::string class_text = planning.is_default() ? "" : " (" + planning.describe() + ")";
    std::size_t total_violations = 0;
    for (const auto& goals : goal_sets) {
        check(builder.build(cost, goals, params, field));
        Checker checker{cost, field, params.connectivity == Connectivity::eight ? params.diagonal_factor : 1.0,
                        params.connectivity == Connectivity::eight};
        checker.run();
        std::string goal_list;
        for (const Cell& g : goals) goal_list += cell_text(g) + " ";
        std::printf(
            "verify %s%s goals %s: %dx%d cells, %zu reachable; checked wall/goal codes, legal moves, "
            "Bellman optimality (max gap %.3g), flow walks reach a goal without cycles (max relative "
            "error of summed costs %.3g): %s\n",
            o.map.c_str(), class_text.c_str(), goal_list.c_str(), cost.width(), cost.height(), builder.settled_cells(),
            checker.max_bellman_gap, checker.max_walk_error,
            checker.violations ? (std::to_string(checker.violations) + " violation(s)").c_str() : "OK");
        total_violations += checker.violations + verify_sampling(field, o.sample_lattice);
    }
    if (total_violations > 0) throw Failure{std::to_string(total_violations) + " violation(s) found"};
}

}  // namespace

void add_verify_command(CLI::App& app) {
    auto o = std::make_shared<VerifyOptions>();
    auto* cmd = app.add_subcommand("verify", "Build fields and check them independently (exit 1 on any violation)");
    cmd->add_option("--map", o->map, "Map file, or @default")->required();
    cmd->add_option("--goal", o->goals, "Goal cell X,Y (repeat for several goals in one field)");
    cmd->add_option("--random-goals", o->random_goals, "Also verify N fields for random single goals");
    cmd->add_option("--seed", o->seed, "Seed for --random-goals");
    cmd->add_option("--flee", o->flee, "Check the flee field of these danger cells X,Y (repeatable) instead");
    cmd->add_option("--flee-factor", o->flee_factor, "With --flee: the factor k (default 1.2)");
    cmd->add_option("--sample-lattice", o->sample_lattice,
                    "Check wall-safe sampling at NxN points per cell next to walls (0: skip)")
        ->capture_default_str()
        ->check(CLI::Range(0, 256));
    add_wall_margin_option(*cmd, o->wall_margin);
    add_field_options(*cmd, o->diagonal, o->connectivity);
    add_class_options(*cmd, o->unit_class);
    cmd->footer(
        "With --class/--size, the fields of that class are built and checked against the class's own cost "
        "field (every check is re-derived from it). No published optimal lengths are involved; to compare "
        "against a .scen file use tide scen, whose lengths hold for the default class only.");
    cmd->callback([o] { run_verify(*o); });
}

}  // namespace tide::cli
