#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "tide/assert.hpp"
#include "tide/cost_field.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

struct AssertFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void throwing_handler(const char* expression, const char* file, int line) {
    throw AssertFailed(std::string(expression) + " at " + file + ":" + std::to_string(line));
}

// Installs the throwing handler for one test and restores the default afterwards.
class AssertHook : public ::testing::Test {
protected:
    void SetUp() override { set_assert_handler(&throwing_handler); }
    void TearDown() override { set_assert_handler(nullptr); }
};

TEST_F(AssertHook, CostFieldAtOffTheMapReportsThroughTheHandler) {
    CostField field = std::move(CostField::create(3, 2).value());
    EXPECT_THROW((void)field.at(3, 0), AssertFailed);
    EXPECT_THROW((void)field.at(0, 2), AssertFailed);
    EXPECT_THROW((void)field.at(-1, 0), AssertFailed);
    EXPECT_NO_THROW((void)field.at(2, 1));
}

TEST_F(AssertHook, CostFieldSetChecksCellAndCost) {
    CostField field = std::move(CostField::create(3, 2).value());
    EXPECT_THROW(field.set(5, 5, kCostPlain), AssertFailed);
    EXPECT_THROW(field.set(0, 0, 0), AssertFailed);
    EXPECT_EQ(field.at(0, 0), kCostPlain);
}

TEST_F(AssertHook, FlowFieldAccessorsCheckTheCell) {
    CostField cost = std::move(CostField::create(4, 4).value());
    const Cell goal{0, 0};
    auto field = build_flow_field(cost, {&goal, 1});
    ASSERT_TRUE(field.ok());
    EXPECT_THROW((void)field->integration(4, 0), AssertFailed);
    EXPECT_THROW((void)field->direction(0, -1), AssertFailed);
    EXPECT_NO_THROW((void)field->direction(3, 3));
}

TEST_F(AssertHook, HandlerReceivesExpressionAndLocation) {
    CostField field = std::move(CostField::create(1, 1).value());
    try {
        (void)field.at(1, 1);
        FAIL() << "no assertion";
    } catch (const AssertFailed& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("contains"), std::string::npos) << what;
        EXPECT_NE(what.find(".cpp:"), std::string::npos) << what;
    }
}

TEST(AssertDeath, DefaultHandlerAborts) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    CostField field = std::move(CostField::create(2, 2).value());
    EXPECT_DEATH((void)field.at(2, 2), "check failed");
}

}  // namespace
}  // namespace tide
