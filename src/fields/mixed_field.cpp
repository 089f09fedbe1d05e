// Mixed fields ("go there, but keep away from that"): the goal field on the costs plus a danger
// term computed from the danger distance D (DangerCost), built and repaired. See docs/flee.md.
//
// The repair (repair_mixed) repairs D, recomputes the combined cost of the cells D changed, and
// repairs the goal search on the combined costs with those changes (repair.cpp does both searches).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "../grid/cell_checks.hpp"
#include "field_errors.hpp"
#include "move_codes.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

using namespace fields_detail;

}  // namespace

Result<void> FieldBuilder::check_danger_cost(const DangerCost& danger) const {
    if (danger.weight < 0 || danger.weight > kCostMax - 1) {
        return Error{"danger weight " + std::to_string(danger.weight) + " is outside 0..253"};
    }
    if (!(danger.radius > 0.0 && danger.radius <= 65536.0)) {
        return Error{"danger radius " + number_text(danger.radius) + " is outside (0, 65536]"};
    }
    return {};
}

// Sets the cells of `out` (padded indices; all cells when empty) to their combined cost: the cost
// of `cost` plus the danger term from D (dist, via, in fixed point with `frac` fraction bits).
// extra = round(weight x (R - D) / R) for D < R, in integers: R and D in the same fixed point (R
// below 2^41, so weight x 2 (R - D) stays far inside 64 bits).
void FieldBuilder::danger_costs(const CostField& cost, const Fixed* dist, const Code* via, int frac,
                                const DangerCost& danger, std::span<const std::int32_t> cells, CostField& out) const {
    const auto radius = static_cast<std::uint64_t>(std::llround(std::ldexp(danger.radius, frac)));
    const auto weight = static_cast<std::uint64_t>(danger.weight);
    const int w = cost.width();
    const int pw = w + 2;
    auto one = [&](std::size_t x, int xx, int yy) {
        const Cost c = cost.at(xx, yy);
        std::uint64_t extra = 0;
        if (static_cast<std::uint8_t>(via[x]) <= kGoalCode) {  // not a wall, and some danger reaches it
            const Fixed d = dist[x] >> 8;
            if (d < radius) extra = (2 * weight * (radius - d) + radius) / (2 * radius);
        }
        out.set(xx, yy, static_cast<Cost>(std::min<std::uint64_t>(c == kCostWall ? kCostWall : kCostMax, c + extra)));
    };
    if (cells.empty()) {
        for (int yy = 0; yy < cost.height(); ++yy) {
            const std::size_t p0 = static_cast<std::size_t>(yy + 1) * pw + 1;
            for (int xx = 0; xx < w; ++xx) one(p0 + static_cast<std::size_t>(xx), xx, yy);
        }
        return;
    }
    for (const std::int32_t p : cells) one(static_cast<std::size_t>(p), p % pw - 1, p / pw - 1);
}

Result<CostField> FieldBuilder::danger_cost_field(const CostField& cost, std::span<const Cell> dangers,
                                                  const DangerCost& danger, const FieldParams& params) {
    if (auto r = check_danger_cost(danger); !r) return r.error();
    if (auto r = check_dangers(cost, dangers); !r) return r.error();
    if (auto r = integrate(cost, dangers, params, dist_, via_); !r) return r.error();
    CostField out = cost;
    danger_costs(cost, dist_.data(), via_.data(), frac_, danger, {}, out);
    return out;
}

Result<void> FieldBuilder::build_mixed(const CostField& cost, std::span<const Cell> goals,
                                       std::span<const Cell> dangers, const DangerCost& danger,
                                       const FieldParams& params, FlowField& out) {
    auto combined = danger_cost_field(cost, dangers, danger, params);
    if (!combined) return combined.error();
    return build(*combined, goals, params, out);
}

Result<void> FieldBuilder::build_mixed(const CostField& cost, std::span<const Cell> goals,
                                       std::span<const Cell> dangers, const DangerCost& danger,
                                       const FieldParams& params, FlowField& out, FieldRepairState& state) {
    if (auto r = check_danger_cost(danger); !r) return r;
    if (auto r = check_dangers(cost, dangers); !r) return r;
    if (goals.empty()) return Error{"no goal given"};
    for (const Cell& g : goals) {
        if (auto r = detail::check_open_cell(cost, g, "goal"); !r) return r;
    }
    std::pmr::memory_resource* const memory = state.goals_.get_allocator().resource();
    FieldRepairState d(memory);
    if (auto r = integrate(cost, dangers, params, d.words_, d.ranks_); !r) return r;
    keep_search(cost, dangers, params, d);
    CostField combined(cost, memory);
    danger_costs(cost, d.words_.data(), d.ranks_.data(), frac_, danger, {}, combined);
    if (auto r = build(combined, goals, params, out, state); !r) return r;
    state.dangers_.assign(d.goals_.begin(), d.goals_.end());
    state.danger_ = danger;
    state.danger_state_.push_back(std::move(d));
    state.combined_.emplace(std::move(combined));
    return {};
}

Result<RepairStats> FieldBuilder::repair_mixed(const CostField& cost, FlowField& field, FieldRepairState& state) {
    RepairStats stats;
    stats.changed_cells = changed_.size();
    if (changed_.empty()) return stats;
    const int pw = state.width_ + 2;
    // Refused before anything changes: a goal or a danger walled.
    if (auto r = refuse_walled(changed_, state.goals_, pw, "goal"); !r) return r.error();
    if (auto r = refuse_walled(changed_, state.dangers_, pw, "danger"); !r) return r.error();
    FieldRepairState& d = state.danger_state_.front();
    auto dr = repair_changes(cost, nullptr, d);
    if (!dr) return dr.error();
    // The combined cost of every cell whose D (or cost) changed, and the changes it makes.
    CostField& combined = *state.combined_;
    flee_dirty_.clear();
    if (dr->rebuilt) {
        for (int y = 0; y < state.height_; ++y)
            for (int x = 0; x < state.width_; ++x) flee_dirty_.push_back((y + 1) * pw + x + 1);
    } else {
        flee_dirty_.assign(touched_.begin(), touched_.end());
    }
    changed_.clear();
    for (const std::int32_t p : flee_dirty_) {
        const Cost before = combined.at(p % pw - 1, p / pw - 1);
        changed_.push_back({p, before, before});
    }
    danger_costs(cost, d.words_.data(), d.ranks_.data(), d.frac_, state.danger_, flee_dirty_, combined);
    std::size_t kept = 0;
    for (Change& c : changed_) {
        c.after = combined.at(c.cell % pw - 1, c.cell / pw - 1);
        if (c.after != c.before) changed_[kept++] = c;
    }
    changed_.resize(kept);
    auto r = repair_changes(combined, &field, state);
    if (!r) return r.error();  // cannot happen: goals were checked above
    stats.affected_cells = r->affected_cells;
    stats.touched_cells = r->touched_cells;
    stats.rebuilt = r->rebuilt || dr->rebuilt;
    return stats;
}

}  // namespace tide
