// What a HierarchicalField tells about cells: its sector fields, flow codes, costs to the goals,
// reachability, and the cost of the path it leads along.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "../grid/cell_checks.hpp"
#include "plan_state.hpp"
#include "tide/assert.hpp"

namespace tide {

using hier_detail::kInf;

const SectorField* HierarchicalField::sector_field(int s) const noexcept {
    if (s < 0 || s >= s_->graph->sector_count()) return nullptr;
    return s_->fields[static_cast<std::size_t>(s)].get();
}

Result<const SectorField*> HierarchicalField::ensure_field(int x, int y) {
    State& s = *s_;
    if (!s.cost->contains(x, y)) return detail::outside_error("cell", {x, y}, s.cost->width(), s.cost->height());
    const int sec = s.graph->sector_of(x, y);
    if (s.fields[static_cast<std::size_t>(sec)] == nullptr) {
        s.ensure_settled(sec);
        s.build_field(sec);
    }
    return s.fields[static_cast<std::size_t>(sec)].get();
}

Direction HierarchicalField::direction(int x, int y) const {
    TIDE_ASSERT(s_->cost->contains(x, y));
    const SectorField* f = s_->field_at(x, y);
    if (f == nullptr) return s_->cost->at(x, y) == kCostWall ? Direction::wall : Direction::unreachable;
    return f->directions[static_cast<std::size_t>(y - f->y0) * f->width + (x - f->x0)];
}

float HierarchicalField::integration(int x, int y) const {
    TIDE_ASSERT(s_->cost->contains(x, y));
    const SectorField* f = s_->field_at(x, y);
    if (f == nullptr) return kUnreachable;
    return f->integration[static_cast<std::size_t>(y - f->y0) * f->width + (x - f->x0)];
}

bool HierarchicalField::reachable(int x, int y) const {
    State& s = *s_;
    if (!s.cost->passable(x, y)) return false;
    s.start();
    const int sec = s.graph->sector_of(x, y);
    int x0, y0, x1, y1;
    s.graph->sector_rect(sec, x0, y0, x1, y1);
    s.search.load(*s.cost, x0, y0, x1, y1, s.graph->config().params);
    s.search.seed(x, y, 0.0);
    s.search.run();
    for (const Cell& c : s.goals_by_sector[static_cast<std::size_t>(sec)]) {
        if (s.search.value(s.search.local(c.x, c.y)) < kInf) return true;
    }
    for (std::int32_t i = s.graph->node_begin(sec); i < s.graph->node_begin(sec + 1); ++i) {
        const Cell c = s.graph->nodes()[static_cast<std::size_t>(i)].cell;
        if (s.search.value(s.search.local(c.x, c.y)) < kInf && s.in_goal_comp(i)) return true;
    }
    return false;
}

float HierarchicalField::to_go(int x, int y) const {
    const State& s = *s_;
    TIDE_ASSERT(s.cost->contains(x, y));
    if (const SectorField* f = s.field_at(x, y))
        return f->integration[static_cast<std::size_t>(y - f->y0) * f->width + (x - f->x0)];
    if (!s.started || !s.cost->passable(x, y)) return kUnreachable;
    const int sec = s.graph->sector_of(x, y);
    const double lo = s.graph->cheapest_cost();
    double best = kInf;
    for (std::int32_t i = s.graph->node_begin(sec); i < s.graph->node_begin(sec + 1); ++i) {
        const Cell c = s.graph->nodes()[static_cast<std::size_t>(i)].cell;
        const double gi = s.g[static_cast<std::size_t>(i)];
        if (gi < kInf) best = std::min(best, gi + lo * std::max(std::abs(c.x - x), std::abs(c.y - y)));
    }
    return best < kInf ? static_cast<float>(best) : kUnreachable;
}

Result<double> hierarchical_path_cost(HierarchicalField& field, const CostField& cost, Cell start, std::size_t* steps) {
    if (auto r = detail::check_open_cell(cost, start, "start"); !r) return r.error();
    double sum = 0.0;
    int x = start.x, y = start.y;
    const std::size_t limit = cost.size() + 1;
    for (std::size_t k = 0; k <= limit; ++k) {
        auto f = field.ensure_field(x, y);
        if (!f) return f.error();
        const SectorField& sf = **f;
        const Direction d = sf.directions[static_cast<std::size_t>(y - sf.y0) * sf.width + (x - sf.x0)];
        if (d == Direction::goal) {
            if (steps) *steps = k;
            return sum;
        }
        if (!is_move(d)) {
            if (steps) *steps = k;
            return std::numeric_limits<double>::infinity();
        }
        const int m = static_cast<int>(d);
        const double c = cost.at(x + kDirectionDx[m], y + kDirectionDy[m]);
        sum += (m & 1) ? c * field.diagonal_factor() : c;
        x += kDirectionDx[m];
        y += kDirectionDy[m];
    }
    return Error{ErrorCode::internal, "the hierarchical flow from " + detail::cell_text(start) + " loops (a bug)"};
}

}  // namespace tide
