// Goal fields: the search from the goals, written out as a FlowField (integration + flow) or as
// the integration layer alone. The search itself is integration.cpp.

#include <cmath>

#include "move_codes.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

using namespace fields_detail;

}  // namespace

Result<void> FieldBuilder::build_integration(const CostField& cost, std::span<const Cell> goals,
                                             const FieldParams& params, std::pmr::vector<float>& out) {
    if (auto r = integrate(cost, goals, params, dist_, via_); !r) return r;
    const int w = cost.width();
    const int h = cost.height();
    const double scale = std::ldexp(1.0, -frac_);
    out.resize(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y) {
        const std::size_t p0 = static_cast<std::size_t>(y + 1) * pw_ + 1;
        float* dst = out.data() + static_cast<std::size_t>(y) * w;
        for (int x = 0; x < w; ++x) dst[x] = to_float(dist_[p0 + x] >> 8, via_[p0 + x], scale);
    }
    return {};
}

Result<void> FieldBuilder::build(const CostField& cost, std::span<const Cell> goals, const FieldParams& params,
                                 FlowField& out) {
    if (auto r = integrate(cost, goals, params, dist_, via_); !r) return r;
    write_field(cost, out);
    return {};
}

Result<void> FieldBuilder::build(const CostField& cost, std::span<const Cell> goals, const FieldParams& params,
                                 FlowField& out, FieldRepairState& state) {
    if (auto r = integrate(cost, goals, params, state.words_, state.ranks_); !r) return r;
    write_field(cost, out);
    keep_search(cost, goals, params, state);
    state.kind_ = FieldKind::goal;
    state.flee_values_.clear();
    state.flee_moves_.clear();
    state.flee_ends_.clear();
    state.dangers_.clear();
    state.danger_state_.clear();
    state.combined_.reset();
    return {};
}

void FieldBuilder::write_field(const CostField& cost, FlowField& out) const {
    const int w = cost.width();
    const int h = cost.height();
    const std::size_t cells = static_cast<std::size_t>(w) * h;
    out.width_ = w;
    out.height_ = h;
    out.kind_ = FieldKind::goal;
    out.to_stop_.clear();
    out.integration_.resize(cells);
    out.directions_.resize(cells);

    const Fixed* const dist = last_dist_;
    const Code* const via = last_via_;
    const double scale = std::ldexp(1.0, -frac_);
    for (int y = 0; y < h; ++y) {
        const std::size_t p0 = static_cast<std::size_t>(y + 1) * pw_ + 1;
        float* irow = out.integration_.data() + static_cast<std::size_t>(y) * w;
        // `via` holds the codes by rank: walls and cut-off cells get +inf.
        for (int x = 0; x < w; ++x) irow[x] = to_float(dist[p0 + x] >> 8, via[p0 + x], scale);
        Direction* drow = out.directions_.data() + static_cast<std::size_t>(y) * w;
        for (int x = 0; x < w; ++x)
            drow[x] = static_cast<Direction>(kRankToCode[static_cast<std::uint8_t>(via[p0 + x])]);
    }
}

void FieldBuilder::build_unreachable(const CostField& cost, FlowField& out) {
    const std::size_t cells = cost.size();
    out.width_ = cost.width();
    out.height_ = cost.height();
    out.kind_ = FieldKind::goal;
    out.to_stop_.clear();
    out.integration_.assign(cells, kUnreachable);
    out.directions_.resize(cells);
    const auto c = cost.cells();
    for (std::size_t i = 0; i < cells; ++i)
        out.directions_[i] = c[i] == kCostWall ? Direction::wall : Direction::unreachable;
    pw_ = ph_ = 0;  // nothing searched: exact_integration() has no values to give
    last_dist_ = nullptr;
    last_via_ = nullptr;
    settled_ = 0;
}

Result<FlowField> build_flow_field(const CostField& cost, std::span<const Cell> goals, const FieldParams& params) {
    FieldBuilder builder;
    FlowField field;
    if (auto r = builder.build(cost, goals, params, field); !r) return r.error();
    return field;
}

}  // namespace tide
