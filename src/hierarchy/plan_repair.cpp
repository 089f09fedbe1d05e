// HierarchicalField::terrain_changed(): which sector fields an edit of the terrain may have made
// wrong are dropped, and the graph search starts again.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "../grid/cell_checks.hpp"
#include "plan_state.hpp"

namespace tide {

using hier_detail::kInf;

Result<void> HierarchicalField::terrain_changed(const CostField& cost, int x0, int y0, int x1, int y1) {
    if (cost.width() != s_->graph->width() || cost.height() != s_->graph->height()) {
        return Error{"cost field is " + std::to_string(cost.width()) + "x" + std::to_string(cost.height()) +
                     ", the plan's graph " + std::to_string(s_->graph->width()) + "x" +
                     std::to_string(s_->graph->height())};
    }
    s_->cost = &cost;
    return terrain_changed(x0, y0, x1, y1);
}

Result<void> HierarchicalField::terrain_changed(int x0, int y0, int x1, int y1) {
    State& s = *s_;
    for (const Cell& c : s.goals) {
        if (!s.cost->passable(c.x, c.y))
            return Error{ErrorCode::on_wall, "goal " + detail::cell_text(c) + " is on a wall after the edit"};
    }
    if (x0 > x1) std::swap(x0, x1);
    if (y0 > y1) std::swap(y0, y1);
    const SectorGraph& graph = *s.graph;
    x0 = std::clamp(x0 - 1, 0, graph.width() - 1);
    y0 = std::clamp(y0 - 1, 0, graph.height() - 1);
    x1 = std::clamp(x1 + 1, 0, graph.width() - 1);
    y1 = std::clamp(y1 + 1, 0, graph.height() - 1);
    const State::Rect edit{x0, y0, x1, y1};
    s.drop_fields_above(edit, s.edit_threshold(edit));
    // Node indices changed: search again from the goals. Cells a kept field had cut off may now
    // reach a goal through an opened wall: such fields go too. Kept fields may lead into dropped
    // ones: the next route() from their cells routes them again.
    s.started = false;
    s.start();
    for (auto& f : s.fields) {
        if (f) f->routed = false;
    }
    s.drop_opened_fields();
    return {};
}

double HierarchicalField::State::edit_threshold(const Rect& edit) const {
    const int x0 = edit.x0, y0 = edit.y0, x1 = edit.x1, y1 = edit.y1;
    const int n = graph->sector_size();
    auto min_value = [](const SectorField& f) {
        double m = kInf;
        for (float v : f.integration) m = std::min(m, static_cast<double>(v));
        return m;
    };
    double threshold = kInf;
    const double lo = graph->cheapest_cost();
    for (int sy = y0 / n; sy <= y1 / n; ++sy) {
        for (int sx = x0 / n; sx <= x1 / n; ++sx) {
            const int sec = sy * graph->sectors_x() + sx;
            if (const SectorField* f = fields[static_cast<std::size_t>(sec)].get()) {
                threshold = std::min(threshold, min_value(*f));
            }
            if (sec < static_cast<int>(sector_min_g.size())) {
                threshold = std::min(threshold, sector_min_g[static_cast<std::size_t>(sec)]);
            }
            for (int k = 0; k < kDirectionCount; ++k) {
                const int tx = sx + kDirectionDx[k], ty = sy + kDirectionDy[k];
                if (tx < 0 || ty < 0 || tx >= graph->sectors_x() || ty >= graph->sectors_y()) continue;
                if (const SectorField* f = fields[static_cast<std::size_t>(ty * graph->sectors_x() + tx)].get()) {
                    threshold = std::min(threshold, min_value(*f));
                }
            }
        }
    }
    for (const Cell& c : goals) {
        const int dx = std::max({0, x0 - c.x, c.x - x1}), dy = std::max({0, y0 - c.y, c.y - y1});
        threshold = std::min(threshold, lo * std::max(dx, dy));
    }
    return threshold;
}

void HierarchicalField::State::drop_fields_above(const Rect& edit, double threshold) {
    auto in_edit = [&](int sec) {
        int fx0, fy0, fx1, fy1;
        graph->sector_rect(sec, fx0, fy0, fx1, fy1);
        return fx1 > edit.x0 && fx0 <= edit.x1 && fy1 > edit.y0 && fy0 <= edit.y1;
    };
    for (int sec = 0; sec < graph->sector_count(); ++sec) {
        const SectorField* f = fields[static_cast<std::size_t>(sec)].get();
        if (f == nullptr) continue;
        double top = 0.0;
        for (float v : f->integration) {
            if (v < kUnreachable) top = std::max(top, static_cast<double>(v));
        }
        if (in_edit(sec) || top >= threshold) drop(sec);
    }
}

void HierarchicalField::State::drop_opened_fields() {
    for (int sec = 0; sec < graph->sector_count(); ++sec) {
        const SectorField* f = fields[static_cast<std::size_t>(sec)].get();
        if (f == nullptr) continue;
        if (std::find(f->directions.begin(), f->directions.end(), Direction::unreachable) == f->directions.end())
            continue;
        int fx0, fy0, fx1, fy1;
        graph->sector_rect(sec, fx0, fy0, fx1, fy1);
        search.load(*cost, fx0, fy0, fx1, fy1, graph->config().params);
        seed_goals(sec);
        for (std::int32_t i = graph->node_begin(sec); i < graph->node_begin(sec + 1); ++i) {
            const Cell c = graph->nodes()[static_cast<std::size_t>(i)].cell;
            if (in_goal_comp(i)) search.seed(c.x, c.y, 0.0);
        }
        search.run();
        bool opened = false;
        for (int y = fy0; y < fy1 && !opened; ++y) {
            for (int x = fx0; x < fx1 && !opened; ++x) {
                const std::size_t o = static_cast<std::size_t>(y - fy0) * f->width + (x - fx0);
                opened = f->directions[o] == Direction::unreachable && search.value(search.local(x, y)) < kInf;
            }
        }
        if (opened) drop(sec);
    }
}

}  // namespace tide
