// REQUIRED 9: malformed maps. Each error names the source, the line and what was wrong.

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "support/expect_error.hpp"
#include "support/test_maps.hpp"
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
    EXPECT_TRUE(failed_at(parse("tide-map 1\nwidth 4\nheight 2\nmap\n....\n\n"), kSrc, 6,
                          {"map row 1 has 0 characters, expected 4"}));
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

TEST(MapErrors, HugeHeaderWithEmptyRowsAllocatesNothingBig) {
    // 16,384 empty rows under a 16384 x 16384 header: about 16 KB of input. The rows are refused
    // before the 268 MB grid is allocated (the memory resource would see it).
    std::string text = "tide-map 1\nwidth 16384\nheight 16384\nmap\n";
    text.append(16384, '\n');
    test::CountingResource counting;
    auto r = parse_map(text, kSrc, &counting);
    EXPECT_TRUE(failed_at(r, kSrc, 5, {"map row 0 has 0 characters", "16384"}));
    EXPECT_LT(counting.bytes_allocated(), std::size_t{1} << 20) << counting.bytes_allocated() << " bytes";
}

// 32 classes with a cost line each on a 2900 x 2900 map (8.4 MB of text): their fields would
// hold 32 x 8.41 M cells, over kMaxClassCostCells; refused before any class field is allocated.
TEST(MapErrors, ClassCostFieldsCannotMultiplyTheMapsMemory) {
    const int side = 2900;
    std::string header = "tide-map 1\nwidth 2900\nheight 2900\n";
    for (int c = 0; c < kMaxUnitClasses; ++c) header += "class c" + std::to_string(c) + " cost . 2\n";
    std::string text = header + "map\n";
    const std::string row = std::string(side, '.') + "\n";
    text.reserve(text.size() + row.size() * side);
    for (int y = 0; y < side; ++y) text += row;
    test::CountingResource counting;
    auto r = parse_map(text, kSrc, &counting);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, std::string(kSrc) +
                                     ": 32 unit classes with costs of their own on a 2900x2900 map would hold "
                                     "269120000 cells; at most 268435456 together");
    EXPECT_LT(counting.bytes_allocated(), std::size_t{3} * side * side) << "the terrain only, not 33 fields";
    // One class fewer fits (31 x 8.41 M cells).
    const std::size_t cut = text.find("class c31");
    text.erase(cut, text.find('\n', cut) + 1 - cut);
    auto ok = parse_map(text, kSrc);
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_EQ(ok->classes.size(), 31u);
}

TEST(MapErrors, ShortLastRowIsFoundBeforeAllocating) {
    std::string text = "type octile\nheight 3\nwidth 4\nmap\n....\n....\n...\n";
    test::CountingResource counting;
    EXPECT_TRUE(failed_at(parse_map(text, kSrc, &counting), kSrc, 7, {"map row 2 has 3 characters"}));
    EXPECT_EQ(counting.bytes_allocated(), 0u);
}

// --- Unit classes -----------------------------------------------------------------------------

// A 2x1 Tide map whose header holds `lines` (one or more, each ending in '\n') from line 4 on.
std::string tide_with(std::string_view lines) {
    return "tide-map 1\nwidth 2\nheight 1\n" + std::string(lines) + "map\n.F\n";
}

TEST(MapErrors, ClassSizeOutsideOneToEight) {
    EXPECT_TRUE(failed_at(parse(tide_with("class big size 9\n")), kSrc, 4, {"class 'big' size 9 is outside 1..8"}));
    EXPECT_TRUE(failed_at(parse(tide_with("class big size 0\n")), kSrc, 4, {"class 'big' size 0 is outside 1..8"}));
    EXPECT_TRUE(failed_at(parse(tide_with("class big size -2\n")), kSrc, 4, {"size -2", "1..8"}));
}

TEST(MapErrors, ClassSizeNotANumber) {
    EXPECT_TRUE(failed_at(parse(tide_with("class big size two\n")), kSrc, 4, {"'big'", "'two'", "not a number"}));
    EXPECT_TRUE(failed_at(parse(tide_with("class big size 2.5\n")), kSrc, 4, {"'2.5'"}));
}

TEST(MapErrors, ClassGivenTwoSizes) {
    EXPECT_TRUE(failed_at(parse(tide_with("class big size 2\nlegend x 4\nclass big size 3\n")), kSrc, 6,
                          {"'big'", "second size", "line 4"}));
}

TEST(MapErrors, ClassCostUnknownLegendCharacter) {
    EXPECT_TRUE(failed_at(parse(tide_with("class tank cost X 5\n")), kSrc, 4, {"'tank'", "'X'", "legend"}));
    // The earliest offending line is named, even when a legend line comes later.
    EXPECT_TRUE(failed_at(parse(tide_with("class a cost F 2\nclass b cost q 2\nclass a cost z 2\nlegend y 3\n")), kSrc,
                          5, {"'b'", "'q'", "legend"}));
}

TEST(MapErrors, ClassCostValue) {
    EXPECT_TRUE(failed_at(parse(tide_with("class tank cost F 0\n")), kSrc, 4, {"'tank'", "'0'", "1..254"}));
    EXPECT_TRUE(failed_at(parse(tide_with("class tank cost F 255\n")), kSrc, 4, {"'255'", "1..254"}));
    EXPECT_TRUE(failed_at(parse(tide_with("class tank cost F slow\n")), kSrc, 4, {"'slow'", "wall"}));
}

TEST(MapErrors, ClassLineMalformed) {
    for (const char* line :
         {"class\n", "class tank\n", "class tank size\n", "class tank speed 2\n", "class tank cost F\n",
          "class tank cost FF 3\n", "class tank size 2 3\n", "class tank cost F 3 4\n", "class tank Size 2\n"}) {
        EXPECT_TRUE(failed_at(parse(tide_with(line)), kSrc, 4, {"class NAME size S", "class NAME cost C V"})) << line;
    }
    // The fault is reported on its own line, after good class lines.
    EXPECT_TRUE(failed_at(parse(tide_with("class tank size 2\n\nclass tank cost F\n")), kSrc, 6, {"class NAME"}));
}

TEST(MapErrors, ClassReservedName) {
    EXPECT_TRUE(failed_at(parse(tide_with("class default size 2\n")), kSrc, 4, {"'default'", "reserved"}));
    EXPECT_TRUE(failed_at(parse(tide_with("class default cost F 1\n")), kSrc, 4, {"reserved"}));
}

TEST(MapErrors, ClassBadName) {
    EXPECT_TRUE(failed_at(parse(tide_with("class bad!name size 2\n")), kSrc, 4, {"'bad!name'", "letters"}));
    EXPECT_TRUE(failed_at(parse(tide_with("class tank.2 size 2\n")), kSrc, 4, {"'tank.2'"}));
    const std::string long_name(33, 'a');
    EXPECT_TRUE(failed_at(parse(tide_with("class " + long_name + " size 2\n")), kSrc, 4, {long_name, "1..32"}));
}

TEST(MapErrors, MoreThanThirtyTwoClasses) {
    std::string lines;
    for (int i = 0; i < 33; ++i) lines += "class c" + std::to_string(i) + " size 1\n";
    lines += "class c5 size 2\n";  // never reached
    EXPECT_TRUE(failed_at(parse(tide_with(lines)), kSrc, 36, {"'c32'", "32"}));
}

TEST(MapErrors, ClassLinesInAMovingAiMap) {
    EXPECT_TRUE(failed_at(parse("type octile\nheight 1\nwidth 1\nclass boat size 2\nmap\n.\n"), kSrc, 4,
                          {"class boat size 2"}));
}

TEST(ClassCostFieldErrors, UnknownClassListsTheKnownNames) {
    const auto map = parse(tide_with("class tank cost F 20\nclass big size 2\n"));
    ASSERT_TRUE(map.ok()) << map.error().message;
    const auto r = class_cost_field(*map, "boat");
    ASSERT_FALSE(r.ok());
    for (const char* word : {"'boat'", "default", "tank", "big"}) {
        EXPECT_NE(r.error().message.find(word), std::string::npos) << r.error().message;
    }
    const auto water = parse("type octile\nheight 1\nwidth 1\nmap\n.\n");
    ASSERT_TRUE(water.ok());
    const auto r2 = class_cost_field(*water, "tank");
    ASSERT_FALSE(r2.ok());
    EXPECT_NE(r2.error().message.find("default, water"), std::string::npos) << r2.error().message;
}

TEST(ClassCostFieldErrors, SizeOutsideOneToEight) {
    const auto map = parse(tide_with("class tank cost F 20\n"));
    ASSERT_TRUE(map.ok()) << map.error().message;
    for (int size : {9, -1}) {
        for (const char* name : {"tank", "default"}) {
            const auto r = class_cost_field(*map, name, size);
            ASSERT_FALSE(r.ok()) << name << " " << size;
            EXPECT_NE(r.error().message.find(std::to_string(size)), std::string::npos) << r.error().message;
            EXPECT_NE(r.error().message.find("1..8"), std::string::npos) << r.error().message;
        }
    }
}

}  // namespace
}  // namespace tide
