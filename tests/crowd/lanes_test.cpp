// The keep-right lanes' integers (src/crowd/phases.hpp): both heading sums packed in one 64-bit
// add, and the walking-group tag (tide::detail::relaxed_tag) that any order of threads ends alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "phases.hpp"
#include "tide/detail/compat.hpp"

namespace tide::crowd_detail {
namespace {

TEST(Lanes, PackedSumsComeApartAsTheTwoSums) {
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> heading(-127, 127);
    for (int round = 0; round < 200; ++round) {
        const int n = round % 2 ? 1000 : round;  // up to 1,000 headings in one cell
        LaneSum packed = 0;
        std::int64_t sx = 0, sy = 0;
        for (int i = 0; i < n; ++i) {
            const int x = heading(rng), y = heading(rng);
            packed += lane_of(x, y);
            sx += x;
            sy += y;
        }
        ASSERT_EQ(lane_x(packed), sx);
        ASSERT_EQ(lane_y(packed), sy);
        ASSERT_EQ(packed == 0, sx == 0 && sy == 0);
    }
    EXPECT_EQ(lane_x(lane_of(-127, -127)), -127);
    EXPECT_EQ(lane_y(lane_of(-127, -127)), -127);
    EXPECT_EQ(lane_y(lane_of(127, -1)), -1);
}

TEST(Lanes, WalkingGroupTagEndsTheSameInAnyOrder) {
    constexpr std::uint32_t none = kNoWalkers, mixed = kMixedWalkers;
    auto tagged = [&](const std::vector<std::uint32_t>& groups) {
        std::uint32_t tag = none;
        for (const std::uint32_t g : groups) tide::detail::relaxed_tag(tag, g, none, mixed);
        return tag;
    };
    EXPECT_EQ(tagged({}), none);
    EXPECT_EQ(tagged({3, 3, 3}), 3u);
    EXPECT_EQ(tagged({3, 4}), mixed);
    EXPECT_EQ(tagged({4, 3, 3, 3}), mixed);
    EXPECT_EQ(tagged({3, 3, 4, 3}), mixed);
    // Two threads tagging one word: 3s and a single 4 end mixed, 3s alone end 3.
    for (int round = 0; round < 200; ++round) {
        for (const bool other : {false, true}) {
            std::uint32_t tag = none;
            std::thread a([&] {
                for (int i = 0; i < 500; ++i) tide::detail::relaxed_tag(tag, 3u, none, mixed);
            });
            std::thread b([&] {
                for (int i = 0; i < 500; ++i) tide::detail::relaxed_tag(tag, other && i == 250 ? 4u : 3u, none, mixed);
            });
            a.join();
            b.join();
            ASSERT_EQ(tag, other ? mixed : 3u);
        }
    }
}

}  // namespace
}  // namespace tide::crowd_detail
