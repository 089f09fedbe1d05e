#pragma once
// Where a benchmark ran: the machine, the compiler and the commit, for every report.

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace tide::bench {

/// Machine and commit of a run.
struct Provenance {
    std::string cpu, compiler, commit, boost;
    unsigned cores = 0;
    bool dirty = false;  ///< Uncommitted changes in the source tree.
    /// "machine: CPU, N cores, COMPILER; commit C".
    std::string line() const;
};

/// Reads /proc/cpuinfo and asks git (the configure-time commit when git is not available).
Provenance provenance();

/// The report fields every benchmark's JSON starts with: machine {cpu, cores, compiler}, commit,
/// uncommitted_changes.
nlohmann::json provenance_json(const Provenance& p);

}  // namespace tide::bench
