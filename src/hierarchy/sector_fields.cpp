// Sector fields of a HierarchicalField (HierarchicalField::State, plan_state.hpp): one field, a
// wave of them, or the waves of a route on the job system.
//
// A sector's field is built only once its nodes are settled. Seeds: goals in or next to it, the
// values of the fields of neighbouring sectors along its frame, and for neighbours without a field
// the g of their nodes on the frame. Every seed bounds from above the value the neighbour's field
// has or will have there (a field is never above the g of its nodes, and rebuilding with more
// neighbours only lowers it), so each step of the flow across a border lowers the value by at
// least the move's cost: no loops, whatever the build order (docs/hierarchy.md has the argument).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "plan_state.hpp"
#include "tide/assert.hpp"

namespace tide {

using hier_detail::kInf;
using hier_detail::SectorSearch;

bool HierarchicalField::State::store(int s, std::unique_ptr<SectorField> f) {
    f->build = ++builds;
    auto& slot = fields[static_cast<std::size_t>(s)];
    const bool same = slot && slot->integration == f->integration && slot->directions == f->directions;
    if (slot) {
        bytes -= slot->integration.capacity() * sizeof(float) + slot->directions.capacity();
    } else {
        ++built;
    }
    bytes += f->integration.capacity() * sizeof(float) + f->directions.capacity();
    slot = std::move(f);
    return !same;
}

bool HierarchicalField::State::build_field(int s) {
    return store(s, make_field(s, search));
}

std::unique_ptr<SectorField> HierarchicalField::State::make_field(int s, SectorSearch& search, bool lower) const {
    return make_field(s, search, lower, [&](int t) { return fields[static_cast<std::size_t>(t)].get(); });
}

template <class Around>
std::unique_ptr<SectorField> HierarchicalField::State::make_field(int s, SectorSearch& search, bool lower,
                                                                  const Around& around) const {
    TIDE_ASSERT(unsettled_goal_nodes(s) == 0);  // a field is built only once its nodes are settled
    const auto& cfg = graph->config();
    int x0, y0, x1, y1;
    graph->sector_rect(s, x0, y0, x1, y1);
    search.load(*cost, x0, y0, x1, y1, cfg.params);
    if (lower) {
        const SectorField* old = fields[static_cast<std::size_t>(s)].get();
        TIDE_ASSERT(old != nullptr);
        search.preset(old->integration, old->directions);
    }
    seed_goals(s, search);
    const int sx = s % graph->sectors_x(), sy = s / graph->sectors_x();
    std::uint16_t mask = 0;
    for (int k = 0; k < kDirectionCount; ++k) {
        const int tx = sx + kDirectionDx[k], ty = sy + kDirectionDy[k];
        if (tx < 0 || ty < 0 || tx >= graph->sectors_x() || ty >= graph->sectors_y()) continue;
        const int t = ty * graph->sectors_x() + tx;
        // The part of s's frame inside t.
        int tx0, ty0, tx1, ty1;
        graph->sector_rect(t, tx0, ty0, tx1, ty1);
        const int fx0 = std::max(tx0, x0 - 1), fx1 = std::min(tx1, x1 + 1);
        const int fy0 = std::max(ty0, y0 - 1), fy1 = std::min(ty1, y1 + 1);
        if (const SectorField* f = around(t)) {
            mask |= static_cast<std::uint16_t>(1u << k);
            for (int y = fy0; y < fy1; ++y) {
                for (int x = fx0; x < fx1; ++x) {
                    const float v = f->integration[static_cast<std::size_t>(y - f->y0) * f->width + (x - f->x0)];
                    if (v < std::numeric_limits<float>::infinity()) search.seed(x, y, v);
                }
            }
        } else {
            // No field there yet: its nodes on the frame, with their cost to the goals; along
            // a shared border also the cells beside them, at that cost plus the walk along the
            // border to the node (a real path, so still a bound from above).
            const bool side = (k & 1) == 0;  // E, S, W, N share a border with s
            for (std::int32_t i = graph->node_begin(t); i < graph->node_begin(t + 1); ++i) {
                const Cell c = graph->nodes()[static_cast<std::size_t>(i)].cell;
                if (c.x < fx0 || c.x >= fx1 || c.y < fy0 || c.y >= fy1) continue;
                const double gi = g[static_cast<std::size_t>(i)];
                if (!(gi < kInf)) continue;
                search.seed(c.x, c.y, gi);
                if (!side) continue;
                const int ax = kDirectionDy[k] != 0 ? 1 : 0, ay = 1 - ax;  // along the border
                for (int dir = -1; dir <= 1; dir += 2) {
                    double acc = gi;
                    Cell prev = c;
                    for (;;) {
                        const Cell nc{prev.x + dir * ax, prev.y + dir * ay};
                        if (nc.x < fx0 || nc.x >= fx1 || nc.y < fy0 || nc.y >= fy1 || !cost->passable(nc.x, nc.y))
                            break;
                        acc += cost->at(prev);  // nc -> prev enters prev
                        search.seed(nc.x, nc.y, acc);
                        prev = nc;
                    }
                }
            }
        }
    }
    search.run();
    auto f = std::make_unique<SectorField>();
    f->x0 = x0;
    f->y0 = y0;
    f->width = x1 - x0;
    f->height = y1 - y0;
    if (lower) {
        // A lowering changes the cells it settles only (a few hundred of 4,096 while settling):
        // the old field with those written over, instead of every cell converted again.
        const SectorField* old = fields[static_cast<std::size_t>(s)].get();
        f->integration = old->integration;
        f->directions = old->directions;
        search.write_lowered(f->integration, f->directions);
    } else {
        const std::size_t cells = static_cast<std::size_t>(f->width) * f->height;
        f->integration.resize(cells);
        f->directions.resize(cells);
        search.write_field(f->integration, f->directions);
    }
    f->seeded_from = mask;
    return f;
}

void HierarchicalField::State::build_wave(const std::vector<int>& wave, bool lower) {
    std::vector<std::unique_ptr<SectorField>> made(wave.size());
    if (jobs == nullptr || wave.size() < 2) {
        for (std::size_t i = 0; i < wave.size(); ++i) made[i] = make_field(wave[i], search, lower);
    } else {
        auto task = [&](std::size_t b, std::size_t e) {
            std::unique_ptr<SectorSearch> own = take_search();
            for (std::size_t i = b; i < e; ++i) made[i] = make_field(wave[i], *own, lower);
            give_search(std::move(own));
        };
        parallel_for(*jobs, wave.size(), 1, task);
    }
    for (std::size_t i = 0; i < wave.size(); ++i) store(wave[i], std::move(made[i]));
}

void HierarchicalField::State::build_levels(const std::vector<std::vector<int>>& by_wave,
                                            const std::vector<int>& level) {
    if (jobs == nullptr || jobs->max_concurrency() < 2) {
        for (const auto& wave : by_wave) build_wave(wave);
        return;
    }
    std::vector<int> items;
    for (const auto& wave : by_wave) items.insert(items.end(), wave.begin(), wave.end());
    const std::size_t n = items.size();
    if (slot_of.size() != fields.size()) slot_of.assign(fields.size(), -1);
    for (std::size_t i = 0; i < n; ++i) slot_of[static_cast<std::size_t>(items[i])] = static_cast<std::int32_t>(i);
    LevelWaits w = level_waits(items, level);
    std::vector<std::unique_ptr<SectorField>> made(n);
    // Ready items, the longest chain of items waiting behind it first, then in wave order.
    auto later = [&](std::int32_t a, std::int32_t b) {  // heap order: true when a comes after b
        const std::int32_t ta = w.tail[static_cast<std::size_t>(a)], tb = w.tail[static_cast<std::size_t>(b)];
        return ta != tb ? ta < tb : a > b;
    };
    std::vector<std::int32_t> ready;
    for (std::size_t i = 0; i < n; ++i)
        if (w.waiting[i] == 0) ready.push_back(static_cast<std::int32_t>(i));
    std::make_heap(ready.begin(), ready.end(), later);
    std::mutex m;
    std::condition_variable cv;
    std::size_t in_flight = 0;
    std::exception_ptr failure;
    std::atomic<std::uint64_t> events{0};
    auto worker = [&](std::size_t, std::size_t) {
        std::unique_ptr<SectorSearch> own = take_search();
        std::unique_lock<std::mutex> lock(m);
        for (;;) {
            // An item in flight on another thread may make more ready; none in flight and none
            // ready means all are made (or one failed).
            if (ready.empty() && in_flight > 0 && !failure) {
                // Spin a little before sleeping: the next item is usually a field's build
                // (about 0.1 ms) away, and waking a sleeping thread costs about as much.
                const std::uint64_t seen = events.load(std::memory_order_relaxed);
                lock.unlock();
                const auto spin_start = std::chrono::steady_clock::now();
                while (events.load(std::memory_order_acquire) == seen &&
                       std::chrono::steady_clock::now() - spin_start < std::chrono::microseconds(300)) {
                    std::this_thread::yield();
                }
                lock.lock();
            }
            cv.wait(lock, [&] { return !ready.empty() || in_flight == 0 || failure; });
            if (ready.empty() || failure) break;
            std::pop_heap(ready.begin(), ready.end(), later);
            const std::int32_t i = ready.back();
            ready.pop_back();
            ++in_flight;
            lock.unlock();
            const int sec = items[static_cast<std::size_t>(i)];
            std::unique_ptr<SectorField> f;
            std::exception_ptr err;
            try {
                f = make_field(sec, *own, false, [&](int t) -> const SectorField* {
                    const std::int32_t j = slot_of[static_cast<std::size_t>(t)];
                    if (j >= 0 && level[static_cast<std::size_t>(t)] < level[static_cast<std::size_t>(sec)])
                        return made[static_cast<std::size_t>(j)].get();
                    return fields[static_cast<std::size_t>(t)].get();
                });
            } catch (...) {
                err = std::current_exception();
            }
            lock.lock();
            --in_flight;
            if (err) {
                failure = err;
            } else {
                made[static_cast<std::size_t>(i)] = std::move(f);
                for (std::int32_t e = w.first[static_cast<std::size_t>(i)];
                     e < w.first[static_cast<std::size_t>(i) + 1]; ++e) {
                    const std::int32_t d = w.after[static_cast<std::size_t>(e)];
                    if (--w.waiting[static_cast<std::size_t>(d)] == 0) {
                        ready.push_back(d);
                        std::push_heap(ready.begin(), ready.end(), later);
                    }
                }
            }
            events.fetch_add(1, std::memory_order_release);
            cv.notify_all();
        }
        lock.unlock();
        give_search(std::move(own));
    };
    const std::size_t workers = static_cast<std::size_t>(jobs->max_concurrency());
    parallel_for(*jobs, std::min(workers, n), 1, worker);
    for (int sec : items) slot_of[static_cast<std::size_t>(sec)] = -1;
    if (failure) std::rethrow_exception(failure);
    for (std::size_t i = 0; i < n; ++i) {
        TIDE_ASSERT(made[i] != nullptr);
        store(items[i], std::move(made[i]));
    }
}

HierarchicalField::State::LevelWaits HierarchicalField::State::level_waits(const std::vector<int>& items,
                                                                           const std::vector<int>& level) const {
    const std::size_t n = items.size();
    const int sxc = graph->sectors_x(), syc = graph->sectors_y();
    auto earlier = [&](int sec, int k) -> std::int32_t {  // slot of neighbour k when it comes first
        const int tx = sec % sxc + kDirectionDx[k], ty = sec / sxc + kDirectionDy[k];
        if (tx < 0 || ty < 0 || tx >= sxc || ty >= syc) return -1;
        const int t = ty * sxc + tx;
        const std::int32_t j = slot_of[static_cast<std::size_t>(t)];
        return j >= 0 && level[static_cast<std::size_t>(t)] < level[static_cast<std::size_t>(sec)] ? j : -1;
    };
    LevelWaits w;
    w.waiting.assign(n, 0);
    w.first.assign(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        for (int k = 0; k < kDirectionCount; ++k) {
            const std::int32_t j = earlier(items[i], k);
            if (j < 0) continue;
            ++w.waiting[i];
            ++w.first[static_cast<std::size_t>(j) + 1];
        }
    }
    for (std::size_t j = 0; j < n; ++j) w.first[j + 1] += w.first[j];
    w.after.resize(static_cast<std::size_t>(w.first[n]));
    std::vector<std::int32_t> fill(w.first.begin(), w.first.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
        for (int k = 0; k < kDirectionCount; ++k) {
            const std::int32_t j = earlier(items[i], k);
            if (j >= 0)
                w.after[static_cast<std::size_t>(fill[static_cast<std::size_t>(j)]++)] = static_cast<std::int32_t>(i);
        }
    }
    w.tail.assign(n, 0);
    for (std::size_t i = n; i-- > 0;) {
        for (std::int32_t e = w.first[i]; e < w.first[i + 1]; ++e)
            w.tail[i] = std::max(w.tail[i], w.tail[static_cast<std::size_t>(w.after[static_cast<std::size_t>(e)])] + 1);
    }
    return w;
}

std::unique_ptr<SectorSearch> HierarchicalField::State::take_search() {
    std::lock_guard<std::mutex> lock(pool_mutex);
    if (pool.empty()) return std::make_unique<SectorSearch>();
    std::unique_ptr<SectorSearch> own = std::move(pool.back());
    pool.pop_back();
    return own;
}

void HierarchicalField::State::give_search(std::unique_ptr<SectorSearch> own) {
    std::lock_guard<std::mutex> lock(pool_mutex);
    pool.push_back(std::move(own));
}

void HierarchicalField::State::drop(int s) {
    auto& f = fields[static_cast<std::size_t>(s)];
    if (!f) return;
    bytes -= f->integration.capacity() * sizeof(float) + f->directions.capacity();
    f.reset();
    --built;
}

}  // namespace tide
