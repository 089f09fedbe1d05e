#include "support/reference.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <sstream>
#include <utility>

namespace tide::test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Written out again rather than taken from flow_field.hpp, so a wrong table there is caught.
constexpr int kDx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
constexpr int kDy[8] = {0, 1, 1, 1, 0, -1, -1, -1};
constexpr int kTieOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};

std::size_t index_of(const CostField& cost, int x, int y) {
    return static_cast<std::size_t>(y) * static_cast<std::size_t>(cost.width()) + static_cast<std::size_t>(x);
}

}  // namespace

double move_length(int dir, const FieldParams& params) {
    return (dir % 2 == 1) ? params.diagonal_factor : 1.0;
}

bool legal_move(const CostField& cost, int x, int y, int dir, const FieldParams& params) {
    if (dir < 0 || dir > 7) return false;
    const bool diagonal = dir % 2 == 1;
    if (diagonal && params.connectivity == Connectivity::four) return false;
    if (!cost.passable(x, y)) return false;
    const int tx = x + kDx[dir];
    const int ty = y + kDy[dir];
    if (!cost.passable(tx, ty)) return false;
    if (diagonal) {
        // Both orthogonally adjacent cells must be passable: (tx, y) and (x, ty).
        if (!cost.passable(tx, y) || !cost.passable(x, ty)) return false;
    }
    return true;
}

double move_cost(const CostField& cost, int x, int y, int dir, const FieldParams& params) {
    return move_length(dir, params) * static_cast<double>(cost.at(x + kDx[dir], y + kDy[dir]));
}

std::vector<double> reference_distances(const CostField& cost, std::span<const Cell> goals, const FieldParams& params) {
    return reference_distances_in_rect(cost, goals, params, 0, 0, cost.width(), cost.height());
}

std::vector<double> reference_distances_in_rect(const CostField& cost, std::span<const Cell> goals,
                                                const FieldParams& params, int x0, int y0, int x1, int y1) {
    const int w = cost.width();
    const int h = cost.height();
    auto inside = [&](int x, int y) { return x >= x0 && y >= y0 && x < x1 && y < y1 && cost.contains(x, y); };
    std::vector<double> dist(static_cast<std::size_t>(w) * h, kInf);
    std::vector<bool> done(dist.size(), false);
    using Item = std::pair<double, std::size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
    for (const Cell& g : goals) {
        if (!inside(g.x, g.y)) continue;
        dist[index_of(cost, g.x, g.y)] = 0.0;
        queue.push({0.0, index_of(cost, g.x, g.y)});
    }
    while (!queue.empty()) {
        const auto [d, v] = queue.top();
        queue.pop();
        if (done[v]) continue;
        done[v] = true;
        const int vx = static_cast<int>(v % static_cast<std::size_t>(w));
        const int vy = static_cast<int>(v / static_cast<std::size_t>(w));
        // Reverse search: every cell u with a legal move u -> v gets d + cost of that move.
        for (int dir = 0; dir < 8; ++dir) {
            const int ux = vx - kDx[dir];
            const int uy = vy - kDy[dir];
            if (!inside(ux, uy) || !legal_move(cost, ux, uy, dir, params)) continue;
            const std::size_t u = index_of(cost, ux, uy);
            const double cand = d + move_cost(cost, ux, uy, dir, params);
            if (cand < dist[u]) {
                dist[u] = cand;
                queue.push({cand, u});
            }
        }
    }
    return dist;
}

bool close_to_reference(double got, double want) {
    if (std::isinf(want) || std::isinf(got)) return got == want;
    return std::abs(got - want) <= 1e-4 * std::abs(want) + 1e-6;
}

std::string check_field(const CostField& cost, std::span<const Cell> goals, const FieldParams& params,
                        const FlowField& field, const std::vector<double>& ref, bool exact_ties) {
    std::ostringstream faults;
    int count = 0;
    auto fault = [&](int x, int y, const std::string& what) {
        if (count++ < 8) faults << "(" << x << ", " << y << "): " << what << "\n";
    };
    if (field.width() != cost.width() || field.height() != cost.height()) return "field size differs from the map";
    if (field.integration().size() != cost.size() || field.directions().size() != cost.size()) {
        return "layer sizes differ from W*H";
    }
    std::vector<bool> is_goal(cost.size(), false);
    for (const Cell& g : goals) is_goal[index_of(cost, g.x, g.y)] = true;

    for (int y = 0; y < cost.height(); ++y) {
        for (int x = 0; x < cost.width(); ++x) {
            const std::size_t i = index_of(cost, x, y);
            const double want = ref[i];
            const double got = field.integration(x, y);
            const Direction d = field.direction(x, y);
            if (!close_to_reference(got, want)) {
                fault(x, y, "integration " + std::to_string(got) + ", reference " + std::to_string(want));
                continue;
            }
            if (!cost.passable(x, y)) {
                if (d != Direction::wall) fault(x, y, "wall without Direction::wall");
                if (got != kUnreachable) fault(x, y, "wall not kUnreachable");
                continue;
            }
            if (std::isinf(want)) {
                if (d != Direction::unreachable) fault(x, y, "cut-off cell without Direction::unreachable");
                if (field.next_index(x, y) != -1) fault(x, y, "cut-off cell with a next index");
                continue;
            }
            if (is_goal[i]) {
                if (d != Direction::goal) fault(x, y, "goal without Direction::goal");
                if (got != 0.0f) fault(x, y, "goal with non-zero integration");
                if (field.next_index(x, y) != -1) fault(x, y, "goal with a next index");
                continue;
            }
            if (!is_move(d)) {
                fault(x, y,
                      "reachable non-goal cell without a move (code " + std::to_string(static_cast<int>(d)) + ")");
                continue;
            }
            const int k = static_cast<int>(d);
            if (!legal_move(cost, x, y, k, params)) {
                fault(x, y, "illegal move " + std::to_string(k));
                continue;
            }
            const int tx = x + kDx[k];
            const int ty = y + kDy[k];
            if (field.next_index(x, y) != static_cast<std::int64_t>(index_of(cost, tx, ty))) {
                fault(x, y, "next_index does not match the direction");
            }
            const Vec2 v = field.vector(x, y);
            const double len = std::sqrt(double(kDx[k] * kDx[k] + kDy[k] * kDy[k]));
            if (std::abs(v.x - kDx[k] / len) > 1e-6 || std::abs(v.y - kDy[k] / len) > 1e-6) {
                fault(x, y, "vector does not match the direction");
            }
            const double via = move_cost(cost, x, y, k, params) + ref[index_of(cost, tx, ty)];
            if (!close_to_reference(via, want)) {
                fault(x, y,
                      "move " + std::to_string(k) + " costs " + std::to_string(via) + " in total, optimum " +
                          std::to_string(want));
                continue;
            }
            if (exact_ties) {
                // The first direction in tie order that reaches the optimum exactly must be chosen.
                int first = -1;
                for (int dir : kTieOrder) {
                    if (!legal_move(cost, x, y, dir, params)) continue;
                    const double alt =
                        move_cost(cost, x, y, dir, params) + ref[index_of(cost, x + kDx[dir], y + kDy[dir])];
                    if (alt == want) {
                        first = dir;
                        break;
                    }
                }
                if (first != k) {
                    fault(x, y, "tie broken towards " + std::to_string(k) + ", expected " + std::to_string(first));
                }
            }
        }
    }
    if (count > 8) faults << "... " << count << " faults in all\n";
    return faults.str();
}

std::string check_paths_reach_goal(const FlowField& field) {
    const int w = field.width();
    const std::int64_t cells = static_cast<std::int64_t>(w) * field.height();
    for (int y = 0; y < field.height(); ++y) {
        for (int x = 0; x < w; ++x) {
            if (!field.reachable(x, y)) continue;
            int cx = x;
            int cy = y;
            std::int64_t steps = 0;
            while (field.direction(cx, cy) != Direction::goal) {
                const std::int64_t next = field.next_index(cx, cy);
                if (next < 0 || next >= cells) {
                    return "path from (" + std::to_string(x) + ", " + std::to_string(y) + ") stops at (" +
                           std::to_string(cx) + ", " + std::to_string(cy) + ")";
                }
                cx = static_cast<int>(next % w);
                cy = static_cast<int>(next / w);
                if (++steps > cells) {
                    return "path from (" + std::to_string(x) + ", " + std::to_string(y) + ") cycles";
                }
            }
        }
    }
    return {};
}

}  // namespace tide::test
