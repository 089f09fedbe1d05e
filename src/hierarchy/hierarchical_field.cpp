// HierarchicalField: creation, the settings check, accessors and sizes. Its state and where the
// rest of it lives: plan_state.hpp (docs/hierarchy.md has the method).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "../grid/cell_checks.hpp"
#include "plan_state.hpp"

namespace tide {

HierarchicalField::HierarchicalField(std::unique_ptr<State> state) : s_(std::move(state)) {}
HierarchicalField::HierarchicalField(HierarchicalField&&) noexcept = default;
HierarchicalField& HierarchicalField::operator=(HierarchicalField&&) noexcept = default;
HierarchicalField::~HierarchicalField() = default;

Result<void> check_route_config(const RouteConfig& config) {
    if (config.corridor < 0 || config.corridor > 4) {
        return Error{"corridor " + std::to_string(config.corridor) + " is outside 0..4"};
    }
    if (config.corner_reach < -1 || config.corner_reach > kMaxDimension) {
        return Error{"corner reach " + std::to_string(config.corner_reach) + " is outside -1.." +
                     std::to_string(kMaxDimension)};
    }
    if (config.refine_passes < 0 || config.refine_passes > 4) {
        return Error{"refine passes " + std::to_string(config.refine_passes) + " is outside 0..4"};
    }
    if (config.settle_budget < 0 || config.settle_budget > 16) {
        return Error{"settle budget " + std::to_string(config.settle_budget) + " is outside 0..16"};
    }
    if (config.short_route < 0) return Error{"short route " + std::to_string(config.short_route) + " is negative"};
    return {};
}

Result<HierarchicalField> HierarchicalField::create(const CostField& cost, const SectorGraph& graph,
                                                    std::span<const Cell> goals, const RouteConfig& config) {
    if (auto r = check_route_config(config); !r) return r.error();
    if (cost.width() != graph.width() || cost.height() != graph.height()) {
        return Error{"cost field is " + std::to_string(cost.width()) + "x" + std::to_string(cost.height()) +
                     ", the sector graph was built for " + std::to_string(graph.width()) + "x" +
                     std::to_string(graph.height())};
    }
    if (goals.empty()) return Error{"no goal given"};
    for (const Cell& c : goals) {
        if (auto r = detail::check_open_cell(cost, c, "goal"); !r) return r.error();
    }
    auto st = std::make_unique<State>();
    st->cost = &cost;
    st->graph = &graph;
    st->config = config;
    st->jobs = config.jobs;
    st->goals.assign(goals.begin(), goals.end());
    std::sort(st->goals.begin(), st->goals.end(),
              [](const Cell& a, const Cell& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    st->goals.erase(std::unique(st->goals.begin(), st->goals.end()), st->goals.end());
    st->goals_by_sector.resize(static_cast<std::size_t>(graph.sector_count()));
    for (const Cell& c : st->goals) {
        auto& list = st->goals_by_sector[static_cast<std::size_t>(graph.sector_of(c.x, c.y))];
        if (list.empty()) st->goal_sectors.push_back(graph.sector_of(c.x, c.y));
        list.push_back(c);
    }
    st->fields.resize(static_cast<std::size_t>(graph.sector_count()));
    HierarchicalField h(std::move(st));
    return h;
}

std::span<const Cell> HierarchicalField::goals() const noexcept {
    return s_->goals;
}
std::size_t HierarchicalField::built_sectors() const noexcept {
    return s_->built;
}
std::size_t HierarchicalField::field_bytes() const noexcept {
    return s_->bytes;
}
double HierarchicalField::diagonal_factor() const noexcept {
    return s_->graph->config().params.diagonal_factor;
}
const SectorGraph& HierarchicalField::graph() const noexcept {
    return *s_->graph;
}
const CostField& HierarchicalField::cost() const noexcept {
    return *s_->cost;
}

std::size_t HierarchicalField::memory_bytes() const noexcept {
    const State& s = *s_;
    return s.bytes + s.g.capacity() * sizeof(double) + s.next.capacity() * sizeof(std::int32_t) + s.settled.capacity() +
           s.goal_comp.capacity() + s.open.memory_bytes() + s.target.capacity() +
           s.unsettled.capacity() * sizeof(std::int32_t) + s.fields.capacity() * sizeof(std::unique_ptr<SectorField>) +
           s.slot_of.capacity() * sizeof(std::int32_t) + s.h_cache.capacity() * sizeof(double) +
           s.h_stamp.capacity() * sizeof(std::uint32_t) + s.sector_min_g.capacity() * sizeof(double) +
           (s.lm_to_min.capacity() + s.lm_from_max.capacity() + s.lm_from_eff.capacity()) * sizeof(float) +
           s.target_rects.capacity() * sizeof(State::Rect);
}

}  // namespace tide
