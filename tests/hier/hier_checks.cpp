#include "hier/hier_checks.hpp"

#include <cmath>
#include <map>
#include <sstream>

#include "support/reference.hpp"
#include "tide/generate.hpp"

namespace tide::test {

CostField weighted_map(int width, int height, double walls, HierCosts costs, std::uint64_t seed) {
    if (costs == HierCosts::presets) {
        RandomMapSpec spec;
        spec.width = width;
        spec.height = height;
        spec.walls = walls;
        spec.seed = seed;
        return std::move(generate_random_map(spec).value());
    }
    CostField cost = std::move(CostField::create(width, height).value());
    SplitMix64 rng{seed};
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            Cost c = costs == HierCosts::full_range ? static_cast<Cost>(1 + rng.below(kCostMax))
                                                    : static_cast<Cost>(5 + rng.below(36));
            if (rng.uniform() < walls) c = kCostWall;
            cost.set(x, y, c);
        }
    }
    return cost;
}

std::string params_text(const FieldParams& params) {
    if (params.connectivity == Connectivity::four) return "four-connected";
    return "factor " + std::to_string(params.diagonal_factor);
}

std::vector<int> flood_labels(const CostField& cost, const FieldParams& params) {
    const int w = cost.width();
    std::vector<int> label(cost.size(), -1);
    std::vector<Cell> stack;
    int next = 0;
    for (int y = 0; y < cost.height(); ++y) {
        for (int x = 0; x < w; ++x) {
            if (!cost.passable(x, y) || label[static_cast<std::size_t>(y) * w + x] >= 0) continue;
            label[static_cast<std::size_t>(y) * w + x] = next;
            stack.assign(1, Cell{x, y});
            while (!stack.empty()) {
                const Cell c = stack.back();
                stack.pop_back();
                for (int d = 0; d < kDirectionCount; ++d) {
                    if (!legal_move(cost, c.x, c.y, d, params)) continue;
                    const int nx = c.x + kDirectionDx[d], ny = c.y + kDirectionDy[d];
                    int& l = label[static_cast<std::size_t>(ny) * w + nx];
                    if (l >= 0) continue;
                    l = next;
                    stack.push_back({nx, ny});
                }
            }
            ++next;
        }
    }
    return label;
}

Cell random_open_cell(const CostField& cost, std::uint64_t& state) {
    SplitMix64 rng{state};
    for (;;) {
        const Cell c{static_cast<int>(rng.below(static_cast<std::uint64_t>(cost.width()))),
                     static_cast<int>(rng.below(static_cast<std::uint64_t>(cost.height())))};
        if (cost.passable(c.x, c.y)) {
            state = rng.state;
            return c;
        }
    }
}

FlowWalk walk_flow(HierarchicalField& field, const CostField& cost, const FieldParams& params, Cell start) {
    FlowWalk walk;
    auto where = [](Cell c) {
        std::ostringstream s;
        s << "(" << c.x << ", " << c.y << ")";
        return s.str();
    };
    Cell at = start;
    for (std::size_t k = 0; k <= cost.size(); ++k) {
        auto f = field.ensure_field(at.x, at.y);
        if (!f) {
            walk.fault = "ensure_field" + where(at) + ": " + f.error().message;
            return walk;
        }
        const Direction d = field.direction(at.x, at.y);
        const float here = field.integration(at.x, at.y);
        if (d == Direction::goal) {
            walk.reached = true;
            if (here != 0.0f) walk.fault = "goal " + where(at) + " has value " + std::to_string(here);
            return walk;
        }
        if (d == Direction::wall) {
            walk.fault = "walked into a wall at " + where(at);
            return walk;
        }
        if (!is_move(d)) return walk;  // no path from here
        const int m = static_cast<int>(d);
        if (!legal_move(cost, at.x, at.y, m, params)) {
            walk.fault = "illegal move " + std::to_string(m) + " from " + where(at) +
                         " (into a wall, off the map or across a wall corner)";
            return walk;
        }
        const double step = move_cost(cost, at.x, at.y, m, params);
        const Cell to{at.x + kDirectionDx[m], at.y + kDirectionDy[m]};
        if (auto g = field.ensure_field(to.x, to.y); !g) {
            walk.fault = "ensure_field" + where(to) + ": " + g.error().message;
            return walk;
        }
        const double there = field.integration(to.x, to.y);
        // Inside a sector the value drops by exactly the move's cost (up to float rounding); across a
        // border by at least that much.
        if (!(there <= here - step + 1e-5 * std::max(1.0, static_cast<double>(here)))) {
            walk.fault = "value " + std::to_string(here) + " at " + where(at) + ", " + std::to_string(there) + " at " +
                         where(to) + " after a move costing " + std::to_string(step);
            return walk;
        }
        walk.cost += step;
        ++walk.steps;
        at = to;
    }
    walk.fault = "no goal after " + std::to_string(cost.size()) + " steps from " + where(start);
    return walk;
}

std::string compare_graphs(const SectorGraph& got, const SectorGraph& want) {
    std::ostringstream out;
    int faults = 0;
    auto fault = [&](const std::string& what) {
        if (faults++ < 8) out << what << "\n";
    };
    if (got.width() != want.width() || got.height() != want.height() || got.sectors_x() != want.sectors_x() ||
        got.sectors_y() != want.sectors_y()) {
        return "dimensions or sector counts differ";
    }
    if (got.cheapest_cost() != want.cheapest_cost()) fault("cheapest cost differs");
    auto portal_text = [](const Portal& p) {
        std::ostringstream s;
        s << "{a " << p.sector_a << ", b " << p.sector_b << ", " << (p.vertical ? "vertical" : "horizontal") << ", "
          << p.first << ".." << p.last << ", node a (" << p.node_a.x << ", " << p.node_a.y << "), node b ("
          << p.node_b.x << ", " << p.node_b.y << ")}";
        return s.str();
    };
    const auto gp = got.portals();
    const auto wp = want.portals();
    if (gp.size() != wp.size())
        fault("portal count " + std::to_string(gp.size()) + ", rebuild " + std::to_string(wp.size()));
    for (std::size_t i = 0; i < std::min(gp.size(), wp.size()); ++i) {
        const Portal& a = gp[i];
        const Portal& b = wp[i];
        if (a.sector_a != b.sector_a || a.sector_b != b.sector_b || a.vertical != b.vertical || a.first != b.first ||
            a.last != b.last || a.node_a != b.node_a || a.node_b != b.node_b) {
            fault("portal " + std::to_string(i) + ": " + portal_text(a) + ", rebuild " + portal_text(b));
        }
    }
    const auto gn = got.nodes();
    const auto wn = want.nodes();
    if (gn.size() != wn.size())
        fault("node count " + std::to_string(gn.size()) + ", rebuild " + std::to_string(wn.size()));
    for (int s = 0; s <= got.sector_count(); ++s) {
        if (got.node_begin(s) != want.node_begin(s)) {
            fault("node_begin(" + std::to_string(s) + ") " + std::to_string(got.node_begin(s)) + ", rebuild " +
                  std::to_string(want.node_begin(s)));
            break;
        }
    }
    for (std::size_t i = 0; i < std::min(gn.size(), wn.size()); ++i) {
        if (gn[i].cell != wn[i].cell || gn[i].partner != wn[i].partner || gn[i].portal != wn[i].portal) {
            fault("node " + std::to_string(i) + " differs");
        }
    }
    if (faults > 0) return out.str();  // costs and components are indexed by node
    for (int s = 0; s < got.sector_count(); ++s) {
        const auto a = got.intra_costs(s);
        const auto b = want.intra_costs(s);
        if (a.size() != b.size()) {
            fault("sector " + std::to_string(s) + ": " + std::to_string(a.size()) + " intra costs, rebuild " +
                  std::to_string(b.size()));
            continue;
        }
        for (std::size_t k = 0; k < a.size(); ++k) {
            if (a[k] != b[k]) {
                fault("sector " + std::to_string(s) + " intra cost " + std::to_string(k) + ": " + std::to_string(a[k]) +
                      ", rebuild " + std::to_string(b[k]));
                break;
            }
        }
    }
    // Same partition: the label maps are bijections.
    std::map<std::int32_t, std::int32_t> forward, backward;
    for (std::size_t i = 0; i < gn.size(); ++i) {
        const auto a = got.component(static_cast<std::int32_t>(i));
        const auto b = want.component(static_cast<std::int32_t>(i));
        const auto [f, fnew] = forward.emplace(a, b);
        const auto [r, rnew] = backward.emplace(b, a);
        if (f->second != b || r->second != a) {
            fault("node " + std::to_string(i) + ": component partition differs");
            break;
        }
    }
    if (faults > 8) out << "... " << faults << " differences in all\n";
    return out.str();
}

}  // namespace tide::test
