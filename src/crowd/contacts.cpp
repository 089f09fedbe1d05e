// Contact passes after the agent phases: touching agents pushed apart on the sub-step's new
// positions, then the deep pass that bounds the overlap inside packs and jams.

#include <algorithm>
#include <atomic>
#include <cmath>
#include "tide/detail/compat.hpp"

#include "phases.hpp"
#include "tide/crowd.hpp"

namespace tide {
using namespace crowd_detail;

// Contact passes on the sub-step's new positions (nx_, ny_): every agent moves away from the
// candidates it still overlaps by kOverlapShare of each depth (at most half its radius per pass),
// then out of walls. Jacobi: each pass reads the last pass's positions and writes its own entry, so
// the result is the same for any split. A dense crowd pressed by its own steering spreads the
// push through several rows of agents per sub-step instead of one.
void Crowd::contact_passes(JobSystem& jobs) {
    const int passes = std::clamp(params_.contact_passes, 0, 16);
    const std::size_t n = live_;
    cx_.resize(n);
    cy_.resize(n);
    const CostField& cost = *cost_;
    const bool sleep = params_.sleep;
    // The deep pass follows the last pass, which flags every entry (pack_overlap 2: no bound).
    const bool bound = params_.pack_overlap < 2.0f;
    const float flag = kDeepFlag * params_.pack_overlap;
    deep_.resize(n);
    for (int pass = 0; pass < passes; ++pass) {
        const float* const px = nx_.data();
        const float* const py = ny_.data();
        const bool flagging = bound && pass + 1 == passes;
        // Local pointers: wake_up's byte stores could alias the vectors' own, which the loop over
        // contacts would otherwise reload for every candidate.
        const float* const radius = a_.radius.data();
        const std::uint8_t* const rest = a_.rest.data();
        const std::uint32_t* const slot = a_.slot.data();
        const std::uint32_t* const contacts = contacts_.data();
        const std::uint8_t* const n_contacts = n_contacts_.data();
        std::uint8_t* const wake = wake_.data();
        float* const out_x = cx_.data();
        float* const out_y = cy_.data();
        auto body = [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end; ++k) {
                const float x = px[k], y = py[k], r = radius[k];
                const bool moved = sleep && rest[k] == 0;  // it wakes the sleepers it presses
                bool deep = false;
                float fx = 0.0f, fy = 0.0f;
                const std::uint32_t* const c = &contacts[k * kMaxContacts];
                const std::uint8_t count = n_contacts[k];
                for (std::uint8_t h = 0; h < count; ++h) {
                    const std::uint32_t j = c[h];
                    float dx = x - px[j], dy = y - py[j];
                    const float rr = r + radius[j];
                    float d2 = dx * dx + dy * dy;
                    if (d2 >= rr * rr) continue;
                    if (moved && rest[j] >= kSleepSubsteps) wake_up(wake, j);
                    if (d2 < 1e-12f) {  // on top of each other: split by slot order
                        dx = slot[k] < slot[j] ? 1e-3f : -1e-3f;
                        dy = 0.0f;
                        d2 = dx * dx;
                    }
                    const float d = std::sqrt(d2);
                    fx += dx / d * (rr - d);
                    fy += dy / d * (rr - d);
                    if (flagging) deep |= (rr - d > flag * std::min(r, radius[j])) && packed_mates(k, j);
                }
                if (flagging) deep_[k] = deep;
                float x1 = x, y1 = y;
                if (fx != 0.0f || fy != 0.0f) {
                    Neighbourhood nb;
                    nb.px_fix = fx;
                    nb.py_fix = fy;
                    resolve_overlap(nb, r, x1, y1);
                    push_out_of_walls(cost, r, x, y, x1, y1, a_.vx[k], a_.vy[k]);
                }
                out_x[k] = x1;
                out_y[k] = y1;
            }
        };
        parallel_for(jobs, n, 1024, body);
        nx_.swap(cx_);
        ny_.swap(cy_);
    }
    if (bound && passes > 0) deep_pass(jobs);
}

// True when entries k and j are mates (same group) and one of them at least has arrived (after
// this sub-step): a pair of the pack, or a unit pressing into it; or when they are jammed_mates.
bool Crowd::packed_mates(std::size_t k, std::size_t j) const noexcept {
    constexpr auto arrived = static_cast<std::uint8_t>(AgentState::arrived);
    return ((a_.group[k] == a_.group[j]) & ((nstate_[k] == arrived) | (nstate_[j] == arrived))) | jammed_mates(k, j);
}

// True when entries k and j are mates and one of them at least is flagged stuck: a pair in a jam
// (the deep overlaps left on the benchmark map, 0.51-0.57 radii on some spawn seeds, were such pairs
// of moving units, in queues jammed 20 cells before the goal).
bool Crowd::jammed_mates(std::size_t k, std::size_t j) const noexcept {
    constexpr auto queued = static_cast<std::uint8_t>(AgentState::queued);
    return (a_.group[k] == a_.group[j]) &
           ((((a_.stuck[k] | a_.stuck[j]) & kStuckFlag) != 0) | (nstate_[k] == queued) | (nstate_[j] == queued));
}

// The deep pass: the agents the last contact pass found in a contact deeper than kDeepFlag x
// pack_overlap with a mate of the pack (packed_mates) move apart until no such pair overlaps by more
// than CrowdParams::pack_overlap (radii of the smaller agent), each taking half of the excess (all
// of it when the other is not in the pass). The contact passes above spread a pack's pressure a
// row per pass and leave a few pairs deep inside a pack pressed by arrivals (0.55 radii on the
// benchmark map); this bounds them and leaves every other agent where it is (with no deep contact
// the crowd is bit-identical with and without it). Pairs of moving units are left alone, so that
// they can squeeze past each other (a bound on every pair jams counter-flow in a corridor,
// Crowd.CounterFlowInAThreeCellCorridor: 86 of 200 arrived in 120 s; on every pair of mates, 3),
// unless one of them is flagged stuck (jammed_mates).
// Runs with the contact passes (none when CrowdParams::contact_passes is 0). Jacobi over the
// listed agents: the same for any split.
void Crowd::deep_pass(JobSystem& jobs) {
    // Units in a jam are pressed from all sides: the last pass itself can squeeze a pair of them
    // from apart to half a radius deep (each agent moves up to half its radius in a pass), so pairs
    // of jammed_mates are also flagged from where the passes left them. (Flagging every pair of
    // the pack so too loosened it: the 1,000-unit pack on the default map measured 0.79 of the
    // ideal disc instead of 0.86, below the 0.8 required.)
    const std::size_t n = live_;
    const float flag = kDeepFlag * params_.pack_overlap;
    // From the stuck unit's side: it and the mate it is deep with are flagged (only ever set to 1,
    // by any number of agents at once, so the flags do not depend on the order).
    auto flag_stuck = [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) {
            if ((a_.stuck[k] & kStuckFlag) == 0 && nstate_[k] != static_cast<std::uint8_t>(AgentState::queued))
                continue;
            const float x = nx_[k], y = ny_[k], r = a_.radius[k];
            const std::uint32_t* const c = &contacts_[k * kMaxContacts];
            for (std::uint8_t h = 0; h < n_contacts_[k]; ++h) {
                const std::uint32_t j = c[h];
                const float dx = x - nx_[j], dy = y - ny_[j];
                const float near = r + a_.radius[j] - flag * std::min(r, a_.radius[j]);
                if (dx * dx + dy * dy < near * near && jammed_mates(k, j)) {
                    tide::detail::relaxed_store(deep_[k], 1);
                    tide::detail::relaxed_store(deep_[j], 1);
                }
            }
        }
    };
    parallel_for(jobs, n, 1024, flag_stuck);
    deep_list_.clear();
    for (std::size_t k = 0; k < deep_.size(); ++k) {
        if (deep_[k]) deep_list_.push_back(static_cast<std::uint32_t>(k));
    }
    const std::size_t m = deep_list_.size();
    if (m == 0) return;
    deep_x_.resize(m);
    deep_y_.resize(m);
    const CostField& cost = *cost_;
    const float* const px = nx_.data();
    const float* const py = ny_.data();
    auto body = [&](std::size_t begin, std::size_t end) {
        for (std::size_t q = begin; q < end; ++q) {
            const std::uint32_t k = deep_list_[q];
            const float x = px[k], y = py[k], r = a_.radius[k];
            float fx = 0.0f, fy = 0.0f;
            const std::uint32_t* const c = &contacts_[k * kMaxContacts];
            for (std::uint8_t h = 0; h < n_contacts_[k]; ++h) {
                const std::uint32_t j = c[h];
                if (!packed_mates(k, j)) continue;
                const float dx = x - px[j], dy = y - py[j];
                const float limit = r + a_.radius[j] - params_.pack_overlap * std::min(r, a_.radius[j]);
                const float d2 = dx * dx + dy * dy;
                if (d2 >= limit * limit || d2 < 1e-12f) continue;  // (on top of each other: the passes split them)
                const float d = std::sqrt(d2);
                const float share = deep_[j] ? 0.5f : 1.0f;
                fx += dx / d * (limit - d) * share;
                fy += dy / d * (limit - d) * share;
            }
            float x1 = x, y1 = y;
            if (fx != 0.0f || fy != 0.0f) {
                move_at_most_half_radius(fx, fy, r, x1, y1);
                push_out_of_walls(cost, r, x, y, x1, y1, a_.vx[k], a_.vy[k]);
            }
            deep_x_[q] = x1;
            deep_y_[q] = y1;
        }
    };
    parallel_for(jobs, m, 256, body);
    for (std::size_t q = 0; q < m; ++q) {
        nx_[deep_list_[q]] = deep_x_[q];
        ny_[deep_list_[q]] = deep_y_[q];
    }
}

}  // namespace tide
