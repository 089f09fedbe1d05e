// The state path's float to int conversions (src/grid/float_to_int.hpp): equal to the plain
// conversion for every value in range, defined (clamped, NaN to the low bound) for the rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "../../src/grid/float_to_int.hpp"

namespace tide::detail {
namespace {

TEST(FloatToInt, EqualsThePlainConversionInRange) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> any(-300.0f, 300.0f);
    for (int i = 0; i < 200000; ++i) {
        const float v = i < 8 ? static_cast<float>(i - 4) + (i % 2 ? 0.5f : 0.0f) : any(rng);
        ASSERT_EQ(clamped_int(v, -100, 100), std::clamp(static_cast<int>(v), -100, 100)) << v;
        ASSERT_EQ(clamped_int(v, 0, 255), std::clamp(static_cast<int>(v), 0, 255)) << v;
        ASSERT_EQ(clamped_floor(v, -100, 100), std::clamp(static_cast<int>(std::floor(v)), -100, 100)) << v;
        ASSERT_EQ(clamped_round(v, -127, 127), std::clamp(static_cast<int>(std::lround(v)), -127, 127)) << v;
    }
    // The boundaries themselves and values just inside them.
    EXPECT_EQ(clamped_int(0.0f, 0, 9), 0);
    EXPECT_EQ(clamped_int(-0.0f, 0, 9), 0);
    EXPECT_EQ(clamped_int(8.999f, 0, 9), 8);
    EXPECT_EQ(clamped_int(9.0f, 0, 9), 9);
    EXPECT_EQ(clamped_round(126.5f, -127, 127), 127);
    EXPECT_EQ(clamped_round(-126.5f, -127, 127), -127);
}

// clamped_round rounds without libm: every half, the floats either side of it, and a wide range
// against std::lround.
TEST(FloatToInt, RoundEqualsLroundAtHalvesAndFarOut) {
    for (int k = -300; k <= 300; ++k) {
        const float half = static_cast<float>(k) + 0.5f;
        for (const float v :
             {half, std::nextafter(half, -1e9f), std::nextafter(half, 1e9f), static_cast<float>(k),
              std::nextafter(static_cast<float>(k), -1e9f), std::nextafter(static_cast<float>(k), 1e9f)})
            ASSERT_EQ(clamped_round(v, -kCellLimit, kCellLimit), static_cast<int>(std::lround(v))) << v;
    }
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> wide(-1e9f, 1e9f);
    std::uniform_real_distribution<float> near(-2.0f, 2.0f);
    for (int i = 0; i < 200000; ++i) {
        const float v = i % 2 ? wide(rng) : near(rng);
        ASSERT_EQ(clamped_round(v, -kCellLimit, kCellLimit), static_cast<int>(std::lround(v))) << v;
    }
    EXPECT_EQ(clamped_round(0.49999997f, -9, 9), 0);
    EXPECT_EQ(clamped_round(-0.5f, -9, 9), -1);
}

TEST(FloatToInt, IsDefinedForNaNInfinityAndHugeValues) {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (const float v : {nan, -nan}) {
        EXPECT_EQ(clamped_int(v, 0, 63), 0);
        EXPECT_EQ(clamped_floor(v, -1, kCellLimit), -1);
        EXPECT_EQ(clamped_round(v, -127, 127), -127);
    }
    EXPECT_EQ(clamped_int(inf, 0, 63), 63);
    EXPECT_EQ(clamped_int(-inf, 0, 63), 0);
    EXPECT_EQ(clamped_int(3e38f, 0, 63), 63);
    EXPECT_EQ(clamped_floor(-3e38f, -kCellLimit, kCellLimit), -kCellLimit);
    EXPECT_EQ(clamped_round(1e20f, -127, 127), 127);
}

}  // namespace
}  // namespace tide::detail
