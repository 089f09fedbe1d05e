#include "support/test_maps.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace tide::test {
namespace {

int cost_of_char(char ch) {
    switch (ch) {
        case '.':
            return kCostPlain;
        case 'F':
            return kCostForest;
        case '~':
            return kCostSwamp;
        case '#':
            return kCostWall;
        case 'A':
            return 10;
        case 'B':
            return 20;
        case 'C':
            return 30;
        case 'D':
            return 40;
        case 'E':
            return 50;
        case 'Z':
            return kCostMax;
        default:
            break;
    }
    if (ch >= '1' && ch <= '9') return ch - '0';
    return -1;
}

}  // namespace

CostField grid_from_rows(const std::vector<std::string_view>& rows) {
    const int h = static_cast<int>(rows.size());
    const int w = h > 0 ? static_cast<int>(rows[0].size()) : 0;
    auto made = CostField::create(w, h);
    if (!made) {
        ADD_FAILURE() << "grid_from_rows: " << made.error().message;
        return std::move(CostField::create(1, 1).value());
    }
    CostField field = std::move(made.value());
    for (int y = 0; y < h; ++y) {
        if (static_cast<int>(rows[static_cast<std::size_t>(y)].size()) != w) {
            ADD_FAILURE() << "grid_from_rows: row " << y << " is ragged";
            return field;
        }
        for (int x = 0; x < w; ++x) {
            const int c = cost_of_char(rows[static_cast<std::size_t>(y)][static_cast<std::size_t>(x)]);
            if (c < 0) {
                ADD_FAILURE() << "grid_from_rows: unknown character at (" << x << ", " << y << ")";
                return field;
            }
            field.set(x, y, static_cast<Cost>(c));
        }
    }
    return field;
}

int random_int(std::mt19937& rng, int lo, int hi) {
    return lo + static_cast<int>(rng() % static_cast<std::uint32_t>(hi - lo + 1));
}

Cost random_edit_cost(std::mt19937& rng) {
    switch (random_int(rng, 0, 5)) {
        case 0:
        case 1:
            return kCostWall;
        case 2:
            return kCostPlain;
        case 3:
            return static_cast<Cost>(random_int(rng, 1, 6));
        case 4:
            return static_cast<Cost>(random_int(rng, 1, 254));
        default:
            return kCostForest;
    }
}

RandomCase make_random_case(std::uint32_t seed, int max_side) {
    std::mt19937 rng(seed);
    // Mostly small and medium maps, with some thin ones (1 x N, N x 1).
    int w = random_int(rng, 1, max_side);
    int h = random_int(rng, 1, max_side);
    if (seed % 10 == 0) w = 1;
    if (seed % 10 == 1) h = 1;
    const int wall_percent = random_int(rng, 0, 40);
    const auto mix = static_cast<CostMix>(seed % 4);
    static constexpr double kFactors[4] = {1.4142135623730951, 1.4, 1.0, 2.0};
    FieldParams params;
    const int variant = static_cast<int>((seed / 4) % 5);
    if (variant == 4) {
        params.connectivity = Connectivity::four;
    } else {
        params.diagonal_factor = kFactors[variant];
    }

    CostField cost = std::move(CostField::create(w, h).value());
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            Cost c = kCostPlain;
            switch (mix) {
                case CostMix::plain:
                    break;
                case CostMix::small:
                    c = static_cast<Cost>(random_int(rng, 1, 4));
                    break;
                case CostMix::presets: {
                    const int r = random_int(rng, 0, 99);
                    c = r < 70 ? kCostPlain : r < 85 ? kCostForest : r < 97 ? kCostSwamp : kCostMax;
                    break;
                }
                case CostMix::full_range:
                    c = static_cast<Cost>(random_int(rng, 1, kCostMax));
                    break;
            }
            if (random_int(rng, 0, 99) < wall_percent) c = kCostWall;
            cost.set(x, y, c);
        }
    }
    std::vector<Cell> goals;
    const int goal_count = random_int(rng, 1, 3);
    for (int g = 0; g < goal_count; ++g) {
        const Cell c{random_int(rng, 0, w - 1), random_int(rng, 0, h - 1)};
        if (cost.at(c) == kCostWall) cost.set(c.x, c.y, kCostPlain);  // goals must be passable
        goals.push_back(c);
    }
    static constexpr const char* kMixNames[4] = {"plain", "small", "presets", "full_range"};
    std::string description =
        "seed " + std::to_string(seed) + ", " + std::to_string(w) + "x" + std::to_string(h) + ", walls " +
        std::to_string(wall_percent) + "%, costs " + kMixNames[static_cast<int>(mix)] + ", " +
        (params.connectivity == Connectivity::four ? std::string("four-connected")
                                                   : "diagonal factor " + std::to_string(params.diagonal_factor)) +
        ", " + std::to_string(goals.size()) + " goal(s)";
    return {std::move(cost), std::move(goals), params, std::move(description)};
}

}  // namespace tide::test
