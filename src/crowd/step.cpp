// The crowd step: step() splits it into sub-steps, and substep() runs the phases in order. Each
// sub-step: (1) counting-sort live agents into a uniform spatial hash; (2) in parallel, every agent
// reads the previous state (its own and its neighbours') and writes its new state into separate
// buffers (the agent phases, agent_phases.hpp; then the contact passes, contacts.cpp); (3) swap.
// Because (2) never reads what it writes and sums its neighbours in a fixed order, results are
// bit-identical for any thread count. Here too: the sort (with the lanes and each group's pack
// area), the arrival regions' refresh, the settle radii, and the units leaving by an exit.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numbers>
#include <vector>

#include "../grid/float_to_int.hpp"
#include "agent_phases.hpp"
#include "arrival.hpp"
#include "formation.hpp"
#include "phases.hpp"
#include "spatial_hash.hpp"
#include "tide/crowd.hpp"

namespace tide {
using namespace crowd_detail;
namespace {

// Before the agent phases: settle radii, from each group's arrived area (settle_ on entry, from
// sort_agents). The blob of arrived agents grows with the group: a unit stops against an arrived
// mate within settle_distance plus a little more than the radius of a disc densely packed with the
// group's arrived agents. A unit that touches the pack further out keeps going round it toward the
// goal: stopping at the first touch grows the pack along the lanes units come in by (an X along
// the field's diagonals), as diffusion-limited aggregation does.
// With an arrival region the radius is measured along the ground from the pack's anchor, over the
// region's cells: the pack grows as walls and the region let it.
void update_settle_radii(const CrowdParams& P, const detail::ArrivalRegions& regions, std::vector<float>& settle) {
    for (std::size_t g = 0; g < settle.size(); ++g) {
        const float r2 = settle[g];
        settle[g] =
            regions.active(static_cast<std::uint32_t>(g))
                ? P.settle_distance + regions.pack_key(static_cast<std::uint32_t>(g),
                                                       kSettleSlack * kSettleSlack *
                                                           (std::numbers::pi_v<float> * r2 +
                                                            regions.foreign_area(static_cast<std::uint32_t>(g))) /
                                                           kPackDensity)
                : P.settle_distance + kSettleSlack * std::sqrt(r2 / kPackDensity);
    }
}

}  // namespace

Result<void> Crowd::step(float dt) {
    SerialJobSystem serial;
    return step(dt, serial);
}

Result<void> Crowd::step(float dt, JobSystem& jobs) {
    if (!(dt > 0.0f) || !std::isfinite(dt) || dt > 10.0f) {
        return Error{"time step " + std::to_string(dt) + " s is not in (0, 10]"};
    }
    const int n = std::max(1, static_cast<int>(std::ceil(dt / params_.max_substep)));
    const float sub = dt / static_cast<float>(n);
    stats_ = {};
    exited_.clear();
    for (int k = 0; k < n; ++k) substep(sub, jobs, k == n - 1);
    time_ += dt;
    stats_.agents = live_;
    stats_.exited = exited_.size();
    return {};
}

void Crowd::sort_agents(JobSystem& jobs) {
    const std::size_t n = live_;
    if (max_radius_dirty_) {
        max_radius_ = 0.0f;
        for (std::size_t e = 0; e < n; ++e) max_radius_ = std::max(max_radius_, a_.radius[e]);
        max_radius_dirty_ = false;
    }
    // Buckets at least as wide as the largest interaction range, so 3x3 buckets cover it.
    hash_->configure(cost_->width(), cost_->height(), 2.0f * max_radius_ * params_.separation_range, n);
    hash_->sort(a_.px.data(), a_.py.data(), a_.slot.data(), n, jobs);

    // The arrived agents' areas per group (for settle_), summed in slot order as always: their
    // slots are marked in a pass over the entries (in parallel: each entry marks its own slot,
    // counts are integer sums), then read in slot order (a sort of the arrived slots took 4% of a
    // sub-step once thousands had arrived).
    settle_.assign(groups_.size(), 0.0f);
    arrived_in_.assign(groups_.size(), 0);
    arrived_mark_.assign(generation_.size(), 0);
    const int W = cost_->width(), H = cost_->height();
    const std::size_t cells = static_cast<std::size_t>(W) * static_cast<std::size_t>(H);
    // The lanes: headings summed per cell, in parallel (integer sums: the same in any order).
    // The cells the last sum wrote are cleared first (lane_at_; a new map clears them all).
    // With them, which group walks (one, or several: kMixedWalkers).
    constexpr std::uint32_t kNoLane = 0xffffffffu;
    if (lanes_.size() != cells) {
        lanes_.assign(cells, 0);
        lane_at_.clear();
    }
    {
        LaneSum* const lanes = lanes_.data();
        const std::uint32_t* const at = lane_at_.data();
        auto clear = [&](std::size_t begin, std::size_t end) {
            for (std::size_t e = begin; e < end; ++e) {
                if (at[e] == kNoLane) continue;
                tide::detail::relaxed_store(lanes[at[e]], 0);  // (others may clear the same cell)
            }
        };
        parallel_for(jobs, lane_at_.size(), 4096, clear);
    }
    lane_at_.resize(n);
    std::atomic<std::size_t> arrived_total{0};
    sole_walker_ = kNoWalkers;
    auto mark = [&](std::size_t begin, std::size_t end) {
        LaneSum* const lanes = lanes_.data();
        std::uint32_t sole = kNoWalkers;  // this range's, then tagged into sole_walker_ once
        std::size_t arrived = 0;
        for (std::size_t e = begin; e < end; ++e) {
            const std::int8_t hx = a_.hx[e], hy = a_.hy[e];
            if (hx == 0 && hy == 0) {
                lane_at_[e] = kNoLane;
            } else {
                const int cx = detail::clamped_int(a_.px[e], 0, W - 1), cy = detail::clamped_int(a_.py[e], 0, H - 1);
                const std::uint32_t c = static_cast<std::uint32_t>(cy * W + cx);
                lane_at_[e] = c;
                tide::detail::relaxed_add(lanes[c], lane_of(hx, hy));
                const std::uint32_t g = a_.group[e];
                sole = sole == kNoWalkers || sole == g ? g : kMixedWalkers;
            }
            const auto st = static_cast<AgentState>(a_.state[e]);
            // The pack's area: its arrived units, and with an arrival region the units queued at its
            // edge inside the region (they are where the pack grows next).
            bool packed = st == AgentState::arrived;
            if (st == AgentState::queued && regions_->active(a_.group[e])) {
                const float lift = 0.5f * static_cast<float>(group_unit_[a_.group[e]] - 1);
                packed = regions_->allows(a_.group[e], std::clamp(floor_to_int(a_.px[e] - lift), 0, W - 1),
                                          std::clamp(floor_to_int(a_.py[e] - lift), 0, H - 1));
            }
            if (packed) {
                arrived_mark_[a_.slot[e]] = 1;  // (each entry its own slot)
                ++arrived;
            }
            if (st == AgentState::arrived) tide::detail::relaxed_add(arrived_in_[a_.group[e]], 1);
        }
        arrived_total += arrived;
        if (sole != kNoWalkers) tide::detail::relaxed_tag(sole_walker_, sole, kNoWalkers, kMixedWalkers);
    };
    parallel_for(jobs, n, 2048, mark);
    std::size_t arrived_count = arrived_total.load();
    for (std::size_t i = 0; arrived_count > 0 && i < arrived_mark_.size(); ++i) {
        if (!arrived_mark_[i]) continue;
        const std::size_t e = index_[i];
        settle_[a_.group[e]] += a_.radius[e] * a_.radius[e];
        --arrived_count;
    }

    // Move every entry to its sorted place (sorted_ <- a_ permuted), then swap.
    const std::uint32_t* const order = hash_->order();
    sorted_.each([n](auto& v) { v.resize(n); });
    // One array at a time, through local pointers: a loop over all twenty at once reloaded every
    // vector's data pointer for every element (the stores might alias them), twice the loads.
    auto gather = [&](std::size_t begin, std::size_t end) {
        a_.each_with(sorted_, [&](const auto& from, auto& to) {
            const auto* const src = from.data();
            auto* const dst = to.data();
            const std::uint32_t* const ord = order;  // locals: byte stores could alias the captures
            for (std::size_t k = begin, stop = end; k < stop; ++k) dst[k] = src[ord[k]];
        });
        const std::uint32_t* const slot = sorted_.slot.data();
        std::uint32_t* const index = index_.data();
        for (std::size_t k = begin; k < end; ++k) index[slot[k]] = static_cast<std::uint32_t>(k);
    };
    parallel_for(jobs, n, 4096, gather);
    std::swap(a_, sorted_);
}

// Arrival regions (src/crowd/arrival.*), from the state this sub-step starts from: serial, so the
// same for any job system.
void Crowd::refresh_regions() {
    std::vector<detail::RegionGroup> groups(groups_.size());
    for (std::size_t g = 0; g < groups_.size(); ++g) {
        const GroupField& f = groups_[g];
        if (f.exit) continue;                                          // its units leave: no pack
        if (formations_->of(static_cast<std::uint32_t>(g))) continue;  // its units stand on their slots
        if (f.field && f.field.kind() == FieldKind::goal) groups[g].field = {&f.field, f.goals};
    }
    std::vector<detail::RegionAgent> agents(live_);
    const int W = cost_->width(), H = cost_->height();
    for (std::size_t e = 0; e < live_; ++e) {
        const std::uint32_t g = a_.group[e];
        const float area = std::numbers::pi_v<float> * a_.radius[e] * a_.radius[e];
        groups[g].area += area;
        groups[g].max_radius = std::max(groups[g].max_radius, a_.radius[e]);
        const float lift = 0.5f * static_cast<float>(group_unit_[g] - 1);
        const auto st = static_cast<AgentState>(a_.state[e]);
        agents[e] = {g, std::clamp(floor_to_int(a_.px[e] - lift), 0, W - 1),
                     std::clamp(floor_to_int(a_.py[e] - lift), 0, H - 1), area,
                     st == AgentState::moving || st == AgentState::queued ? detail::RegionRole::moving
                     : st == AgentState::arrived                          ? detail::RegionRole::arrived
                                                                          : detail::RegionRole::other};
    }
    regions_->refresh(*cost_, groups, agents);
}

// One sub-step, as a list of phases in the order they run (the agent phases: AgentPhases).
void Crowd::substep(float dt, JobSystem& jobs, bool count_stats) {
    // Neighbours side by side: entries re-sorted by bucket; lanes; each group's arrived area.
    sort_agents(jobs);
    // Arrival regions on their schedule, and queued sleepers looking again on the same one.
    if (!params_.arrival_regions) {
        regions_->clear();
    } else if (regions_stale_ || substeps_ % kRegionSubsteps == 0) {
        refresh_regions();
        regions_stale_ = false;
    }
    if (params_.sleep && substeps_ % kRegionSubsteps == 0)
        recheck_queued_sleepers(a_.state.data(), a_.rest.data(), live_);
    ++substeps_;
    update_settle_radii(params_, *regions_, settle_);
    // Formations: each anchor walks on, slots handed out where units joined or left.
    update_formations(dt);

    // The agent phases, in parallel over ranges of agents, into the sub-step's new entries.
    const std::size_t n = live_;
    nx_.resize(n);
    ny_.resize(n);
    nstate_.resize(n);
    nhx_.resize(n);
    nhy_.resize(n);
    leaving_.assign(n, 0);
    quiet_.resize(n);
    wake_.assign(n, 0);
    contacts_.resize(n * kMaxContacts);
    n_contacts_.resize(n);
    const CostField& cost = *cost_;
    const CrowdParams& P = params_;
    stuck_before_.assign(a_.stuck.begin(), a_.stuck.end());  // the phases write a_.stuck; neighbours read this
    const StepView view{
        a_.px.data(),    a_.py.data(),    a_.vx.data(),       a_.vy.data(),    a_.radius.data(), a_.slot.data(),
        a_.group.data(), a_.state.data(), P.separation_range, P.yield_overlap, regions_.get(),   stuck_before_.data(),
        a_.hx.data(),    a_.hy.data(),    a_.rest.data(),     wake_.data(),    P.sleep,          max_radius_};
    const AgentPhases<GroupField> agents{agent_arrays(a_),
                                         groups_.data(),
                                         group_unit_.data(),
                                         settle_.data(),
                                         arrived_in_.data(),
                                         lanes_.data(),
                                         sole_walker_,
                                         nx_.data(),
                                         ny_.data(),
                                         dvx_.data(),
                                         dvy_.data(),
                                         nstate_.data(),
                                         wall_hit_.data(),
                                         nhx_.data(),
                                         nhy_.data(),
                                         quiet_.data(),
                                         leaving_.data(),
                                         contacts_.data(),
                                         n_contacts_.data(),
                                         view,
                                         *hash_,
                                         *regions_,
                                         cost,
                                         P,
                                         cost.cells().data(),
                                         cost.width(),
                                         cost.height(),
                                         dt,
                                         formations_.get()};
    AgentTotals totals;
    auto agent_range = [&](std::size_t begin, std::size_t end) {
        const AgentCounts counts = agents.run(begin, end);
        if (count_stats) totals.add(counts);
    };
    parallel_for(jobs, n, 1024, agent_range);
    if (count_stats) {
        stats_.arrived = totals.arrived.load();
        stats_.no_path = totals.no_path.load();
        stats_.queued = totals.queued.load();
        stats_.stuck = totals.stuck.load();
        stats_.sidestepping = totals.sidestepping.load();
        stats_.wall_contacts = totals.walls.load();
        stats_.sleeping = totals.asleep.load();
    }

    // Touching agents pushed apart on the new positions.
    contact_passes(jobs);
    // Rest counts and held bits; arrived units pushed out of their region's reach walk back.
    // (The passes swap nx_ and ny_ with their own buffers: the new positions are where they are now.)
    auto rest_range = [&](std::size_t begin, std::size_t end) {
        agents.rest_and_held(begin, end, nx_.data(), ny_.data());
    };
    parallel_for(jobs, n, 4096, rest_range);
    // The new entries become the state; units at their exit leave.
    a_.px.swap(nx_);
    a_.py.swap(ny_);
    a_.state.swap(nstate_);
    a_.hx.swap(nhx_);
    a_.hy.swap(nhy_);
    remove_leavers();
}

// Units that reached their exit in this sub-step leave, in slot order (listed in exited_).
void Crowd::remove_leavers() {
    const std::size_t first = exited_.size();
    for (std::size_t e = 0; e < live_; ++e) {
        if (leaving_[e]) exited_.push_back({a_.slot[e], generation_[a_.slot[e]]});
    }
    std::sort(exited_.begin() + static_cast<std::ptrdiff_t>(first), exited_.end(),
              [](AgentId a, AgentId b) { return a.index < b.index; });
    for (std::size_t i = first; i < exited_.size(); ++i) {
        const std::size_t e = index_[exited_[i].index];
        if (groups_[a_.group[e]].exit_keeps) {
            a_.state[e] = static_cast<std::uint8_t>(AgentState::arrived);  // the host sends it on
        } else {
            (void)remove_agent(exited_[i]);
        }
    }
}
}  // namespace tide
