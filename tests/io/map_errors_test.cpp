// REQUIRED 9: malformed maps. Each error names the source, the line and what was wrong.

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "support/expect_error.hpp"
#include "tide/map_io.hpp"

namespace tide {
namespace {

using test::failed_at;

Result<Map> parse(std::string_view text) {
    return parse_map(text, "maps/bad.map");
}

constexpr std::string_view kSrc = "maps/bad.map";

TEST(MapErrors, EmptyFile) {
    EXPECT_TRUE(failed_at(parse(""), kSrc, 1, {"empty"}));
}

TEST(MapErrors, WhitespaceOnlyFile) {
    EXPECT_TRUE(failed_at(parse("   \n\t\n\n"), kSrc, 1, {"empty"}));
    EXPECT_TRUE(failed_at(parse("\r\n\r\n"), kSrc, 1, {"empty"}));
}

TEST(MapErrors, UnsupportedMovingAiType) {
    EXPECT_TRUE(failed_at(parse("type tile\nheight 1\nwidth 1\nmap\n.\n"), kSrc, 1, {"tile", "octile"}));
}

TEST(MapErrors, UnsupportedTideVersion) {
    EXPECT_TRUE(failed_at(parse("tide-map 2\nwidth 1\nheight 1\nmap\n.\n"), kSrc, 1, {"version", "tide-map 1"}));
    EXPECT_TRUE(failed_at(parse("tide-map\nwidth 1\nheight 1\nmap\n.\n"), kSrc, 1, {"version"}));
}

TEST(MapErrors, GarbageFirstLine) {
    EXPECT_TRUE(failed_at(parse("hello world\n...\n"), kSrc, 1, {"format", "hello world"}));
    // The first non-blank line counts.
    EXPECT_TRUE(failed_at(parse("\n\nP3 4 4\n"), kSrc, 3, {"format"}));
}

TEST(MapErrors, HeightZero) {
    EXPECT_TRUE(failed_at(parse("type octile\nheight 0\nwidth 4\nmap\n"), kSrc, 2, {"height", "0", "16384"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 4\nheight 0\nmap\n"), kSrc, 3, {"height", "0"}));
}

TEST(MapErrors, WidthTooLarge) {
    EXPECT_TRUE(failed_at(parse("type octile\nheight 1\nwidth 16385\nmap\n.\n"), kSrc, 3, {"width", "16385"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 16385\nheight 1\nmap\n.\n"), kSrc, 2, {"width", "16385"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 99999999999999999999999\nheight 1\nmap\n.\n"), kSrc, 2, {"width"}));
}

TEST(MapErrors, NegativeWidth) {
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth -3\nheight 1\nmap\n.\n"), kSrc, 2, {"width", "-3"}));
}

TEST(MapErrors, HeightNotANumber) {
    EXPECT_TRUE(failed_at(parse("type octile\nheight abc\nwidth 4\nmap\n"), kSrc, 2, {"height", "abc", "number"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 2\nheight 1.5\nmap\n..\n"), kSrc, 3, {"height", "1.5"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 2\nheight 2x\nmap\n..\n..\n"), kSrc, 3, {"height", "2x"}));
}

TEST(MapErrors, MissingMapLine) {
    EXPECT_TRUE(failed_at(parse("type octile\nheight 1\nwidth 2\n"), kSrc, 3, {"map"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 2\nheight 1\n"), kSrc, 3, {"map"}));
    // Rows without a 'map' line: the first row is an unexpected header line.
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 2\nheight 1\n..\n"), kSrc, 4, {".."}));
}

TEST(MapErrors, MissingHeight) {
    EXPECT_TRUE(failed_at(parse("type octile\nwidth 2\nmap\n..\n"), kSrc, 3, {"height"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 2\nmap\n..\n"), kSrc, 3, {"height"}));
}

TEST(MapErrors, MissingWidth) {
    EXPECT_TRUE(failed_at(parse("type octile\nheight 1\nmap\n..\n"), kSrc, 3, {"width"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nheight 1\nmap\n..\n"), kSrc, 3, {"width"}));
}

TEST(MapErrors, UnknownHeaderLine) {
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 2\nheight 1\ncolour red\nmap\n..\n"), kSrc, 4, {"colour"}));
    EXPECT_TRUE(failed_at(parse("type octile\nheight 1\nwidth 2 3\nmap\n..\n"), kSrc, 3, {"width 2 3"}));
}

TEST(MapErrors, RowTooShort) {
    EXPECT_TRUE(failed_at(parse("type octile\nheight 3\nwidth 4\nmap\n....\n...\n....\n"), kSrc, 6,
                          {"row", "3", "expected 4"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 4\nheight 2\nmap\n....\n\n"), kSrc, 6, {"row", "0"}));
}

TEST(MapErrors, RowTooLong) {
    EXPECT_TRUE(
        failed_at(parse("tide-map 1\nwidth 4\nheight 2\nmap\n.....\n....\n"), kSrc, 5, {"row", "5", "expected 4"}));
    // CRLF: the '\r' is not part of the row, so a correct row is not "too long", but a real extra char is.
    EXPECT_TRUE(
        failed_at(parse("tide-map 1\r\nwidth 4\r\nheight 2\r\nmap\r\n....\r\n.....\r\n"), kSrc, 6, {"row", "5"}));
}

TEST(MapErrors, MissingRows) {
    EXPECT_TRUE(failed_at(parse("type octile\nheight 3\nwidth 2\nmap\n..\n..\n"), kSrc, 6, {"2 rows", "3"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 2\nheight 2\nmap\n"), kSrc, 4, {"0 rows", "2"}));
}

TEST(MapErrors, ExtraLineAfterTheRows) {
    EXPECT_TRUE(failed_at(parse("type octile\nheight 2\nwidth 2\nmap\n..\n..\n..\n"), kSrc, 7, {"after", "rows"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 2\nheight 1\nmap\n..\n\n\nend\n"), kSrc, 8, {"after"}));
}

TEST(MapErrors, UnknownCharacterMovingAi) {
    EXPECT_TRUE(
        failed_at(parse("type octile\nheight 2\nwidth 3\nmap\n...\n.F.\n"), kSrc, 6, {"unknown", "'F'", "column 2"}));
    EXPECT_TRUE(failed_at(parse("type octile\nheight 1\nwidth 3\nmap\n.#.\n"), kSrc, 5, {"'#'"}));
}

TEST(MapErrors, UnknownCharacterTide) {
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 3\nheight 2\nmap\n...\n..G\n"), kSrc, 6,
                          {"unknown", "'G'", "column 3", "cell 2, 1"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 3\nheight 1\nmap\n. .\n"), kSrc, 5, {"unknown"}));
}

TEST(MapErrors, TabInsideARowIsUnknown) {
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 3\nheight 1\nmap\n.\t.\n"), kSrc, 5, {"column 2"}));
}

TEST(MapErrors, BinaryPngHeader) {
    static constexpr char kBytes[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06";
    const std::string png(kBytes, sizeof kBytes - 1);
    EXPECT_TRUE(failed_at(parse(png), kSrc, 1, {"0x89", "text"}));
}

TEST(MapErrors, NulBytesInsideAMap) {
    static constexpr char kText[] = "tide-map 1\nwidth 3\nheight 1\nmap\n.\0.\n";
    const std::string text(kText, sizeof kText - 1);
    EXPECT_TRUE(failed_at(parse(text), kSrc, 5, {"0x00", "column 2"}));
    static constexpr char kHeader[] = "tide-map 1\nwidth\0 3\n";
    const std::string header(kHeader, sizeof kHeader - 1);
    EXPECT_TRUE(failed_at(parse(header), kSrc, 2, {"0x00"}));
}

TEST(MapErrors, RandomBinaryNeverParsesAndNeverCrashes) {
    std::mt19937 rng(12345);
    for (int i = 0; i < 500; ++i) {
        std::string data(1 + rng() % 300, '\0');
        for (char& c : data) c = static_cast<char>(rng() & 0xff);
        data[rng() % data.size()] = '\0';  // at least one NUL
        const auto r = parse_map(data, "random.bin");
        ASSERT_FALSE(r.ok()) << "random bytes parsed as a map, case " << i;
        EXPECT_EQ(r.error().message.rfind("random.bin:", 0), 0u) << r.error().message;
    }
}

TEST(MapErrors, BinaryAfterAValidHeaderPrefix) {
    // Text first, then binary garbage: still an error on the binary line.
    const std::string text = std::string("tide-map 1\nwidth 2\nheight 2\nmap\n..\n") + "\xff\xfe";
    EXPECT_TRUE(failed_at(parse(text), kSrc, 6, {"0xFF"}));
}

TEST(MapErrors, LegendCostZero) {
    EXPECT_TRUE(
        failed_at(parse("tide-map 1\nwidth 1\nheight 1\nlegend x 0\nmap\nx\n"), kSrc, 4, {"legend", "'0'", "1..254"}));
}

TEST(MapErrors, LegendCost255) {
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 1\nheight 1\nlegend x 255\nmap\nx\n"), kSrc, 4, {"legend", "255"}));
}

TEST(MapErrors, LegendCostNotANumber) {
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 1\nheight 1\nlegend a x\nmap\na\n"), kSrc, 4, {"legend", "'x'"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 1\nheight 1\nlegend a -5\nmap\na\n"), kSrc, 4, {"-5"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 1\nheight 1\nlegend a 3.5\nmap\na\n"), kSrc, 4, {"3.5"}));
}

TEST(MapErrors, LegendTwoCharacterSymbol) {
    EXPECT_TRUE(
        failed_at(parse("tide-map 1\nwidth 1\nheight 1\nlegend ab 3\nmap\na\n"), kSrc, 4, {"legend", "one character"}));
}

TEST(MapErrors, LegendWrongFieldCount) {
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 1\nheight 1\nlegend a\nmap\na\n"), kSrc, 4, {"legend"}));
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 1\nheight 1\nlegend a 3 4\nmap\na\n"), kSrc, 4, {"legend"}));
}

TEST(MapErrors, LineNumbersCountCrlfLinesOnce) {
    const std::string text = "tide-map 1\r\nwidth 2\r\nheight 2\r\nmap\r\n..\r\n.X\r\n";
    EXPECT_TRUE(failed_at(parse(text), kSrc, 6, {"'X'"}));
}

TEST(MapErrors, SourceNameIsUsedVerbatim) {
    const auto r = parse_map("tide-map 1\nwidth 0\n", "C:/some dir/level 3.map");
    EXPECT_TRUE(failed_at(r, "C:/some dir/level 3.map", 2, {"width"}));
}

TEST(MapErrors, HugeHeaderWithoutRowsFailsFast) {
    // A 16384 x 16384 header with no rows must be reported, not allocated and filled.
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 16384\nheight 16384\nmap\n"), kSrc, 4, {"0 rows", "16384"}));
}

}  // namespace
}  // namespace tide
