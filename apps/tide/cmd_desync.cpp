// tide desync A B: where two runs part. A and B are both recordings (tide sim --record, tide serve
// --record: the first tick whose state hash differs, or the first command that does) or both
// snapshots (--state-out: the first group, field or unit that differs, with both values).

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "cli_common.hpp"
#include "tide/recording.hpp"

namespace tide::cli {
namespace {

struct DesyncOptions {
    std::string a, b;
};

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Failure{"cannot read '" + path + "'"};
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Both texts parsed by `parse` (parse_snapshot or parse_recording); throws Failure naming the file.
template <class Parse>
auto parse_both(Parse parse, const std::string& ta, const std::string& tb, const DesyncOptions& o) {
    auto a = parse(ta, o.a);
    check(a);
    auto b = parse(tb, o.b);
    check(b);
    return std::pair{std::move(*a), std::move(*b)};
}

bool is_snapshot(const std::string& text) {
    return text.rfind("tide-snapshot ", 0) == 0;
}

void run_desync(const DesyncOptions& o) {
    const std::string ta = read_text(o.a), tb = read_text(o.b);
    if (is_snapshot(ta) != is_snapshot(tb)) {
        throw Failure{"'" + o.a + "' and '" + o.b + "' are not of one kind: give two recordings or two snapshots"};
    }
    Desync d;
    if (is_snapshot(ta)) {
        const auto [a, b] = parse_both(parse_snapshot, ta, tb, o);
        d = first_difference(a, b);
        if (!d.found) {
            std::printf("identical: tick %llu, %zu units, %zu groups\n", static_cast<unsigned long long>(a.tick),
                        a.units.size(), a.groups.size());
            return;
        }
        std::printf("first difference at tick %lld: %s\n", static_cast<long long>(d.tick), d.what.c_str());
    } else {
        const auto [a, b] = parse_both(parse_recording, ta, tb, o);
        d = first_difference(a, b);
        if (!d.found) {
            std::printf("identical%s%s\n", d.what.empty() ? "" : ": ", d.what.c_str());
            return;
        }
        std::printf("first difference: %s\n", d.what.c_str());
        if (d.tick > 0) {
            std::printf(
                "to find the unit: tide sim --replay FILE --replay-ticks %lld --state-out STATE on each "
                "machine, then tide desync STATE_A STATE_B\n",
                static_cast<long long>(d.tick));
        }
    }
    throw Failure{"the runs differ", 1};
}

}  // namespace

void add_desync_command(CLI::App& app) {
    auto o = std::make_shared<DesyncOptions>();
    auto* cmd = app.add_subcommand(
        "desync",
        "Where two runs part: two recordings (first tick or command that differs) or two snapshots (first "
        "group, field or unit that differs); exits 1 when they differ");
    cmd->add_option("A", o->a, "A recording (tide sim --record) or a snapshot (--state-out)")->required();
    cmd->add_option("B", o->b, "The other machine's")->required();
    cmd->callback([o] { run_desync(*o); });
}

}  // namespace tide::cli
