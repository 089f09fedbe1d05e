// The report writers of `tide bench fields`; see fields_report.hpp.

#include "fields_report.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tide::bench {
namespace {

using Json = nlohmann::ordered_json;

// ---- SVG chart (hand-written, no dependency) ---------------------------------------------------

std::string svg_escape(const std::string& s) {
    std::string out;
    for (char ch : s) {
        if (ch == '&')
            out += "&amp;";
        else if (ch == '<')
            out += "&lt;";
        else if (ch == '>')
            out += "&gt;";
        else
            out += ch;
    }
    return out;
}

}  // namespace

std::string fields_svg(const FieldsBenchReport& report) {
    const std::vector<MapResult>& results = report.maps;
    const Provenance& prov = report.provenance;
    std::ostringstream s;
    const int width = 980;
    const MapResult* m256 = find_random(results, 256);
    // Chart 1: horizontal bars, log time axis.
    const int label_w = 390, plot_w = 440, bar_h = 22, top1 = 60;
    int bars = 0;
    double lo = 1e300, hi = 0;
    if (m256) {
        for (const RowResult& row : m256->rows) {
            if (!row.ran()) continue;
            ++bars;
            lo = std::min(lo, row.median_ms);
            hi = std::max(hi, row.median_ms);
        }
    }
    const double d0 = bars ? std::floor(std::log10(lo / 2.0)) : 0.0;  // room for the shortest bar
    const double d1 = bars ? std::max(d0 + 1.0, std::ceil(std::log10(hi))) : 1.0;
    const int h1 = bars * (bar_h + 6) + 50;
    const int top2 = top1 + h1 + 60, plot_h2 = 300;
    const int height = top2 + plot_h2 + 90;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    s << "<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">tide bench fields: random 256x256 map "
         "(20% walls, 15% forest, 7% swamp), median ms, log scale</text>\n";
    s << "<text x=\"10\" y=\"40\" fill=\"#555\">" << svg_escape(prov.cpu) << ", " << prov.cores << " cores, "
      << svg_escape(prov.compiler) << ", commit " << prov.commit << (prov.dirty ? " (+ uncommitted changes)" : "")
      << "</text>\n";
    auto x_of = [&](double ms) { return label_w + plot_w * (std::log10(ms) - d0) / (d1 - d0); };
    if (m256) {
        for (double e = d0; e <= d1 + 1e-9; e += 1.0) {
            const double x = x_of(std::pow(10.0, e));
            s << "<line x1=\"" << x << "\" y1=\"" << top1 << "\" x2=\"" << x << "\" y2=\"" << top1 + h1 - 40
              << "\" stroke=\"#ddd\"/>\n";
            s << "<text x=\"" << x << "\" y=\"" << top1 + h1 - 25 << "\" text-anchor=\"middle\">" << std::pow(10.0, e)
              << " ms</text>\n";
        }
        const double baseline = m256->row("textbook").median_ms;
        int i = 0;
        for (int r = 0; r < kRowCount; ++r) {
            const RowResult& row = m256->rows[r];
            if (!row.ran()) continue;
            const std::string key = kRows[r].key;
            const char* colour = key.rfind("tide", 0) == 0    ? "#2a9d4a"
                                 : key == "textbook"          ? "#c0392b"
                                 : key.rfind("astar", 0) == 0 ? "#e69f00"
                                                              : "#4a6fa5";
            const double y = top1 + i * (bar_h + 6);
            const double x = x_of(row.median_ms);
            s << "<text x=\"" << label_w - 8 << "\" y=\"" << y + 15 << "\" text-anchor=\"end\">"
              << svg_escape(kRows[r].name) << "</text>\n";
            s << "<rect x=\"" << label_w << "\" y=\"" << y << "\" width=\"" << std::max(1.0, x - label_w)
              << "\" height=\"" << bar_h << "\" fill=\"" << colour << "\"/>\n";
            s << "<text x=\"" << x + 4 << "\" y=\"" << y + 15 << "\">" << format_ms(row.median_ms) << " ms"
              << (key == "textbook" ? "  (baseline)" : "  (" + format_ratio(baseline / row.median_ms) + ")")
              << "</text>\n";
            ++i;
        }
    } else {
        s << "<text x=\"10\" y=\"" << top1 + 15 << "\">(the 256x256 map did not run)</text>\n";
    }

    // Chart 2: build time vs map cells, log-log, random maps only.
    std::vector<const MapResult*> random;
    for (const MapResult& m : results) {
        if (m.map.kind == "random") random.push_back(&m);
    }
    std::sort(random.begin(), random.end(), [](auto* a, auto* b) { return a->cells() < b->cells(); });
    const char* series[] = {"tide", "tide_integration", "textbook", "dijkstra4", "boost"};
    const char* legend[] = {"Tide integration + flow", "Tide integration only", "textbook (baseline)",
                            "4-dir Dijkstra map", "Boost.Graph Dijkstra"};
    const char* colours[] = {"#2a9d4a", "#85c98f", "#c0392b", "#8e6bb8", "#4a6fa5"};
    s << "<text x=\"10\" y=\"" << top2 - 25
      << "\" font-size=\"16\" font-weight=\"bold\">Build time vs map cells (random maps, log-log)</text>\n";
    const int left2 = 80, w2 = 560;
    double cx0 = 1e300, cx1 = 0, ty0 = 1e300, ty1 = 0;
    for (const MapResult* m : random) {
        cx0 = std::min(cx0, static_cast<double>(m->cells()));
        cx1 = std::max(cx1, static_cast<double>(m->cells()));
        for (const char* key : series) {
            if (!m->row(key).ran()) continue;
            ty0 = std::min(ty0, m->row(key).median_ms);
            ty1 = std::max(ty1, m->row(key).median_ms);
        }
    }
    if (!random.empty() && ty1 > 0) {
        const double ex0 = std::floor(std::log10(cx0)), ex1 = std::max(ex0 + 1, std::ceil(std::log10(cx1)));
        const double ey0 = std::floor(std::log10(ty0)), ey1 = std::max(ey0 + 1, std::ceil(std::log10(ty1)));
        auto px = [&](double cells) { return left2 + w2 * (std::log10(cells) - ex0) / (ex1 - ex0); };
        auto py = [&](double ms) { return top2 + plot_h2 - plot_h2 * (std::log10(ms) - ey0) / (ey1 - ey0); };
        s << "<rect x=\"" << left2 << "\" y=\"" << top2 << "\" width=\"" << w2 << "\" height=\"" << plot_h2
          << "\" fill=\"none\" stroke=\"#999\"/>\n";
        for (double e = ex0; e <= ex1 + 1e-9; e += 1.0) {
            s << "<line x1=\"" << px(std::pow(10, e)) << "\" y1=\"" << top2 << "\" x2=\"" << px(std::pow(10, e))
              << "\" y2=\"" << top2 + plot_h2 << "\" stroke=\"#eee\"/>\n";
            s << "<text x=\"" << px(std::pow(10, e)) << "\" y=\"" << top2 + plot_h2 + 16
              << "\" text-anchor=\"middle\">1e" << e << "</text>\n";
        }
        for (double e = ey0; e <= ey1 + 1e-9; e += 1.0) {
            s << "<line x1=\"" << left2 << "\" y1=\"" << py(std::pow(10, e)) << "\" x2=\"" << left2 + w2 << "\" y2=\""
              << py(std::pow(10, e)) << "\" stroke=\"#eee\"/>\n";
            s << "<text x=\"" << left2 - 6 << "\" y=\"" << py(std::pow(10, e)) + 4 << "\" text-anchor=\"end\">"
              << std::pow(10, e) << " ms</text>\n";
        }
        s << "<text x=\"" << left2 + w2 / 2 << "\" y=\"" << top2 + plot_h2 + 36
          << "\" text-anchor=\"middle\">map cells</text>\n";
        for (std::size_t k = 0; k < std::size(series); ++k) {
            std::string points;
            for (const MapResult* m : random) {
                if (!m->row(series[k]).ran()) continue;
                const double x = px(static_cast<double>(m->cells())), y = py(m->row(series[k]).median_ms);
                points += std::to_string(x) + "," + std::to_string(y) + " ";
                s << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"3.5\" fill=\"" << colours[k] << "\"/>\n";
            }
            s << "<polyline points=\"" << points << "\" fill=\"none\" stroke=\"" << colours[k]
              << "\" stroke-width=\"2\"/>\n";
            const double ly = top2 + 14 + 20.0 * static_cast<double>(k);
            s << "<rect x=\"" << left2 + w2 + 20 << "\" y=\"" << ly - 10 << "\" width=\"12\" height=\"12\" fill=\""
              << colours[k] << "\"/>\n";
            s << "<text x=\"" << left2 + w2 + 38 << "\" y=\"" << ly << "\">" << legend[k] << "</text>\n";
        }
    } else {
        s << "<text x=\"10\" y=\"" << top2 + 15 << "\">(no random map ran)</text>\n";
    }
    s << "</svg>\n";
    return s.str();
}

namespace {

// ---- JSON ---------------------------------------------------------------------------------------

Json to_json(double v) {
    return std::isfinite(v) ? Json(v) : Json(nullptr);
}

Json hier_json(const FieldsBenchOptions& o, const std::vector<MapResult>& results,
               const std::vector<HierBenchResult>& hier) {
    Json rows = Json::array();
    for (const HierBenchResult& h : hier) {
        const RowResult* flat = flat_row(results, h);
        const double cells = static_cast<double>(h.width) * h.height;
        rows.push_back({{"width", h.width},
                        {"height", h.height},
                        {"start", {h.start.x, h.start.y}},
                        {"goal", {h.goal.x, h.goal.y}},
                        {"graph_ms", h.graph_ms},
                        {"graph_bytes", h.graph_bytes},
                        {"graph_nodes", h.nodes},
                        {"graph_portals", h.portals},
                        {"sectors", h.sectors},
                        {"query_ms", h.query_ms},
                        {"query_samples_ms", h.query_samples},
                        {"first_field_ms", h.first_field_ms},
                        {"search_ms", h.search_ms},
                        {"fields_ms", h.fields_ms},
                        {"settle_ms", h.settle_ms},
                        {"fields_built", h.fields_built},
                        {"route_sectors", h.route_sectors},
                        {"nodes_settled", h.nodes_settled},
                        {"field_bytes", h.field_bytes},
                        {"memory_bytes", h.memory_bytes},
                        {"sector_ns_per_cell", h.sector_ns_per_cell()},
                        {"flat_build_ms", flat ? Json(flat->median_ms) : Json(nullptr)},
                        {"flat_ns_per_cell", flat ? Json(flat->median_ms * 1e6 / cells) : Json(nullptr)},
                        {"flat_build_over_query", flat ? to_json(flat->median_ms / h.query_ms) : Json(nullptr)},
                        {"path_cost", to_json(h.path_cost)},
                        {"exact_path_cost", std::isnan(h.exact_cost) ? Json(nullptr) : to_json(h.exact_cost)},
                        {"path_ratio", std::isnan(h.exact_cost) ? Json(nullptr) : to_json(h.path_cost / h.exact_cost)},
                        {"note", flat_note(results, h)}});
    }
    return {{"sector", o.sector},
            {"reps", o.hier_reps},
            {"settle_budget", o.settle},
            {"corner_reach", o.corner_reach},
            {"threads", o.hier_threads},
            {"seed", 1},
            {"method",
             "SectorGraph::build once (serial); then one warm-up and reps timed cold queries, each "
             "HierarchicalField::create + route({start}) (start near the top-left corner, goal near the "
             "bottom-right); medians"},
            {"rows", rows}};
}

}  // namespace

std::string fields_json(const FieldsBenchOptions& o, const FieldsBenchReport& report) {
    const Provenance& prov = report.provenance;
    const std::vector<MapResult>& results = report.maps;
    const std::vector<Target>& targets = report.targets;
    const Crossover& cross = report.crossover;
    const std::vector<HierBenchResult>& hier = report.hier;
    const double total_s = report.total_s;
    Json j;
    j["tool"] = "tide bench fields";
    j["machine"] = {{"cpu", prov.cpu}, {"cores", prov.cores}, {"compiler", prov.compiler}, {"boost", prov.boost}};
    j["commit"] = prov.commit;
    j["uncommitted_changes"] = prov.dirty;
    j["options"] = {{"sizes", o.sizes},
                    {"seeds", o.seeds},
                    {"large_seeds", o.large_seeds},
                    {"reps", o.reps},
                    {"quick", o.quick},
                    {"hier_sizes", o.hier_sizes},
                    {"huge", o.huge},
                    {"hier_reps", o.hier_reps},
                    {"sector", o.sector},
                    {"movingai", o.movingai},
                    {"map_spec", {{"walls", 0.20}, {"forest", 0.15}, {"swamp", 0.07}}}};
    j["method"] = "one warm-up per row, then reps timed runs; median of all runs of all seeds pooled";
    j["check_tolerance"] = kCheckTolerance;
    j["notes"] = {
        "Boost row: dijkstra_shortest_paths_no_color_map on a compressed_sparse_row_graph with 32-bit "
        "indices and double weights, built before timing",
        "A* rows: x1..x1000 on maps up to 256x256 cells, x1..x100 up to 1024x1024, none above",
        "maps over 1024x1024 cells run only the first large_seeds seeds",
        "goal: the cell of the largest connected region nearest the map centre"};
    Json maps = Json::array();
    for (const MapResult& m : results) {
        Json jm;
        jm["name"] = m.map.name;
        jm["kind"] = m.map.kind;
        jm["width"] = m.map.width;
        jm["height"] = m.map.height;
        jm["cells"] = m.cells();
        if (m.map.kind == "random") jm["seeds"] = m.map.seeds;
        if (m.map.kind == "movingai") jm["path"] = m.map.path;
        jm["instances"] = m.instances;
        jm["memory_bytes_per_cell"] = m.memory_bytes_per_cell;
        jm["astar_units"] = m.astar_units;
        const double baseline = m.row("textbook").median_ms;
        Json rows = Json::array();
        for (int i = 0; i < kRowCount; ++i) {
            const RowResult& row = m.rows[i];
            if (!row.ran()) continue;
            rows.push_back({{"key", kRows[i].key},
                            {"name", kRows[i].name},
                            {"median_ms", row.median_ms},
                            {"ratio_vs_textbook", to_json(baseline / row.median_ms)},
                            {"reps", row.samples.size()},
                            {"instance_median_ms", row.instance_medians},
                            {"min_ms", *std::min_element(row.samples.begin(), row.samples.end())},
                            {"max_ms", *std::max_element(row.samples.begin(), row.samples.end())}});
        }
        jm["rows"] = rows;
        maps.push_back(jm);
    }
    j["maps"] = maps;
    Json jt = Json::array();
    for (const Target& t : targets) {
        jt.push_back({{"name", t.name},
                      {"figure", t.figure},
                      {"value", t.ran ? to_json(t.value) : Json(nullptr)},
                      {"threshold", t.threshold},
                      {"comparison", t.at_least ? ">=" : "<="},
                      {"status", !t.ran     ? "not run"
                                 : t.pass() ? "PASS"
                                            : "MISS"},
                      {"note", t.why_not}});
    }
    j["targets"] = jt;
    if (cross.ran) {
        j["crossover"] = {{"map", "random 256x256"},
                          {"astar_ms_per_unit_from_x10", cross.per_unit_x10},
                          {"astar_ms_per_unit_from_x100", cross.per_unit_x100},
                          {"astar_ms_per_unit", cross.per_unit},
                          {"field_build_ms", cross.field_ms},
                          {"units", cross.units}};
    } else {
        j["crossover"] = nullptr;
    }
    j["hierarchical"] = hier_json(o, results, hier);
    j["total_seconds"] = total_s;
    return j.dump(2) + "\n";
}

std::string format_ms(double ms) {
    char buf[32];
    if (ms >= 100.0)
        std::snprintf(buf, sizeof buf, "%.1f", ms);
    else if (ms >= 1.0)
        std::snprintf(buf, sizeof buf, "%.3f", ms);
    else
        std::snprintf(buf, sizeof buf, "%.4f", ms);
    return buf;
}

std::string format_ratio(double ratio) {
    char buf[32];
    if (ratio >= 1.0)
        std::snprintf(buf, sizeof buf, "%.1fx faster", ratio);
    else
        std::snprintf(buf, sizeof buf, ratio >= 0.01 ? "%.2fx" : "%.4fx", ratio);
    return buf;
}

void print_map_table(std::FILE* out, const MapResult& m, int reps) {
    const std::size_t instances = m.instances.size();
    std::fprintf(out, "\n%s: %dx%d = %zu cells", m.map.name.c_str(), m.map.width, m.map.height, m.cells());
    if (m.map.kind == "random") {
        std::fprintf(out, ", seeds");
        for (std::size_t i = 0; i < m.map.seeds.size(); ++i) {
            std::fprintf(out, "%s%llu", i ? "," : " ", static_cast<unsigned long long>(m.map.seeds[i]));
        }
    }
    std::fprintf(out, "; goal");
    for (const Json& inst : m.instances) {
        std::fprintf(out, " (%d, %d)", inst["goal"][0].get<int>(), inst["goal"][1].get<int>());
    }
    std::fprintf(out, "\n  median of %zu timed runs per row (%d per %s, pooled), each row after one warm-up\n",
                 instances * static_cast<std::size_t>(reps), reps, m.map.kind == "random" ? "seed" : "map");
    const double baseline = m.row("textbook").median_ms;
    std::fprintf(out, "  %-60s %12s  %s\n", "row", "median ms", "vs textbook");
    for (int i = 0; i < kRowCount; ++i) {
        const RowResult& row = m.rows[i];
        if (!row.ran()) continue;
        const std::string ratio =
            std::string(kRows[i].key) == "textbook" ? "1.0x (baseline)" : format_ratio(baseline / row.median_ms);
        std::fprintf(out, "  %-60s %12s  %s\n", kRows[i].name, format_ms(row.median_ms).c_str(), ratio.c_str());
    }
    if (m.astar_units.size() < 4) {
        std::fprintf(out, "  (A* rows: %s to keep the run bounded)\n",
                     m.astar_units.empty() ? "none on maps over 1024x1024 cells"
                                           : "x1, x10, x100 only on maps over 256x256 cells");
    }
    std::fprintf(out, "  Boost row: dijkstra_shortest_paths_no_color_map on a 32-bit CSR graph built before timing\n");
    double worst = 0.0;
    for (const Json& inst : m.instances) {
        for (const auto& [row, diff] : inst["check_max_relative_difference"].items()) {
            worst = std::max(worst, diff.get<double>());
        }
    }
    std::fprintf(out, "  checked: every baseline's distances match Tide's to %.2g relative (allowed %.2g)\n", worst,
                 kCheckTolerance);
    std::fprintf(out, "  memory of a finished field: %.2f bytes per cell\n", m.memory_bytes_per_cell);
}

void print_hier_header(std::FILE* out, const FieldsBenchOptions& o) {
    std::fprintf(out,
                 "\nhierarchical route query (tide/hierarchy.hpp): random maps (20%% walls, 15%% forest, 7%% swamp),\n"
                 "  seed 1, sector %d. graph: SectorGraph::build once (serial). query: a new HierarchicalField +\n"
                 "  route({start}) from near the top-left corner to a goal near the bottom-right, until every route\n"
                 "  sector is built; median of %d timed queries after one warm-up. flat: the 'Tide integration +\n"
                 "  flow' row of the same size above; vs flat: flat build ms / query ms. path/exact: the route's\n"
                 "  path cost over the exact one. Settle budget %d; corner reach %s; route fields built on %d "
                 "thread%s.\n",
                 o.sector, o.hier_reps, o.settle,
                 o.corner_reach < 0 ? "every corner" : (std::to_string(o.corner_reach) + " cells").c_str(),
                 o.hier_threads, o.hier_threads == 1 ? " (the caller's)" : "s");
    std::fprintf(out, "  %-12s %9s %8s %10s %10s %7s %8s %11s %11s %10s %12s %10s\n", "map", "graph ms", "graph MB",
                 "query ms", "1st fld ms", "fields", "field MB", "sector ns/c", "flat ns/c", "flat ms", "vs flat",
                 "path/exact");
}

void print_hier_row(std::FILE* out, const std::vector<MapResult>& results, const HierBenchResult& h) {
    const RowResult* flat = flat_row(results, h);
    const double cells = static_cast<double>(h.width) * h.height;
    const std::string size = std::to_string(h.width) + "x" + std::to_string(h.height);
    char ratio[32] = "-", flat_ms[32] = "-", flat_ns[32] = "-", path[32] = "-";
    if (flat) {
        std::snprintf(ratio, sizeof ratio, "%s", format_ratio(flat->median_ms / h.query_ms).c_str());
        std::snprintf(flat_ms, sizeof flat_ms, "%s", format_ms(flat->median_ms).c_str());
        std::snprintf(flat_ns, sizeof flat_ns, "%.2f", flat->median_ms * 1e6 / cells);
    }
    if (!std::isnan(h.exact_cost)) std::snprintf(path, sizeof path, "%.4f", h.path_cost / h.exact_cost);
    std::fprintf(out, "  %-12s %9s %8.2f %10s %10s %7zu %8.2f %11.2f %11s %10s %12s %10s\n", size.c_str(),
                 format_ms(h.graph_ms).c_str(), static_cast<double>(h.graph_bytes) / (1024.0 * 1024.0),
                 format_ms(h.query_ms).c_str(), format_ms(h.first_field_ms).c_str(), h.fields_built,
                 static_cast<double>(h.field_bytes) / (1024.0 * 1024.0), h.sector_ns_per_cell(), flat_ns, flat_ms,
                 ratio, path);
    std::fprintf(
        out,
        "  %-12s start (%d, %d) goal (%d, %d): %zu route sectors of %zu, search %s ms (%zu nodes settled), fields %s "
        "ms (settling %s ms); graph %zu nodes, %zu portals\n",
        "", h.start.x, h.start.y, h.goal.x, h.goal.y, h.route_sectors, h.sectors, format_ms(h.search_ms).c_str(),
        h.nodes_settled, format_ms(h.fields_ms).c_str(), format_ms(h.settle_ms).c_str(), h.nodes, h.portals);
    const std::string note = flat_note(results, h);
    if (!note.empty()) std::fprintf(out, "  %-12s %s\n", "", note.c_str());
}

std::string target_line(const Target& t) {
    char buf[256];
    if (!t.ran) {
        std::snprintf(buf, sizeof buf, "NOT RUN  %-42s %s", t.name.c_str(), t.why_not.c_str());
    } else if (t.at_least) {
        std::snprintf(buf, sizeof buf, "%-8s %-42s %.1fx (target >= %gx)", t.pass() ? "PASS" : "MISS", t.name.c_str(),
                      t.value, t.threshold);
    } else {
        std::snprintf(buf, sizeof buf, "%-8s %-42s %.2f (target <= %g)", t.pass() ? "PASS" : "MISS", t.name.c_str(),
                      t.value, t.threshold);
    }
    return buf;
}

/// Measured crossover on the 256x256 map: the smallest group size N for which N A* searches cost more

}  // namespace tide::bench
