// Machine and commit of a benchmark run; see provenance.hpp.

#include "provenance.hpp"

#include <boost/version.hpp>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

namespace tide::bench {

namespace {

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    std::size_t b = 0;
    while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    return s.substr(b);
}

std::string command_output(const std::string& command) {
    std::string out;
    if (FILE* p = popen(command.c_str(), "r")) {
        char buf[256];
        while (std::fgets(buf, sizeof buf, p)) out += buf;
        if (pclose(p) != 0) return {};
    }
    return trim(out);
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) return trim(line.substr(colon + 1));
        }
    }
    return "unknown";
}

std::string compiler_version() {
#if defined(__clang__)
    return std::string("clang ") + __VERSION__;
#elif defined(__GNUC__)
    return std::string("g++ ") + __VERSION__;
#else
    return "unknown";
#endif
}

}  // namespace

Provenance provenance() {
    Provenance p;
    p.cpu = cpu_model();
    p.cores = std::thread::hardware_concurrency();
    p.compiler = compiler_version();
    p.boost = BOOST_LIB_VERSION;
    const std::string git = std::string("git -C '") + TIDE_SOURCE_DIR + "' ";
    p.commit = command_output(git + "rev-parse --short HEAD 2>/dev/null");
    if (p.commit.empty()) {
        p.commit = TIDE_GIT_COMMIT;  // configure-time value
    } else {
        p.dirty = !command_output(git + "status --porcelain --untracked-files=no 2>/dev/null").empty();
    }
    return p;
}

std::string Provenance::line() const {
    return "machine: " + cpu + ", " + std::to_string(cores) + " cores, " + compiler + "; commit " + commit +
           (dirty ? " (+ uncommitted changes)" : "");
}

nlohmann::json provenance_json(const Provenance& p) {
    return {{"machine", {{"cpu", p.cpu}, {"cores", p.cores}, {"compiler", p.compiler}}},
            {"commit", p.commit},
            {"uncommitted_changes", p.dirty}};
}

}  // namespace tide::bench
