// Settling, phase 8 of HierarchicalField::route() (HierarchicalField::State, plan_state.hpp): fields
// built before their neighbours are lowered where a neighbour's field now offers less.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>
#include "tide/detail/compat.hpp"

#include "plan_state.hpp"

namespace tide {

using hier_detail::kInf;

namespace {

// Settling (see route()): a neighbour's field is rebuilt only when one move onto this sector's
// field would lower one of its values by more than kSettleAbsolute + kSettleRelative x the new
// value (smaller gains barely move a path: a path's cost stays within about that fraction of the
// settled one), and a wave takes the queued sectors whose gain lies within kSettleBand sector
// crossings (at the cheapest cost) of the best one, as a Dijkstra over sectors would. A band of 4
// rather than 1 makes the waves wide enough for two threads (the 4096x4096 benchmark query 10%
// faster on two) for the same path quality and 4% more lowerings (docs/performance/hierarchy.md).
constexpr double kSettleAbsolute = 1e-2;
constexpr double kSettleRelative = 1e-2;
constexpr double kSettleBand = 4.0;

}  // namespace

double HierarchicalField::State::improvement(int from, int to, int k) const {
    const SectorField* a = fields[static_cast<std::size_t>(from)].get();
    const SectorField* b = fields[static_cast<std::size_t>(to)].get();
    if (a == nullptr || b == nullptr) return kInf;
    const double diag = graph->config().params.diagonal_factor;
    const bool eight = graph->config().params.connectivity == Connectivity::eight;
    // from's cells next to `to`: one column or row for a shared border, a corner otherwise.
    const int dx = kDirectionDx[k], dy = kDirectionDy[k];
    const int ax0 = dx > 0 ? a->x0 + a->width - 1 : a->x0, ax1 = dx < 0 ? a->x0 : a->x0 + a->width - 1;
    const int ay0 = dy > 0 ? a->y0 + a->height - 1 : a->y0, ay1 = dy < 0 ? a->y0 : a->y0 + a->height - 1;
    // Every cell read here is on the map (in a's or b's rectangle): no bounds checks.
    const Cost* const cells = cost->cells().data();
    const std::size_t mw = static_cast<std::size_t>(cost->width());
    auto at = [&](int x, int y) { return cells[static_cast<std::size_t>(y) * mw + static_cast<std::size_t>(x)]; };
    // The moves from a cell of a into b: across a shared border the three that cross it
    // (diagonals only with eight directions), into a corner sector the one diagonal.
    int moves[3];
    int n_moves = 0;
    for (int m = 0; m < kDirectionCount; ++m) {
        if ((m & 1) != 0 && !eight) continue;
        if ((dx == 0 || kDirectionDx[m] == dx) && (dy == 0 || kDirectionDy[m] == dy)) moves[n_moves++] = m;
    }
    // Walls and unreached cells are scattered along a border: the tests are folded into one
    // select per move instead of branches (which mispredicted: 2% of a cold 4096x4096 query).
    // An unreached cell of a has +inf, whose offer compares false on its own.
    double best = kInf;
    for (int y = ay0; y <= ay1; ++y) {
        for (int x = ax0; x <= ax1; ++x) {
            const double v = a->integration[static_cast<std::size_t>(y - a->y0) * a->width + (x - a->x0)];
            const Cost cx = at(x, y);
            for (int i = 0; i < n_moves; ++i) {
                const int m = moves[i];
                const int px = x + kDirectionDx[m], py = y + kDirectionDy[m];  // a cell of `to`?
                if (px < b->x0 || py < b->y0 || px >= b->x0 + b->width || py >= b->y0 + b->height) continue;
                const bool diagonal = (m & 1) != 0;
                const bool open =
                    (at(px, py) != kCostWall) & ((!diagonal) | ((at(x, py) != kCostWall) & (at(px, y) != kCostWall)));
                const double w = b->integration[static_cast<std::size_t>(py - b->y0) * b->width + (px - b->x0)];
                const double c = v + (diagonal ? diag : 1.0) * cx;
                const bool lower = open & (c < w - kSettleAbsolute - kSettleRelative * c);
                const std::uint64_t use = std::uint64_t{0} - static_cast<std::uint64_t>(lower);
                best = std::min(best,
                                tide::detail::bit_cast<double>((tide::detail::bit_cast<std::uint64_t>(c) & use) |
                                                               (tide::detail::bit_cast<std::uint64_t>(kInf) & ~use)));
            }
        }
    }
    return best;
}

void HierarchicalField::State::check_offers(std::vector<Offer>& offers) const {
    auto task = [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) offers[i].value = improvement(offers[i].from, offers[i].to, offers[i].k);
    };
    constexpr std::size_t kGrain = 16;  // a check takes about a microsecond
    if (jobs == nullptr || jobs->max_concurrency() < 2 || offers.size() < 2 * kGrain) {
        task(0, offers.size());
    } else {
        parallel_for(*jobs, offers.size(), kGrain, task);
    }
}

void HierarchicalField::State::settle_fields(const std::vector<int>& todo, RouteStats& stats) {
    std::vector<std::uint8_t> mine(static_cast<std::size_t>(graph->sector_count()), 0);
    for (int sec : todo) mine[static_cast<std::size_t>(sec)] = 1;
    std::vector<double> prio(mine.size(), kInf);  // least seed value that would lower a queued field
    std::vector<int> work;
    // Offers: neighbour `to` (neighbour k of sector `from`) is queued when from's field would
    // lower it. The checks only read fields, so a batch of them runs on the job system and their
    // results are applied in the batch's order: the same queue as one after the other (about
    // 2,000 checks, 2.5 ms, before the first lowering of a 4096x4096 corner-to-corner query).
    std::vector<Offer> offers;
    auto add_offer = [&](int from, int k) {
        const int to = neighbour(from, k);
        if (to >= 0 && mine[static_cast<std::size_t>(to)]) offers.push_back({from, to, k, kInf});
    };
    auto apply_offers = [&] {
        check_offers(offers);
        for (const Offer& o : offers) {
            if (!(o.value < prio[static_cast<std::size_t>(o.to)])) continue;
            if (prio[static_cast<std::size_t>(o.to)] == kInf) work.push_back(o.to);
            prio[static_cast<std::size_t>(o.to)] = o.value;
        }
        offers.clear();
    };
    for (int sec : todo) {
        for (int k = 0; k < kDirectionCount; ++k) {
            const int t = neighbour(sec, k);
            if (t >= 0 && fields[static_cast<std::size_t>(t)]) add_offer(t, (k + 4) % kDirectionCount);
        }
    }
    apply_offers();
    std::size_t budget = static_cast<std::size_t>(config.settle_budget) * todo.size();
    std::vector<std::uint8_t> in_wave(mine.size(), 0);
    while (!work.empty() && budget > 0) {
        const std::vector<int> wave = next_settle_wave(work, prio, in_wave, budget);
        for (int sec : wave) prio[static_cast<std::size_t>(sec)] = kInf;
        build_wave(wave, true);
        stats.fields_built += wave.size();
        stats.fields_rebuilt += wave.size();
        budget -= wave.size();
        for (int sec : wave) {
            in_wave[static_cast<std::size_t>(sec)] = 0;
            for (int k = 0; k < kDirectionCount; ++k) add_offer(sec, k);
        }
        apply_offers();
    }
}

std::vector<int> HierarchicalField::State::next_settle_wave(std::vector<int>& work, const std::vector<double>& prio,
                                                            std::vector<std::uint8_t>& in_wave,
                                                            std::size_t budget) const {
    std::sort(work.begin(), work.end(), [&](int a, int b) {
        const double ka = prio[static_cast<std::size_t>(a)], kb = prio[static_cast<std::size_t>(b)];
        return ka != kb ? ka < kb : a < b;
    });
    std::vector<int> wave, rest;
    const double band =
        prio[static_cast<std::size_t>(work.front())] + kSettleBand * graph->sector_size() * graph->cheapest_cost();
    for (int sec : work) {
        bool free = wave.size() < budget && prio[static_cast<std::size_t>(sec)] <= band;
        for (int k = 0; k < kDirectionCount && free; k += 2) {
            const int t = neighbour(sec, k);
            free = t < 0 || !in_wave[static_cast<std::size_t>(t)];
        }
        if (free) {
            wave.push_back(sec);
            in_wave[static_cast<std::size_t>(sec)] = 1;
        } else {
            rest.push_back(sec);
        }
    }
    work.swap(rest);
    return wave;
}

}  // namespace tide
