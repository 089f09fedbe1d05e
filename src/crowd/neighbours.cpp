// Neighbour search: one agent's scan of the proximity grid (spatial_hash.hpp) for separation,
// overlaps, contacts, the agents ahead of it and the arrived ones it touches.

#include <algorithm>
#include <cmath>

#include "phases.hpp"

namespace tide::crowd_detail {
namespace {

// The entries in [from, stop) other than k whose centres are nearer to (x, y) than (r + their
// radius) x factor, into hits in entry order; returns how many. Without branches: most candidates
// fail the test, which a branch would mispredict.
inline std::uint32_t in_range(const StepView& v, std::uint32_t k, float x, float y, float r, float factor,
                              std::uint32_t from, std::uint32_t stop, std::uint32_t* hits) {
    std::uint32_t n_hits = 0;
    for (std::uint32_t k2 = from; k2 < stop; ++k2) {
        const float dx = x - v.px[k2], dy = y - v.py[k2];
        const float range = (r + v.radius[k2]) * factor;
        hits[n_hits] = k2;
        n_hits += (dx * dx + dy * dy < range * range) & (k2 != k);
    }
    return n_hits;
}

// Keeps the kMaxContacts nearest contact candidates: adds entry k2 at distance d to the n kept
// (contacts, with their distances in contact_d), replacing the farthest once they are full (the
// first of equals). Returns the new count.
inline std::uint32_t keep_nearest(std::uint32_t* contacts, float* contact_d, std::uint32_t n, std::uint32_t k2,
                                  float d) {
    if (n < kMaxContacts) {
        contacts[n] = k2;
        contact_d[n] = d;
        return n + 1;
    }
    std::uint32_t far = 0;
    for (std::uint32_t c = 1; c < kMaxContacts; ++c)
        if (contact_d[c] > contact_d[far]) far = c;
    if (d < contact_d[far]) {
        contacts[far] = k2;
        contact_d[far] = d;
    }
    return n;
}

}  // namespace

Neighbourhood gather_neighbours(const StepView& v, const detail::SpatialHash& hash, std::uint32_t k, bool moving,
                                std::uint32_t* contacts, std::uint8_t& n_contacts_out) {
    struct Run {
        std::uint32_t from, to;
    };
    Run runs[16];  // at most 4 rows of at most 4 buckets (a reach of at most one bucket width)
    int n_runs = 0;
    const float x = v.px[k], y = v.py[k], r = v.radius[k];
    const bool wakes = v.sleep && v.rest[k] == 0;  // an active agent wakes the sleepers in its range
    const bool full = moving || wakes;
    // The kept range: the interaction range, or (not moving) a little more than the contact reach,
    // so that rounding never drops an agent the tests against kContactReach, 1.05 and 1 keep.
    const float factor = full ? v.separation_range : std::min(v.separation_range, kContactReach * 1.01f);
    // No agent beyond (r + max_radius) x factor on either axis can be in range.
    hash.for_each_near(x, y, (r + v.max_radius) * factor, [&](std::uint32_t from, std::uint32_t to) {
        runs[n_runs++] = {from, to};
    });
    float sx = 0.0f, sy = 0.0f, ox = 0.0f, oy = 0.0f, px_fix = 0.0f, py_fix = 0.0f, vx_fix = 0.0f, vy_fix = 0.0f;
    bool touches = false, touches_any = false, leaving = false, near_arrived = false;
    std::uint32_t near = 0;
    float oncoming = 0.0f, gx = 0.0f, gy = 0.0f;
    bool blocked = false, blocked_others = false;
    const bool squeezer = v.squeezes(k);
    const float hxi = v.hx[k], hyi = v.hy[k];
    float contact_d[kMaxContacts];
    std::uint32_t n_contacts = 0;
    const std::uint32_t i = v.slot[k], group = v.group[k];
    const float own_vx = v.vx[k], own_vy = v.vy[k];
    for (int q = 0; q < n_runs; ++q) {
        std::uint32_t from = runs[q].from;
        const std::uint32_t to = runs[q].to;
        constexpr std::uint32_t kBlock = 64;
        std::uint32_t hits[kBlock];
        while (from < to) {
            const std::uint32_t stop = std::min(to, from + kBlock);
            const std::uint32_t n_hits = in_range(v, k, x, y, r, factor, from, stop, hits);
            from = stop;
            for (std::uint32_t h = 0; h < n_hits; ++h) {
                const std::uint32_t k2 = hits[h];
                // A unit long held up by other groups squeezes past their standing units (and they
                // let it): neither sees the other.
                if (v.group[k2] != group && ((squeezer && !v.walking(k2)) || (v.squeezes(k2) && !v.walking(k))))
                    continue;
                float dx = x - v.px[k2], dy = y - v.py[k2];
                const float rr = r + v.radius[k2];
                const float range = rr * v.separation_range;
                float d2 = dx * dx + dy * dy;
                if (d2 < 1e-12f) {  // exactly on top of each other: split by slot order
                    dx = i < v.slot[k2] ? 1e-3f : -1e-3f;
                    dy = 0.0f;
                    d2 = dx * dx;
                }
                const float d = std::sqrt(d2);
                if (full) {
                    const float push = (range - d) / range;
                    ++near;
                    if (v.group[k2] != group) {
                        const float hxj = v.hx[k2], hyj = v.hy[k2];
                        const float facing = hxi * hxj + hyi * hyj;
                        const float ahead = -(dx * hxi + dy * hyi);
                        if (facing < -0.25f * 127.0f * 127.0f && ahead > 0.0f) oncoming += push;
                    }
                    sx += dx / d * push;
                    sy += dy / d * push;
                    if (wakes && v.asleep(k2)) wake_up(v.wake, k2);  // an active agent near: wakes
                }
                if (v.group[k2] != group && (v.hx[k2] != 0 || v.hy[k2] != 0) &&
                    !v.regions->shares(group, v.group[k2])) {  // another group's unit passing through
                    const float reach = rr * kContactReach;
                    if (d < reach) {
                        gx += dx / d * (reach - d) / reach;
                        gy += dy / d * (reach - d) / reach;
                    }
                }
                if (d < rr) {
                    ox += dx / d * (rr - d) / rr;
                    oy += dy / d * (rr - d) / rr;
                    px_fix += dx / d * (rr - d);
                    py_fix += dy / d * (rr - d);
                    // Walking into a mate: the velocity toward it drops, in proportion to the depth
                    // (from none at a touch to all of it at `yield` radii; arrived mates, which
                    // give way, from `yield` to twice that), applied in turn so that two mates ahead
                    // do not drop it twice. Units of other groups squeeze past (counter-flow in a
                    // corridor would otherwise stop both streams).
                    if (v.group[k2] == group && v.yield > 0.0f) {
                        const bool arrived = v.state[k2] == static_cast<std::uint8_t>(AgentState::arrived);
                        const float nx = dx / d, ny = dy / d;
                        const float start = arrived ? v.yield : 0.0f;
                        const float w = std::clamp(((rr - d) / r - start) / v.yield, 0.0f, 1.0f);
                        const float closing = (own_vx + vx_fix) * nx + (own_vy + vy_fix) * ny;
                        if (closing < 0.0f) {
                            vx_fix -= w * closing * nx;
                            vy_fix -= w * closing * ny;
                        }
                    }
                }
                // A contact candidate (among the agents within the interaction range, 1.5 (ri + rj)
                // by default): keep the nearest kMaxContacts.
                if (d < rr * kContactReach) n_contacts = keep_nearest(contacts, contact_d, n_contacts, k2, d);
                const bool ahead = d < range && -(dx * hxi + dy * hyi) > kAheadCos * 127.0f * d;
                blocked |= ahead;
                blocked_others |= ahead && v.group[k2] != group;
                near_arrived |= d < rr * kStayReach && v.state[k2] == static_cast<std::uint8_t>(AgentState::arrived);
                if (d < rr * 1.05f) {
                    if (v.state[k2] == static_cast<std::uint8_t>(AgentState::arrived)) {
                        touches_any = true;
                        touches |= v.group[k2] == group;
                    } else if (v.group[k2] == group && v.hx[k2] == 0 && v.hy[k2] == 0 && v.walking(k2)) {
                        leaving = true;  // a mate that left the pack last sub-step (it has not walked yet)
                    }
                }
            }
        }
    }
    n_contacts_out = static_cast<std::uint8_t>(n_contacts);
    return Neighbourhood{sx,          sy,   ox, oy, px_fix,   py_fix,  vx_fix,         vy_fix,  touches,
                         touches_any, near, gx, gy, oncoming, blocked, blocked_others, leaving, near_arrived};
}

}  // namespace tide::crowd_detail
