// REQUIRED 10 (part): files on disk: load_map, load_scenarios, read_text_file.

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "support/expect_error.hpp"
#include "tide/map_io.hpp"

namespace tide {
namespace {

namespace fs = std::filesystem;

// A scratch directory per test (ctest runs tests in parallel processes), removed afterwards.
class Files : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::path(::testing::TempDir()) / ("tide_io_" + std::string(info->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string write(const std::string& name, const std::string& contents) {
        const fs::path p = dir_ / name;
        std::ofstream out(p, std::ios::binary);
        out << contents;
        return p.string();
    }

    fs::path dir_;
};

TEST_F(Files, LoadMapOnAMissingPathNamesThePath) {
    const std::string path = (dir_ / "no_such_dir" / "missing.map").string();
    auto map = load_map(path);
    ASSERT_FALSE(map.ok());
    EXPECT_NE(map.error().message.find(path), std::string::npos) << map.error().message;
    EXPECT_NE(test::lower(map.error().message).find("open"), std::string::npos) << map.error().message;
}

TEST_F(Files, LoadScenariosOnAMissingPathNamesThePath) {
    const std::string path = (dir_ / "missing.scen").string();
    auto rows = load_scenarios(path);
    ASSERT_FALSE(rows.ok());
    EXPECT_NE(rows.error().message.find(path), std::string::npos) << rows.error().message;
}

TEST_F(Files, LoadMapReadsBothFormats) {
    const std::string a = write("a.map", "type octile\r\nheight 2\r\nwidth 2\r\nmap\r\n.@\r\nT.");
    auto map = load_map(a);
    ASSERT_TRUE(map.ok()) << map.error().message;
    EXPECT_EQ(map->format, MapFormat::moving_ai);
    EXPECT_EQ(map->cost.at(1, 0), kCostWall);
    EXPECT_EQ(map->cost.at(1, 1), kCostPlain);
    const std::string b = write("b.txt", "tide-map 1\nwidth 3\nheight 1\nmap\n.F~\n");
    map = load_map(b);
    ASSERT_TRUE(map.ok()) << map.error().message;
    EXPECT_EQ(map->format, MapFormat::tide);
    EXPECT_EQ(map->cost.at(2, 0), kCostSwamp);
}

TEST_F(Files, LoadMapErrorsNameTheFileAndLine) {
    const std::string path = write("bad.map", "tide-map 1\nwidth 3\nheight 2\nmap\n...\n..\n");
    EXPECT_TRUE(test::failed_at(load_map(path), path, 6, {"row", "expected 3"}));
}

TEST_F(Files, LoadMapOnAnEmptyFile) {
    const std::string path = write("empty.map", "");
    EXPECT_TRUE(test::failed_at(load_map(path), path, 1, {"empty"}));
}

TEST_F(Files, LoadMapOnADirectoryFails) {
    auto map = load_map(dir_.string());
    ASSERT_FALSE(map.ok());
    EXPECT_EQ(map.error().code, ErrorCode::io);
    EXPECT_NE(map.error().message.find(dir_.string()), std::string::npos) << map.error().message;
    // Named for what it is, not with a made-up size (a directory's "size" is 2^63 - 1).
    EXPECT_NE(map.error().message.find("a directory"), std::string::npos) << map.error().message;
    EXPECT_EQ(map.error().message.find("bytes"), std::string::npos) << map.error().message;
}

TEST_F(Files, LoadMapOnAFifoFailsAtOnce) {
    // Opening a FIFO for reading blocks until a writer comes: it must be refused without opening.
    const fs::path fifo = dir_ / "pipe.map";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto done = std::async(std::launch::async, [&] { return load_map(fifo.string()); });
    if (done.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
        // Unblock the reader so the test ends, then fail.
        std::ofstream(fifo) << "x";
        done.wait();
        FAIL() << "load_map blocked on a FIFO";
    }
    auto map = done.get();
    ASSERT_FALSE(map.ok());
    EXPECT_NE(map.error().message.find("a FIFO"), std::string::npos) << map.error().message;
}

TEST_F(Files, LoadScenariosWithLineNumbers) {
    const std::string good = write("good.scen", "version 1\n0\tmaps/a.map\t4\t4\t0\t0\t3\t3\t4.24264069\n");
    auto rows = load_scenarios(good);
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ((*rows)[0].map, "maps/a.map");
    const std::string bad = write("bad.scen", "version 1\n0 a.map 4 4 0 0 3 3 1\n0 a.map 4 4 0 0 3 3 nan\n");
    EXPECT_TRUE(test::failed_at(load_scenarios(bad), bad, 3, {"optimal"}));
}

TEST_F(Files, ReadTextFileLimit) {
    const std::string path = write("ten.txt", "0123456789");
    auto small = read_text_file(path, 9);
    ASSERT_FALSE(small.ok());
    EXPECT_EQ(small.error().code, ErrorCode::too_large);
    EXPECT_STREQ(error_code_name(small.error().code), "too_large");
    auto missing = read_text_file((dir_ / "no-such-file.map").string());
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, ErrorCode::io);
    EXPECT_NE(small.error().message.find(path), std::string::npos) << small.error().message;
    EXPECT_NE(small.error().message.find("10"), std::string::npos) << small.error().message;
    auto exact = read_text_file(path, 10);
    ASSERT_TRUE(exact.ok()) << exact.error().message;
    EXPECT_EQ(*exact, "0123456789");
}

TEST_F(Files, ReadTextFileKeepsBinaryBytes) {
    const std::string bytes("a\0b\r\n\xff", 6);
    const std::string path = write("bin", bytes);
    auto data = read_text_file(path);
    ASSERT_TRUE(data.ok());
    EXPECT_EQ(*data, bytes);
}

}  // namespace
}  // namespace tide
