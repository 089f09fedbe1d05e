// The crowd's density for congestion layers (measure_density, include/tide/congestion.hpp): each
// moving agent's disc area and area x velocity, rounded once to integers and summed per cell, so
// the sums do not depend on the order agents are visited in.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "../grid/float_to_int.hpp"
#include "tide/congestion.hpp"
#include "tide/crowd.hpp"

namespace tide {
namespace {

constexpr float kPi = 3.14159265358979f;
// Above any velocity a unit reaches (AgentParams::max_speed is at most 100 cells/s), in flow units:
// the bound only catches a value that is not a velocity (NaN).
constexpr int kMaxFlow = 128 * kFlowScale;

}  // namespace

void measure_density(const Crowd& crowd, const CostField& cost, CrowdDensity& out) {
    const int w = cost.width(), h = cost.height();
    const std::size_t cells = static_cast<std::size_t>(w) * h;
    out.width = w;
    out.height = h;
    out.cover.assign(cells, 0);
    out.flow_x.assign(cells, 0);
    out.flow_y.assign(cells, 0);
    for (const AgentId id : crowd.agents()) {
        // Units on their way only (walking or queued): a settled pack is where its group is going,
        // not a jam on the way.
        const AgentState st = crowd.state(id);
        if (st != AgentState::moving && st != AgentState::queued) continue;
        const Vec2 p = crowd.position(id);
        const Vec2 v = crowd.velocity(id);
        const float r = crowd.agent_params(id).radius;
        const int x = detail::clamped_int(p.x, 0, w - 1), y = detail::clamped_int(p.y, 0, h - 1);
        const std::size_t c = static_cast<std::size_t>(y) * w + x;
        const auto area = static_cast<std::int32_t>(std::lround(kPi * r * r * kDensityScale));
        out.cover[c] += static_cast<std::uint32_t>(area);
        out.flow_x[c] += area * detail::clamped_round(v.x * kFlowScale, -kMaxFlow, kMaxFlow);
        out.flow_y[c] += area * detail::clamped_round(v.y * kFlowScale, -kMaxFlow, kMaxFlow);
    }
}

}  // namespace tide
