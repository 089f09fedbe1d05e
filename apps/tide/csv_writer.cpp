#include "csv_writer.hpp"

#include <cstdio>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "atomic_file.hpp"
#include "cli_common.hpp"

namespace tide::cli {
namespace {

// Written beside the target and renamed into place (atomic_file.hpp): a failure leaves `path` as it was.
AtomicFile open_for_writing(const std::string& path) {
    auto f = AtomicFile::open(path);
    check(f);
    return std::move(f.value());
}

void finish(AtomicFile& f) {
    check(f.commit());
}

void write_value_rows(const FlowField& field, std::span<const double> values, const std::string& path) {
    auto f = open_for_writing(path);
    char buf[32];
    for (int y = 0; y < field.height(); ++y) {
        for (int x = 0; x < field.width(); ++x) {
            const double v = values[static_cast<std::size_t>(y) * field.width() + x];
            if (x) std::fputc(',', f.get());
            if (v == std::numeric_limits<double>::infinity()) {
                std::fputs("inf", f.get());
            } else {
                std::snprintf(buf, sizeof buf, "%.9g", v);
                std::fputs(buf, f.get());
            }
        }
        std::fputc('\n', f.get());
    }
    finish(f);
}

}  // namespace

void write_dist_csv(const CostField& cost, const FlowField& field, const FieldParams& params, const std::string& path) {
    std::vector<double> values(static_cast<std::size_t>(field.width()) * field.height());
    flow_path_costs(cost, field, params, values);
    write_value_rows(field, values, path);
}

void write_values_csv(const FlowField& field, const std::string& path) {
    const std::vector<double> values(field.integration().begin(), field.integration().end());
    write_value_rows(field, values, path);
}

void write_next_csv(const FlowField& field, const std::string& path) {
    auto f = open_for_writing(path);
    for (int y = 0; y < field.height(); ++y) {
        for (int x = 0; x < field.width(); ++x) {
            if (x) std::fputc(',', f.get());
            std::fprintf(f.get(), "%lld", static_cast<long long>(field.next_index(x, y)));
        }
        std::fputc('\n', f.get());
    }
    finish(f);
}

void write_raw_layers(const FlowField& field, const std::string& path) {
    static_assert(sizeof(float) == 4 && sizeof(Direction) == 1);
    auto f = open_for_writing(path);
    // Little-endian on every platform Tide builds for (x86-64, aarch64, wasm32).
    const auto values = field.integration();
    const auto moves = field.directions();
    if (std::fwrite(values.data(), sizeof(float), values.size(), f.get()) != values.size() ||
        std::fwrite(moves.data(), 1, moves.size(), f.get()) != moves.size()) {
        throw Failure{"--raw " + path + ": write failed"};
    }
    finish(f);
}

}  // namespace tide::cli
