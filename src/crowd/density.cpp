// The crowd's density for congestion layers (measure_density, include/tide/congestion.hpp): each
// moving agent's disc area and area x velocity, rounded once to integers and summed per cell, so
// the sums do not depend on the order agents are visited in.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tide/congestion.hpp"
#include "tide/crowd.hpp"

namespace tide {
namespace {

constexpr float kPi = 3.14159265358979f;

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
        const int x = std::clamp(static_cast<int>(p.x), 0, w - 1), y = std::clamp(static_cast<int>(p.y), 0, h - 1);
        const std::size_t c = static_cast<std::size_t>(y) * w + x;
        const auto area = static_cast<std::int32_t>(std::lround(kPi * r * r * kDensityScale));
        out.cover[c] += static_cast<std::uint32_t>(area);
        out.flow_x[c] += area * static_cast<std::int32_t>(std::lround(v.x * kFlowScale));
        out.flow_y[c] += area * static_cast<std::int32_t>(std::lround(v.y * kFlowScale));
    }
}

}  // namespace tide
