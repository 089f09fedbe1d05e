// Unit sizes: sized cost fields against a brute-force block test, their repair after terrain
// edits, and fields built on them against a reference Dijkstra that tests the s x s blocks of
// every move itself.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"
#include "tide/unit_class.hpp"

namespace tide {
namespace {

using test::random_int;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The block of a unit of `size` standing on (x, y), tested cell by cell: wall unless it lies on
// the map and is all passable, else its dearest cell.
Cost block_cost(const CostField& terrain, int size, int x, int y) {
    Cost dearest = 0;
    for (int dy = 0; dy < size; ++dy) {
        for (int dx = 0; dx < size; ++dx) {
            if (!terrain.passable(x + dx, y + dy)) return kCostWall;
            dearest = std::max(dearest, terrain.at(x + dx, y + dy));
        }
    }
    return dearest;
}

::testing::AssertionResult matches_block_test(const CostField& terrain, int size, const CostField& sized) {
    if (sized.width() != terrain.width() || sized.height() != terrain.height()) {
        return ::testing::AssertionFailure() << "sized field is " << sized.width() << "x" << sized.height();
    }
    for (int y = 0; y < terrain.height(); ++y) {
        for (int x = 0; x < terrain.width(); ++x) {
            const int want = block_cost(terrain, size, x, y);
            if (sized.at(x, y) != want) {
                return ::testing::AssertionFailure() << "size " << size << ", cell (" << x << ", " << y
                                                     << "): " << int{sized.at(x, y)} << ", block test " << want;
            }
        }
    }
    return ::testing::AssertionSuccess();
}

// A w x h map: walls with probability wall_percent, other costs 1..4 or 1..254.
CostField random_terrain(std::mt19937& rng, int w, int h, int wall_percent) {
    CostField terrain = CostField::create(w, h).value();
    const int dearest = random_int(rng, 0, 1) == 0 ? 4 : kCostMax;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const bool wall = random_int(rng, 0, 99) < wall_percent;
            terrain.set(x, y, wall ? kCostWall : static_cast<Cost>(random_int(rng, 1, dearest)));
        }
    }
    return terrain;
}

std::string text(const CellRect& r) {
    if (r.empty()) return "empty";
    std::string out = "[";
    out.append(std::to_string(r.x0)).append(", ").append(std::to_string(r.x1)).append("] x [");
    out.append(std::to_string(r.y0)).append(", ").append(std::to_string(r.y1)).append("]");
    return out;
}

TEST(SizedCostField, MatchesABlockTestOnRandomMaps) {
    std::mt19937 rng(2024);
    for (int trial = 0; trial < 400; ++trial) {
        // Sparse walls half the time, so that large units find room; thin maps now and then.
        const int w = trial % 9 == 0 ? random_int(rng, 1, 7) : random_int(rng, 1, 40);
        const int h = trial % 9 == 1 ? random_int(rng, 1, 7) : random_int(rng, 1, 40);
        const int walls = trial % 2 == 0 ? random_int(rng, 0, 3) : random_int(rng, 0, 40);
        const CostField terrain = random_terrain(rng, w, h, walls);
        for (int size = 1; size <= kMaxUnitSize; ++size) {
            auto sized = sized_cost_field(terrain, size);
            ASSERT_TRUE(sized.ok()) << sized.error().message;
            ASSERT_TRUE(matches_block_test(terrain, size, *sized)) << "trial " << trial << ", " << w << "x" << h;
        }
    }
}

TEST(SizedCostField, MapsNarrowerThanTheUnitAreAllWall) {
    for (const auto& [w, h, size] :
         {std::tuple{3, 20, 4}, std::tuple{20, 3, 4}, std::tuple{7, 7, 8}, std::tuple{1, 1, 2}, std::tuple{1, 50, 8}}) {
        const CostField open = CostField::create(w, h).value();
        auto sized = sized_cost_field(open, size);
        ASSERT_TRUE(sized.ok()) << sized.error().message;
        for (Cost c : sized->cells()) ASSERT_EQ(c, kCostWall) << w << "x" << h << ", size " << size;
    }
    // Exactly as wide as the unit: one column of positions.
    const CostField open = CostField::create(4, 6, kCostForest).value();
    auto sized = sized_cost_field(open, 4);
    ASSERT_TRUE(sized.ok());
    for (int y = 0; y < 6; ++y) {
        for (int x = 0; x < 4; ++x) EXPECT_EQ(sized->at(x, y), x == 0 && y <= 2 ? kCostForest : kCostWall) << x << y;
    }
}

TEST(SizedCostField, SizeOneIsACopy) {
    std::mt19937 rng(7);
    const CostField terrain = random_terrain(rng, 17, 9, 20);
    auto sized = sized_cost_field(terrain, 1);
    ASSERT_TRUE(sized.ok());
    EXPECT_TRUE(std::ranges::equal(sized->cells(), terrain.cells()));
}

TEST(SizedCostField, RefusesSizesOutsideOneToEight) {
    const CostField terrain = CostField::create(10, 10).value();
    for (int size : {0, -1, 9, 1000}) {
        auto sized = sized_cost_field(terrain, size);
        ASSERT_FALSE(sized.ok()) << size;
        EXPECT_NE(sized.error().message.find(std::to_string(size)), std::string::npos) << sized.error().message;
        EXPECT_NE(sized.error().message.find("1..8"), std::string::npos) << sized.error().message;
    }
}

TEST(SizedCostField, UsesTheGivenMemoryResource) {
    const CostField terrain = CostField::create(64, 64).value();
    for (int size : {1, 3}) {
        test::CountingResource counting;
        auto sized = sized_cost_field(terrain, size, &counting);
        ASSERT_TRUE(sized.ok());
        EXPECT_GE(counting.bytes_allocated(), terrain.size()) << size;
    }
}

TEST(UpdateSizedCostField, EqualsAFreshFieldAfterRandomEdits) {
    std::mt19937 rng(99);
    for (int trial = 0; trial < 600; ++trial) {
        const int w = random_int(rng, 1, 30);
        const int h = random_int(rng, 1, 30);
        const int size = random_int(rng, 1, kMaxUnitSize);
        CostField terrain = random_terrain(rng, w, h, random_int(rng, 0, 15));
        CostField sized = sized_cost_field(terrain, size).value();
        for (int edit = 0; edit < 6; ++edit) {
            // Rectangles partly or wholly off the map, and empty ones, too.
            CellRect changed;
            changed.x0 = random_int(rng, -4, w + 2);
            changed.y0 = random_int(rng, -4, h + 2);
            changed.x1 = changed.x0 + random_int(rng, -1, 7);
            changed.y1 = changed.y0 + random_int(rng, -1, 7);
            const bool walls = random_int(rng, 0, 2) == 0;
            for (int y = std::max(changed.y0, 0); y <= std::min(changed.y1, h - 1); ++y) {
                for (int x = std::max(changed.x0, 0); x <= std::min(changed.x1, w - 1); ++x) {
                    terrain.set(x, y, walls ? kCostWall : static_cast<Cost>(random_int(rng, 1, 9)));
                }
            }
            const CostField before = sized;
            const CellRect got = update_sized_cost_field(terrain, size, changed, sized);

            CellRect want;  // the sized cells whose blocks overlap the edited cells on the map
            const CellRect edited{std::max(changed.x0, 0), std::max(changed.y0, 0), std::min(changed.x1, w - 1),
                                  std::min(changed.y1, h - 1)};
            if (!edited.empty()) {
                want = {std::max(edited.x0 - size + 1, 0), std::max(edited.y0 - size + 1, 0), edited.x1, edited.y1};
            }
            const std::string where = "trial " + std::to_string(trial) + ", edit " + std::to_string(edit) + ", " +
                                      std::to_string(w) + "x" + std::to_string(h) + ", size " + std::to_string(size) +
                                      ", changed " + text(changed);
            ASSERT_EQ(text(got), text(want)) << where;
            ASSERT_TRUE(got == want) << where;
            ASSERT_TRUE(matches_block_test(terrain, size, sized)) << where;
            // Nothing outside the returned rectangle was touched.
            for (int y = 0; y < h; ++y) {
                for (int x = 0; x < w; ++x) {
                    if (x >= got.x0 && x <= got.x1 && y >= got.y0 && y <= got.y1) continue;
                    ASSERT_EQ(sized.at(x, y), before.at(x, y)) << where << ", cell (" << x << ", " << y << ")";
                }
            }
        }
    }
}

TEST(UpdateSizedCostField, OpeningAWallFreesTheBlocksAroundIt) {
    CostField terrain = test::grid_from_rows({
        "......",
        "......",
        "..#...",
        "......",
    });
    CostField sized = sized_cost_field(terrain, 2).value();
    EXPECT_EQ(sized.at(1, 1), kCostWall);
    EXPECT_EQ(sized.at(2, 2), kCostWall);
    terrain.set(2, 2, kCostSwamp);
    const CellRect r = update_sized_cost_field(terrain, 2, {2, 2, 2, 2}, sized);
    EXPECT_TRUE((r == CellRect{1, 1, 2, 2})) << text(r);
    for (const auto& [x, y] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 2}, std::pair{2, 2}}) {
        EXPECT_EQ(sized.at(x, y), kCostSwamp) << x << ", " << y;
    }
    EXPECT_EQ(sized.at(0, 0), kCostPlain);
}

TEST(UpdateSizedCostField, EmptyAndFarOffRectanglesRecomputeNothing) {
    const CostField terrain = CostField::create(10, 8).value();
    CostField sized = sized_cost_field(terrain, 3).value();
    const std::uint64_t version = sized.version();
    constexpr int kLow = std::numeric_limits<int>::min();
    constexpr int kHigh = std::numeric_limits<int>::max();
    for (const CellRect& changed : {CellRect{}, CellRect{4, 4, 3, 4}, CellRect{kLow, kLow, -1, -1},
                                    CellRect{10, 0, kHigh, kHigh}, CellRect{0, 8, 9, kHigh}}) {
        EXPECT_TRUE(update_sized_cost_field(terrain, 3, changed, sized).empty()) << text(changed);
    }
    EXPECT_EQ(sized.version(), version);
    // The whole plane: every cell.
    const CellRect all = update_sized_cost_field(terrain, 3, {kLow, kLow, kHigh, kHigh}, sized);
    EXPECT_TRUE((all == CellRect{0, 0, 9, 7})) << text(all);
    EXPECT_TRUE(matches_block_test(terrain, 3, sized));
}

// --- Fields for sized units against a reference that tests the blocks ---------------------------

// Least cost from every cell (the top-left cell of a unit of `size`) to its nearest goal: a move
// needs both blocks passable and, when diagonal, both orthogonally adjacent blocks; it costs its
// length times the dearest cell of the block entered. Plain Dijkstra, reverse from the goals.
std::vector<double> block_distances(const CostField& terrain, int size, std::span<const Cell> goals,
                                    const FieldParams& params) {
    static constexpr int kDx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
    static constexpr int kDy[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    const int w = terrain.width();
    auto open = [&](int x, int y) { return block_cost(terrain, size, x, y) != kCostWall; };
    std::vector<double> dist(terrain.size(), kInf);
    using Item = std::pair<double, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
    for (const Cell& g : goals) {
        dist[static_cast<std::size_t>(g.y * w + g.x)] = 0.0;
        queue.push({0.0, g.y * w + g.x});
    }
    while (!queue.empty()) {
        const auto [d, v] = queue.top();
        queue.pop();
        if (d > dist[static_cast<std::size_t>(v)]) continue;
        const int vx = v % w;
        const int vy = v / w;
        for (int dir = 0; dir < 8; ++dir) {
            const bool diagonal = dir % 2 == 1;
            if (diagonal && params.connectivity == Connectivity::four) continue;
            const int ux = vx - kDx[dir];
            const int uy = vy - kDy[dir];
            if (!terrain.contains(ux, uy) || !open(ux, uy) || !open(vx, vy)) continue;
            if (diagonal && (!open(vx, uy) || !open(ux, vy))) continue;
            const double length = diagonal ? params.diagonal_factor : 1.0;
            const double cand = d + length * block_cost(terrain, size, vx, vy);
            const auto u = static_cast<std::size_t>(uy * w + ux);
            if (cand < dist[u]) {
                dist[u] = cand;
                queue.push({cand, uy * w + ux});
            }
        }
    }
    return dist;
}

void expect_sized_fields_match_the_block_reference(int size) {
    FieldBuilder builder;
    FlowField field;
    int compared = 0;
    for (std::uint32_t seed = 1; seed <= 300; ++seed) {
        test::RandomCase c = test::make_random_case(seed * 7919 + static_cast<std::uint32_t>(size), 36);
        const CostField sized = sized_cost_field(c.cost, size).value();
        std::vector<Cell> goals;
        for (const Cell& g : c.goals) {
            if (auto open = nearest_passable(sized, g)) goals.push_back(*open);
        }
        if (goals.empty()) continue;  // no room for a unit this size
        ASSERT_TRUE(builder.build(sized, goals, c.params, field).ok()) << c.description;
        const std::vector<double> want = block_distances(c.cost, size, goals, c.params);
        for (int y = 0; y < sized.height(); ++y) {
            for (int x = 0; x < sized.width(); ++x) {
                const double got = field.integration(x, y);
                const double ref = want[static_cast<std::size_t>(y * sized.width() + x)];
                if (std::isinf(ref)) {
                    ASSERT_TRUE(std::isinf(got)) << c.description << ", size " << size << ", cell (" << x << ", " << y
                                                 << "): " << got << ", reference unreachable";
                } else {
                    ASSERT_NEAR(got, ref, 1e-6 * std::max(1.0, ref))
                        << c.description << ", size " << size << ", cell (" << x << ", " << y << ")";
                }
            }
        }
        ++compared;
    }
    EXPECT_GT(compared, 150);
}

TEST(SizedFields, SizeTwoMatchesABlockReferenceOnRandomWeightedMaps) {
    expect_sized_fields_match_the_block_reference(2);
}

TEST(SizedFields, SizeThreeMatchesABlockReferenceOnRandomWeightedMaps) {
    expect_sized_fields_match_the_block_reference(3);
}

TEST(SizedFields, AOneCellGapLetsSizeOneThroughAndSendsSizeTwoRound) {
    // Row 4 is a wall with a one-cell gap at x = 2 and a three-cell opening at the far right.
    const CostField terrain = test::grid_from_rows({
        "............",
        "............",
        "............",
        "............",
        "##.######...",
        "............",
        "............",
        "............",
        "............",
    });
    const Cell start{2, 1};
    const Cell goal{2, 7};
    const Cell gap{2, 4};
    const FlowField small = build_flow_field(sized_cost_field(terrain, 1).value(), std::span(&goal, 1)).value();
    const FlowField large = build_flow_field(sized_cost_field(terrain, 2).value(), std::span(&goal, 1)).value();

    EXPECT_FLOAT_EQ(small.integration(start.x, start.y), 6.0f);  // straight down through the gap
    ASSERT_TRUE(large.reachable(start.x, start.y));
    // Round by the opening: x 2 -> 9 and back costs at least 7 + 7 orthogonal-or-diagonal moves.
    EXPECT_GT(large.integration(start.x, start.y), small.integration(start.x, start.y) + 6.0f);

    // Size 1 goes through the gap; no size-2 unit ever stands where its block would cover it.
    bool through_gap = false;
    for (Cell c = start; small.direction(c.x, c.y) != Direction::goal;) {
        const auto next = small.next_index(c.x, c.y);
        ASSERT_GE(next, 0);
        c = {static_cast<int>(next % terrain.width()), static_cast<int>(next / terrain.width())};
        through_gap = through_gap || c == gap;
    }
    EXPECT_TRUE(through_gap);
    for (int y = 0; y < terrain.height(); ++y) {
        for (int x = 0; x < terrain.width(); ++x) {
            const auto next = large.next_index(x, y);
            if (next < 0) continue;
            const int nx = static_cast<int>(next % terrain.width());
            const int ny = static_cast<int>(next / terrain.width());
            const bool covers_gap = nx <= gap.x && gap.x < nx + 2 && ny <= gap.y && gap.y < ny + 2;
            EXPECT_FALSE(covers_gap) << "size 2 moves from (" << x << ", " << y << ") to (" << nx << ", " << ny << ")";
        }
    }
}

}  // namespace
}  // namespace tide
