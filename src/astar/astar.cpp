// A* with the field cost model: a move x -> y costs length * cost(y); diagonals need both
// orthogonal neighbours open. Heuristic: octile distance times the smallest passable cost on the
// map, which never overestimates, so the first time the goal is popped its cost is optimal.

#include <algorithm>
#include <cmath>
#include <string>

#include "../grid/cell_checks.hpp"
#include "tide/astar.hpp"

namespace tide {
namespace {

bool entry_after(double fa, double ga, double fb, double gb) {
    // Min-heap on f; on equal f prefer the larger g (deeper node), which expands fewer cells.
    return fa > fb || (fa == fb && ga < gb);
}

}  // namespace

PathFinder::PathFinder(const FieldParams& params, std::pmr::memory_resource* memory)
    : params_(params), cost_(memory), g_(memory), seen_(memory), parent_(memory), heap_(memory) {}

Result<PathFinder> PathFinder::create(const CostField& cost, const FieldParams& params,
                                      std::pmr::memory_resource* memory) {
    if (params.connectivity == Connectivity::eight &&
        !(params.diagonal_factor >= 1.0 && params.diagonal_factor <= 2.0)) {
        return Error{"diagonal factor " + std::to_string(params.diagonal_factor) + " is outside 1..2"};
    }
    PathFinder finder(params, memory);
    finder.reset(cost);
    return finder;
}

void PathFinder::reset(const CostField& cost) {
    width_ = cost.width();
    height_ = cost.height();
    pw_ = width_ + 2;
    const std::size_t n = static_cast<std::size_t>(pw_) * (height_ + 2);
    cost_.assign(n, kCostWall);
    Cost lo = kCostMax;
    for (int y = 0; y < height_; ++y) {
        const Cost* src = cost.cells().data() + static_cast<std::size_t>(y) * width_;
        std::copy_n(src, width_, cost_.data() + static_cast<std::size_t>(y + 1) * pw_ + 1);
        for (int x = 0; x < width_; ++x) {
            if (src[x] != kCostWall) lo = std::min(lo, src[x]);
        }
    }
    min_cost_ = lo;
    if (g_.size() != n) {
        g_.assign(n, 0.0);
        seen_.assign(n, 0);
        parent_.assign(n, 0);
        generation_ = 0;
    }
}

Result<double> PathFinder::find_path(Cell start, Cell goal, std::pmr::vector<Cell>* path) {
    for (const auto& [name, c] : {std::pair{"start", start}, std::pair{"goal", goal}}) {
        if (c.x < 0 || c.y < 0 || c.x >= width_ || c.y >= height_) {
            return detail::outside_error(name, c, width_, height_);
        }
        if (cost_[static_cast<std::size_t>(c.y + 1) * pw_ + c.x + 1] == kCostWall) {
            return Error{ErrorCode::on_wall, std::string(name) + " " + detail::cell_text(c) + " is on a wall"};
        }
    }
    if (path) path->clear();
    if (++generation_ == 0) {  // stamp wrapped: clear once every 2^32 searches
        std::fill(seen_.begin(), seen_.end(), 0u);
        generation_ = 1;
    }
    const bool eight = params_.connectivity == Connectivity::eight;
    const double diag = eight ? params_.diagonal_factor : 1.0;
    const double hscale = min_cost_;
    const int gx = goal.x + 1, gy = goal.y + 1;
    auto heuristic = [&](std::int32_t c) {
        const int dx = std::abs(c % pw_ - gx);
        const int dy = std::abs(c / pw_ - gy);
        if (!eight) return hscale * (dx + dy);
        const int lo = std::min(dx, dy), hi = std::max(dx, dy);
        return hscale * ((hi - lo) + diag * lo);
    };
    const std::int32_t off[kDirectionCount] = {1, pw_ + 1, pw_, pw_ - 1, -1, -pw_ - 1, -pw_, -pw_ + 1};
    const std::int32_t s = (start.y + 1) * pw_ + start.x + 1;
    const std::int32_t t = (goal.y + 1) * pw_ + goal.x + 1;
    const Cost* const pc = cost_.data();
    double* const g = g_.data();
    std::uint32_t* const seen = seen_.data();
    const std::uint32_t gen = generation_;
    // Closed cells are marked by a negative g (costs are >= 1, so a real g is never negative).
    auto cmp = [](const Entry& a, const Entry& b) { return entry_after(a.f, a.g, b.f, b.g); };
    heap_.clear();
    g[s] = 0.0;
    seen[s] = gen;
    heap_.push_back({heuristic(s), 0.0, s});
    expanded_ = 0;
    double result = std::numeric_limits<double>::infinity();
    while (!heap_.empty()) {
        std::pop_heap(heap_.begin(), heap_.end(), cmp);
        const Entry e = heap_.back();
        heap_.pop_back();
        const std::int32_t c = e.cell;
        if (g[c] < 0.0 || e.g > g[c]) continue;  // closed, or a stale entry
        if (c == t) {
            result = e.g;
            break;
        }
        g[c] = -1.0 - e.g;  // close, keeping the value recoverable
        ++expanded_;
        const int moves = eight ? kDirectionCount : kDirectionCount / 2;
        for (int k = 0; k < moves; ++k) {
            const int d = eight ? k : 2 * k;
            const std::int32_t q = c + off[d];
            if (pc[q] == kCostWall) continue;
            double step = pc[q];
            if (d & 1) {
                if (pc[c + off[(d + 7) & 7]] == kCostWall || pc[c + off[(d + 1) & 7]] == kCostWall) continue;
                step *= diag;
            }
            const double ng = e.g + step;
            if (seen[q] == gen) {
                if (g[q] < 0.0 || ng >= g[q]) continue;
            }
            seen[q] = gen;
            g[q] = ng;
            parent_[q] = static_cast<std::uint8_t>(d);
            heap_.push_back({ng + heuristic(q), ng, q});
            std::push_heap(heap_.begin(), heap_.end(), cmp);
        }
    }
    if (path && result != std::numeric_limits<double>::infinity()) {
        for (std::int32_t c = t;; c -= off[parent_[c]]) {
            path->push_back({c % pw_ - 1, c / pw_ - 1});
            if (c == s) break;
        }
        std::reverse(path->begin(), path->end());
    }
    return result;
}

}  // namespace tide
