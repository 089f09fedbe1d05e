// Congestion layers; see include/tide/congestion_layer.hpp (the density they start from is
// measured by the crowd: src/crowd/density.cpp).
//
// The density is kept in integers (each agent's disc area and area x velocity rounded once, then
// summed), so it does not depend on the order agents are visited in; the layer is computed from
// those integers cell by cell, serially. Window sums come from summed-area tables, so the splat
// radius costs nothing per cell.

#include "tide/congestion_layer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace tide {
namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 29);
}

std::string number(float v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", static_cast<double>(v));
    return text;
}

// Summed-area table of `value(i)` over a W x H grid: sat[(y + 1) * (W + 1) + x + 1] = sum over [0, x] x [0, y].
template <class T, class Fn>
void summed_area(int w, int h, std::vector<T>& sat, Fn value) {
    const std::size_t sw = static_cast<std::size_t>(w) + 1;
    sat.assign(sw * (static_cast<std::size_t>(h) + 1), T{0});
    for (int y = 0; y < h; ++y) {
        T row{0};
        for (int x = 0; x < w; ++x) {
            row += value(static_cast<std::size_t>(y) * w + x);
            sat[(y + 1) * sw + (x + 1)] = sat[y * sw + (x + 1)] + row;
        }
    }
}

template <class T>
T window(const std::vector<T>& sat, std::size_t sw, int x0, int y0, int x1, int y1) {
    return sat[(y1 + 1) * sw + (x1 + 1)] - sat[y0 * sw + (x1 + 1)] - sat[(y1 + 1) * sw + x0] + sat[y0 * sw + x0];
}

}  // namespace

Result<void> check_congestion_params(const CongestionParams& p) {
    if (!(p.refresh_hz >= 0.5f && p.refresh_hz <= 30.0f)) {
        return Error{"congestion refresh rate " + number(p.refresh_hz) + " Hz is outside 0.5..30"};
    }
    if (!(p.density_weight >= 0.0f && p.density_weight <= 253.0f)) {
        return Error{"congestion density weight " + number(p.density_weight) + " is outside 0..253"};
    }
    if (!(p.counter_weight >= 0.0f && p.counter_weight <= 253.0f)) {
        return Error{"congestion counter-flow weight " + number(p.counter_weight) + " is outside 0..253"};
    }
    if (!(p.threshold >= 0.0f && p.threshold <= 1.0f)) {
        return Error{"congestion threshold " + number(p.threshold) + " is outside 0..1"};
    }
    if (!(p.full >= p.threshold && p.full <= 1.0f)) {
        return Error{"congestion full coverage " + number(p.full) + " is outside threshold.." + "1"};
    }
    if (p.radius < 0 || p.radius > 8) {
        return Error{"congestion radius " + std::to_string(p.radius) + " is outside 0..8"};
    }
    if (p.max_extra < 0 || p.max_extra > kCostMax - 1) {
        return Error{"congestion max extra cost " + std::to_string(p.max_extra) + " is outside 0..253"};
    }
    return {};
}

Result<CongestionLayer> congestion_layer(const CrowdDensity& density, const CostField& cost, const FlowField* field,
                                         float top_speed, const CongestionParams& params) {
    if (auto r = check_congestion_params(params); !r) return r.error();
    const int w = cost.width(), h = cost.height();
    const std::size_t cells = static_cast<std::size_t>(w) * h;
    if (density.width != w || density.height != h || density.cover.size() != cells || density.flow_x.size() != cells ||
        density.flow_y.size() != cells) {
        return Error{"the density is measured on a " + std::to_string(density.width) + "x" +
                     std::to_string(density.height) + " map, the costs are " + std::to_string(w) + "x" +
                     std::to_string(h)};
    }
    if (field && (field->width() != w || field->height() != h)) {
        return Error{"the group's field is " + std::to_string(field->width()) + "x" + std::to_string(field->height()) +
                     ", the costs are " + std::to_string(w) + "x" + std::to_string(h)};
    }
    if (!(top_speed > 0.0f) || !std::isfinite(top_speed))
        return Error{"top speed " + number(top_speed) + " is not > 0"};
    const auto costs = cost.cells();
    std::vector<std::int64_t> open, cover, fx, fy;
    summed_area(w, h, open, [&](std::size_t i) { return std::int64_t{costs[i] != kCostWall}; });
    summed_area(w, h, cover, [&](std::size_t i) { return static_cast<std::int64_t>(density.cover[i]); });
    summed_area(w, h, fx, [&](std::size_t i) { return static_cast<std::int64_t>(density.flow_x[i]); });
    summed_area(w, h, fy, [&](std::size_t i) { return static_cast<std::int64_t>(density.flow_y[i]); });
    const std::size_t sw = static_cast<std::size_t>(w) + 1;
    CongestionLayer out;
    out.width = w;
    out.height = h;
    out.extra.assign(cells, 0);
    const int r = params.radius;
    const float to_cover = 1.0f / kDensityScale;
    const float to_against = 1.0f / (static_cast<float>(kDensityScale) * kFlowScale * top_speed);
    const float span = std::max(1e-6f, params.full - params.threshold);
    for (int y = 0; y < h; ++y) {
        const int y0 = std::max(0, y - r), y1 = std::min(h - 1, y + r);
        for (int x = 0; x < w; ++x) {
            const std::size_t c = static_cast<std::size_t>(y) * w + x;
            if (costs[c] == kCostWall) continue;
            const int x0 = std::max(0, x - r), x1 = std::min(w - 1, x + r);
            const std::int64_t n = window(open, sw, x0, y0, x1, y1);  // >= 1: c itself is open
            const std::int64_t area = window(cover, sw, x0, y0, x1, y1);
            if (area == 0) continue;
            const float covered = static_cast<float>(area) * to_cover / static_cast<float>(n);
            // The crowd's area-weighted velocity there, along the group's way (its flow; without a
            // field or a move, the speed itself).
            const float mx = static_cast<float>(window(fx, sw, x0, y0, x1, y1));
            const float my = static_cast<float>(window(fy, sw, x0, y0, x1, y1));
            float along = std::sqrt(mx * mx + my * my);
            if (field) {
                const Direction d = field->directions()[c];
                if (is_move(d)) {
                    const int k = static_cast<int>(d);
                    const float len = is_diagonal(d) ? 0.70710678f : 1.0f;
                    along = (mx * kDirectionDx[k] + my * kDirectionDy[k]) * len;
                }
            }
            const float against = std::max(0.0f, -along) * to_against / static_cast<float>(n);
            // Expected fraction of the terrain's speed: 1 in free flow, the crowd's own speed along
            // the way when dense, at least a tenth.
            const float terrain = static_cast<float>(costs[c]);
            const float free_speed = top_speed / terrain;
            const float crowd_speed = along / (static_cast<float>(area) * kFlowScale);
            const float crowd_share = std::clamp(crowd_speed / free_speed, 0.1f, 1.0f);
            const float blend = std::clamp((covered - params.threshold) / span, 0.0f, 1.0f);
            const float share = 1.0f - blend * (1.0f - crowd_share);
            const float extra =
                params.density_weight * terrain * (1.0f / share - 1.0f) + params.counter_weight * against;
            out.extra[c] = static_cast<std::uint8_t>(std::min(static_cast<float>(params.max_extra), extra + 0.5f));
        }
    }
    std::uint64_t hash = mix(0x636F6E676573ULL, (static_cast<std::uint64_t>(w) << 32) | static_cast<std::uint32_t>(h));
    for (std::size_t c = 0; c < cells; c += 8) {
        std::uint64_t word = 0;
        for (std::size_t k = 0; k < 8 && c + k < cells; ++k)
            word |= static_cast<std::uint64_t>(out.extra[c + k]) << (8 * k);
        hash = mix(hash, word);
    }
    out.hash = hash;
    return out;
}

Result<CostField> congestion_cost_field(const CostField& cost, const CongestionLayer& layer) {
    const std::size_t cells = static_cast<std::size_t>(cost.width()) * cost.height();
    if (layer.width != cost.width() || layer.height != cost.height() || layer.extra.size() != cells) {
        return Error{"the congestion layer is " + std::to_string(layer.width) + "x" + std::to_string(layer.height) +
                     ", the costs are " + std::to_string(cost.width()) + "x" + std::to_string(cost.height())};
    }
    CostField out = cost;
    auto out_cells = out.cells();
    for (std::size_t c = 0; c < cells; ++c) {
        const Cost v = out_cells[c];
        if (v == kCostWall) continue;
        out_cells[c] = static_cast<Cost>(std::min<int>(kCostMax, v + layer.extra[c]));
    }
    return out;
}

}  // namespace tide
