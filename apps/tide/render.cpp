// The three-panel picture: terrain | integration heat map | flow arrows, with titles and legends.
//
// Each panel is painted per "display unit": a cell drawn as a cell_pixels square when cells are at
// least one pixel, or a square of k x k cells squeezed into one pixel on maps too large for the panel
// budget. A unit's colour is the mean of its cells' colours (terrain), or a mix of the heat colour of
// its mean finite integration value with the wall and unreachable colours in proportion to their
// counts, so thin walls and small cut-off pockets stay visible after downsampling.

#include "render.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "tide/assert.hpp"

namespace tide::render {
namespace {

// ---- Palette ---------------------------------------------------------------------------------------

constexpr Rgb kBackground{246, 246, 242};
constexpr Rgb kInk{28, 28, 32};
constexpr Rgb kFrame{70, 70, 76};
constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kPlain{222, 226, 189};
constexpr Rgb kForest{46, 112, 58};
constexpr Rgb kSwamp{130, 112, 58};
constexpr Rgb kWall{34, 38, 48};
constexpr Rgb kHeatWall{22, 22, 26};
constexpr Rgb kHatchA{225, 40, 200};   // unreachable: magenta stripes ...
constexpr Rgb kHatchB{250, 205, 242};  // ... on pale pink
constexpr Rgb kArrow{18, 22, 70};
constexpr Rgb kGoal{220, 30, 30};

constexpr float kFlowFade = 0.7f;  // how far passable terrain is faded toward white under the arrows
constexpr float kFlowWallFade = 0.55f;

constexpr int kPanelBudget = 1024;  // automatic sizing keeps a panel's longest side within this
constexpr int kExplicitPanelMax = 4096;
constexpr int kArrowSpacing = 16;  // automatic arrow spacing in pixels when cells are small

// Colour of an ordinary cost outside the named classes: a grey ramp, lighter for cheaper cells.
Rgb grey_for_cost(Cost c) {
    const double t = std::log(static_cast<double>(c)) / std::log(static_cast<double>(kCostMax));
    const auto v = static_cast<std::uint8_t>(std::lround(212.0 - 150.0 * t));
    return {v, v, v};
}

bool is_other_cost(Cost c) {
    return c != kCostPlain && c != kCostForest && c != kCostSwamp && c != kCostWall;
}

// Viridis sampled at nine evenly spaced points, interpolated linearly.
Rgb viridis(float t) {
    static constexpr std::array<Rgb, 9> kStops = {{{68, 1, 84},
                                                   {71, 44, 122},
                                                   {59, 82, 139},
                                                   {44, 114, 142},
                                                   {33, 145, 140},
                                                   {40, 174, 128},
                                                   {94, 201, 98},
                                                   {170, 220, 50},
                                                   {253, 231, 37}}};
    if (!(t > 0.0f)) t = 0.0f;  // also catches NaN
    t = std::min(t, 1.0f) * static_cast<float>(kStops.size() - 1);
    const int i = std::min(static_cast<int>(t), static_cast<int>(kStops.size()) - 2);
    return mix(kStops[i], kStops[i + 1], t - static_cast<float>(i));
}

// Diagonal stripes in panel pixel coordinates, continuous across cells.
bool hatch_on(int px, int py) {
    return ((px + py) / 3) % 2 == 0;
}

// ---- A 5x7 bitmap font (upper case, digits and a little punctuation) ------------------------------------

struct Glyph {
    char ch;
    const char* rows[7];
};

constexpr Glyph kFont[] = {
    {'A', {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
    {'B', {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."}},
    {'C', {".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."}},
    {'D', {"###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###.."}},
    {'E', {"#####", "#....", "#....", "####.", "#....", "#....", "#####"}},
    {'F', {"#####", "#....", "#....", "####.", "#....", "#....", "#...."}},
    {'G', {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"}},
    {'H', {"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
    {'I', {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'J', {"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."}},
    {'K', {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"}},
    {'L', {"#....", "#....", "#....", "#....", "#....", "#....", "#####"}},
    {'M', {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"}},
    {'N', {"#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"}},
    {'O', {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
    {'P', {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."}},
    {'Q', {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"}},
    {'R', {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"}},
    {'S', {".####", "#....", "#....", ".###.", "....#", "....#", "####."}},
    {'T', {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}},
    {'U', {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
    {'V', {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
    {'W', {"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."}},
    {'X', {"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"}},
    {'Y', {"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."}},
    {'Z', {"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"}},
    {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
    {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
    {'3', {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}},
    {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
    {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
    {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
    {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
    {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
    {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
    {'.', {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}},
    {',', {".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."}},
    {'-', {".....", ".....", ".....", "#####", ".....", ".....", "....."}},
    {'+', {".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."}},
    {'=', {".....", ".....", "#####", ".....", "#####", ".....", "....."}},
    {':', {".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."}},
    {'/', {"....#", "....#", "...#.", "..#..", ".#...", "#....", "#...."}},
    {'(', {"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."}},
    {')', {".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."}},
    {'<', {"...#.", "..#..", ".#...", "#....", ".#...", "..#..", "...#."}},
    {'>', {".#...", "..#..", "...#.", "....#", "...#.", "..#..", ".#..."}},
    {'?', {".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#.."}},
};

constexpr int kGlyphW = 5, kGlyphH = 7, kAdvance = 6;

const Glyph* find_glyph(char ch) {
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
    for (const Glyph& g : kFont) {
        if (g.ch == ch) return &g;
    }
    return ch == ' ' ? nullptr : find_glyph('?');
}

int text_width(std::string_view text, int scale) {
    return text.empty() ? 0 : (static_cast<int>(text.size()) * kAdvance - 1) * scale;
}

// Draws `text` with its top-left corner at (x, y); returns the width drawn.
int draw_text(Image& image, int x, int y, std::string_view text, Rgb colour, int scale) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        const Glyph* g = find_glyph(text[i]);
        if (g == nullptr) continue;
        const int gx = x + static_cast<int>(i) * kAdvance * scale;
        for (int row = 0; row < kGlyphH; ++row) {
            for (int col = 0; col < kGlyphW; ++col) {
                if (g->rows[row][col] == '#') image.fill_rect(gx + col * scale, y + row * scale, scale, scale, colour);
            }
        }
    }
    return text_width(text, scale);
}

// ---- Marks -------------------------------------------------------------------------------------------------

// An arrow centred on (cx, cy) pointing along the unit vector (vx, vy), spanning about `spacing` pixels.
void draw_arrow(Image& image, double cx, double cy, double vx, double vy, double spacing, Rgb colour) {
    const double half = std::max(0.42 * spacing, 2.0);
    const double head = std::max(0.38 * spacing, 3.0);
    const double tx = cx + vx * half, ty = cy + vy * half;
    const double bx = cx - vx * half, by = cy - vy * half;
    const auto px = [](double v) { return static_cast<int>(std::floor(v)); };
    const bool thick = spacing >= 18.0;
    auto stroke = [&](double x0, double y0, double x1, double y1) {
        image.line(px(x0), px(y0), px(x1), px(y1), colour);
        if (thick) {
            // Second pass one pixel across the line's minor axis.
            const bool steep = std::abs(y1 - y0) > std::abs(x1 - x0);
            image.line(px(x0) + (steep ? 1 : 0), px(y0) + (steep ? 0 : 1), px(x1) + (steep ? 1 : 0),
                       px(y1) + (steep ? 0 : 1), colour);
        }
    };
    stroke(bx, by, tx, ty);
    // The two barbs: the reversed direction rotated by +-28 degrees.
    const double c = std::cos(0.49), s = std::sin(0.49);
    const double rx = -vx, ry = -vy;
    stroke(tx, ty, tx + head * (rx * c - ry * s), ty + head * (rx * s + ry * c));
    stroke(tx, ty, tx + head * (rx * c + ry * s), ty + head * (-rx * s + ry * c));
}

// A goal marker: red square, white then dark outline, centred on (cx, cy) with red half-side `r`.
void draw_goal(Image& image, int cx, int cy, int r) {
    image.fill_rect(cx - r - 2, cy - r - 2, 2 * r + 5, 2 * r + 5, kInk);
    image.fill_rect(cx - r - 1, cy - r - 1, 2 * r + 3, 2 * r + 3, kWhite);
    image.fill_rect(cx - r, cy - r, 2 * r + 1, 2 * r + 1, kGoal);
}

void draw_hatch_rect(Image& image, int x, int y, int w, int h) {
    for (int yy = 0; yy < h; ++yy) {
        for (int xx = 0; xx < w; ++xx) image.set_pixel(x + xx, y + yy, hatch_on(xx, yy) ? kHatchA : kHatchB);
    }
}

// ---- Legends -----------------------------------------------------------------------------------------------

enum class Swatch { none, colour, grey_ramp, heat_bar, hatch, faded_hatch, goal, arrow };

struct LegendItem {
    Swatch swatch = Swatch::colour;
    Rgb colour{};
    std::string text;  // label after the swatch
    std::string left;  // heat bar only: label before the bar
};

struct LegendMetrics {
    int scale = 1;
    int swatch_w() const { return 14 * scale; }
    int bar_w() const { return 60 * scale; }
    int line_h() const { return 11 * scale; }
    int pad() const { return 4 * scale; }
};

int item_width(const LegendItem& item, const LegendMetrics& m) {
    if (item.swatch == Swatch::none) return text_width(item.text, m.scale);
    const int swatch = item.swatch == Swatch::heat_bar ? m.bar_w() : m.swatch_w();
    int w = swatch + m.pad() + text_width(item.text, m.scale);
    if (!item.left.empty()) w += text_width(item.left, m.scale) + m.pad();
    return w;
}

void draw_item(Image& image, int x, int y, const LegendItem& item, const LegendMetrics& m) {
    const int s = m.scale, sw = m.swatch_w(), sh = kGlyphH * s;
    if (item.swatch == Swatch::none) {
        draw_text(image, x, y, item.text, kInk, s);
        return;
    }
    if (!item.left.empty()) x += draw_text(image, x, y, item.left, kInk, s) + m.pad();
    switch (item.swatch) {
        case Swatch::none:
            break;
        case Swatch::colour:
            image.fill_rect(x, y, sw, sh, item.colour);
            image.stroke_rect(x, y, sw, sh, kFrame);
            break;
        case Swatch::grey_ramp:
            for (int i = 0; i < sw; ++i) {
                const auto c = static_cast<Cost>(2 + (kCostMax - 2) * i / std::max(sw - 1, 1));
                image.fill_rect(x + i, y, 1, sh, grey_for_cost(c));
            }
            image.stroke_rect(x, y, sw, sh, kFrame);
            break;
        case Swatch::heat_bar:
            for (int i = 0; i < m.bar_w(); ++i) {
                image.fill_rect(x + i, y, 1, sh, viridis(static_cast<float>(i) / std::max(m.bar_w() - 1, 1)));
            }
            image.stroke_rect(x, y, m.bar_w(), sh, kFrame);
            x += m.bar_w() - sw;
            break;
        case Swatch::hatch:
            draw_hatch_rect(image, x, y, sw, sh);
            image.stroke_rect(x, y, sw, sh, kFrame);
            break;
        case Swatch::faded_hatch:
            image.fill_rect(x, y, sw, sh, item.colour);
            for (int yy = 0; yy < sh; ++yy) {
                for (int xx = 0; xx < sw; ++xx) {
                    if (hatch_on(xx, yy)) image.blend(x + xx, y + yy, kHatchA, 0.45f);
                }
            }
            image.stroke_rect(x, y, sw, sh, kFrame);
            break;
        case Swatch::goal:
            draw_goal(image, x + sw / 2, y + sh / 2, std::max(1, sh / 2 - 2));
            break;
        case Swatch::arrow:
            image.fill_rect(x, y, sw, sh, item.colour);
            draw_arrow(image, x + sw / 2.0, y + sh / 2.0, 1.0, 0.0, sw, kArrow);
            break;
    }
    draw_text(image, x + sw + m.pad(), y, item.text, kInk, s);
}

std::string format_value(float v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, v < 1000.0f ? "%.1f" : "%.0f", static_cast<double>(v));
    return buffer;
}

std::string cells_phrase(int n) {
    return std::to_string(n) + "X" + std::to_string(n);
}

// ---- Sizing ------------------------------------------------------------------------------------------------

struct Scale {
    int cell_pixels = 1;      // pixels per cell side (1 when downsampling)
    int cells_per_pixel = 1;  // cells per pixel side (1 when not downsampling)
    double pixels_per_cell() const { return static_cast<double>(cell_pixels) / cells_per_pixel; }
};

Scale choose_scale(int width, int height, int requested) {
    const int longest = std::max(width, height);
    Scale s;
    if (requested > 0) {
        s.cell_pixels = std::clamp(requested, 1, std::max(1, kExplicitPanelMax / longest));
    } else if (longest <= 128) {
        s.cell_pixels = std::clamp(kPanelBudget / longest, 12, 24);
    } else if (longest <= kPanelBudget) {
        s.cell_pixels = kPanelBudget / longest;
    } else {
        s.cells_per_pixel = (longest + kPanelBudget - 1) / kPanelBudget;
    }
    return s;
}

}  // namespace

Image render_layers(const CostField& cost, const FlowField& field, std::span<const Cell> goals,
                    const RenderOptions& options) {
    const int w = cost.width(), h = cost.height();
    const bool field_fits = field.width() == w && field.height() == h;
    TIDE_ASSERT(field_fits);  // if a custom handler returns, the field is ignored (drawn as unreachable)
    const std::span<const Cost> costs = cost.cells();
    const std::span<const float> integration = field_fits ? field.integration() : std::span<const float>();
    const std::span<const Direction> directions = field_fits ? field.directions() : std::span<const Direction>();
    auto finite_at = [&](std::size_t i) { return !integration.empty() && std::isfinite(integration[i]); };

    // Pre-scan: range of the finite integration values and which legend rows are needed. Goal
    // fields run from 0 (the goals) up; flee fields from their lowest (safest) value up to 0 or so.
    const bool flee = field.kind() == FieldKind::flee;
    float max_value = flee ? -std::numeric_limits<float>::infinity() : 0.0f;
    float min_value = flee ? std::numeric_limits<float>::infinity() : 0.0f;
    bool any_other = false, any_unreachable = false;
    for (std::size_t i = 0; i < costs.size(); ++i) {
        any_other = any_other || is_other_cost(costs[i]);
        if (finite_at(i)) {
            max_value = std::max(max_value, integration[i]);
            if (flee) min_value = std::min(min_value, integration[i]);
        } else if (costs[i] != kCostWall) {
            any_unreachable = true;
        }
    }

    const Scale scale = choose_scale(std::max(w, 1), std::max(h, 1), options.cell_pixels);
    const int cp = scale.cell_pixels, f = scale.cells_per_pixel;
    const double ppc = scale.pixels_per_cell();
    const int units_w = (w + f - 1) / f, units_h = (h + f - 1) / f;
    const int map_w = units_w * cp, map_h = units_h * cp;
    const int stride = options.arrow_stride > 0
                           ? std::min(options.arrow_stride, std::max(w, h))
                           : (cp >= 12 ? 1 : static_cast<int>(std::ceil(kArrowSpacing / ppc - 1e-9)));

    // ---- Text and layout.
    const int title_scale = std::clamp(std::max(map_w, map_h) / 300, 1, 3);
    LegendMetrics lm;
    lm.scale = std::max(1, title_scale - 1);
    if (!(min_value <= max_value)) min_value = max_value = 0.0f;  // a flee field with nothing reached
    const char* titles[3] = {"TERRAIN", flee ? "FLEE VALUE" : "INTEGRATION", "FLOW"};

    std::vector<LegendItem> legends[3];
    legends[0].push_back({Swatch::colour, kPlain, "PLAIN 1", ""});
    legends[0].push_back({Swatch::colour, kForest, "FOREST 3", ""});
    legends[0].push_back({Swatch::colour, kSwamp, "SWAMP 6", ""});
    if (any_other) legends[0].push_back({Swatch::grey_ramp, {}, "OTHER 2-254", ""});
    legends[0].push_back({Swatch::colour, kWall, "WALL", ""});
    legends[1].push_back({Swatch::heat_bar, {}, format_value(max_value), flee ? format_value(min_value) : "0"});
    legends[1].push_back({Swatch::hatch, {}, "UNREACHABLE", ""});
    legends[1].push_back({Swatch::colour, kHeatWall, "WALL", ""});
    legends[2].push_back({Swatch::goal,
                          {},
                          flee ? (goals.size() == 1 ? "DANGER" : "DANGERS") : (goals.size() == 1 ? "GOAL" : "GOALS"),
                          ""});
    legends[2].push_back({Swatch::arrow, mix(kPlain, kWhite, kFlowFade),
                          stride == 1 ? "EVERY CELL" : "1 PER " + cells_phrase(stride), ""});
    if (any_unreachable) {
        legends[2].push_back({Swatch::faded_hatch, mix(kPlain, kWhite, kFlowFade), "UNREACHABLE", ""});
    }
    legends[2].push_back({Swatch::none,
                          {},
                          std::to_string(w) + "X" + std::to_string(h) +
                              (f > 1 ? ", 1 PX = " + cells_phrase(f) : ", CELL = " + std::to_string(cp) + " PX"),
                          ""});

    const int margin = 10, gap = 10 + 6 * title_scale;
    const int title_h = kGlyphH * title_scale + 8;
    std::size_t legend_rows = 0;
    int slot_w[3], legend_w[3];
    for (int p = 0; p < 3; ++p) {
        legend_w[p] = 0;
        for (const LegendItem& item : legends[p]) legend_w[p] = std::max(legend_w[p], item_width(item, lm));
        slot_w[p] = std::max({map_w + 2, text_width(titles[p], title_scale), legend_w[p]});
        legend_rows = std::max(legend_rows, legends[p].size());
    }
    const int legend_top = margin + title_h + map_h + 2 + 3 * lm.scale;
    const int image_w = 2 * margin + slot_w[0] + slot_w[1] + slot_w[2] + 2 * gap;
    const int image_h = legend_top + static_cast<int>(legend_rows) * lm.line_h() + margin;
    Image image(image_w, image_h, kBackground);

    int slot_x[3], map_x[3];
    const int map_y = margin + title_h + 1;
    for (int p = 0, x = margin; p < 3; ++p) {
        slot_x[p] = x;
        map_x[p] = x + (slot_w[p] - map_w) / 2;
        x += slot_w[p] + gap;
    }

    // ---- Panels, one display unit at a time.
    std::array<Rgb, 256> terrain_lut{}, faded_lut{};
    for (int c = 1; c < 256; ++c) {
        terrain_lut[c] = terrain_colour(static_cast<Cost>(c));
        faded_lut[c] = mix(terrain_lut[c], kWhite, c == kCostWall ? kFlowWallFade : kFlowFade);
    }
    const bool grid = cp >= 10;
    for (int uy = 0; uy < units_h; ++uy) {
        const int y0 = uy * f, y1 = std::min(y0 + f, h);
        for (int ux = 0; ux < units_w; ++ux) {
            const int x0 = ux * f, x1 = std::min(x0 + f, w);
            long terrain_sum[3] = {0, 0, 0}, faded_sum[3] = {0, 0, 0};
            int walls = 0, unreachable = 0, finite = 0;
            double value_sum = 0.0;
            for (int y = y0; y < y1; ++y) {
                for (int x = x0; x < x1; ++x) {
                    const std::size_t i = static_cast<std::size_t>(y) * w + x;
                    const Cost c = costs[i];
                    const Rgb t = terrain_lut[c], fd = faded_lut[c];
                    terrain_sum[0] += t.r, terrain_sum[1] += t.g, terrain_sum[2] += t.b;
                    faded_sum[0] += fd.r, faded_sum[1] += fd.g, faded_sum[2] += fd.b;
                    if (c == kCostWall) {
                        ++walls;
                    } else if (finite_at(i)) {
                        ++finite;
                        value_sum += integration[i];
                    } else {
                        ++unreachable;
                    }
                }
            }
            const int n = (x1 - x0) * (y1 - y0);
            auto mean = [n](const long* sum) {
                return Rgb{static_cast<std::uint8_t>(sum[0] / n), static_cast<std::uint8_t>(sum[1] / n),
                           static_cast<std::uint8_t>(sum[2] / n)};
            };
            const Rgb terrain = mean(terrain_sum), faded = mean(faded_sum);
            const float heat_t =
                finite > 0 && max_value > min_value
                    ? static_cast<float>((value_sum / finite - min_value) / static_cast<double>(max_value - min_value))
                    : 0.0f;
            const Rgb heat = viridis(heat_t);
            const float lost_share = static_cast<float>(unreachable) / static_cast<float>(n);
            // Heat colour, then the wall colour mixed in by its share among heat + walls.
            const Rgb heat_wall =
                finite + walls > 0 ? mix(heat, kHeatWall, static_cast<float>(walls) / (finite + walls)) : kHeatWall;
            for (int py = 0; py < cp; ++py) {
                for (int px = 0; px < cp; ++px) {
                    const int lx = ux * cp + px, ly = uy * cp + py;  // panel-local pixel
                    const bool stripe = hatch_on(lx, ly);
                    Rgb integ = heat_wall;
                    Rgb flow = faded;
                    if (unreachable > 0) {
                        integ = mix(heat_wall, stripe ? kHatchA : kHatchB, lost_share);
                        if (stripe) flow = mix(faded, kHatchA, 0.45f * lost_share);
                    }
                    Rgb ter = terrain;
                    if (grid && (px == cp - 1 || py == cp - 1)) {
                        ter = mix(ter, kInk, 0.1f);
                        flow = mix(flow, kInk, 0.06f);
                    }
                    image.set_pixel(map_x[0] + lx, map_y + ly, ter);
                    image.set_pixel(map_x[1] + lx, map_y + ly, integ);
                    image.set_pixel(map_x[2] + lx, map_y + ly, flow);
                }
            }
        }
    }

    // ---- Flow arrows. With stride 1 every cell shows its own move. With a larger stride each
    // stride x stride block shows the mean of its cells' moves at its centre (a box-filtered flow, which
    // reads far better than a sparse sample of noisy 8-way moves); blocks that are mostly walls or
    // unreachable, or whose moves cancel out, get no arrow.
    if (!directions.empty()) {
        const double spacing = stride * ppc;
        const double inv_sqrt2 = 1.0 / std::sqrt(2.0);
        auto unit = [&](Direction d, double& vx, double& vy) {
            const int k = static_cast<int>(d);
            const double len = is_diagonal(d) ? inv_sqrt2 : 1.0;
            vx += kDirectionDx[k] * len;
            vy += kDirectionDy[k] * len;
        };
        for (int by = 0; by * stride < h; ++by) {
            const int y0 = by * stride, y1 = std::min(y0 + stride, h);
            for (int bx = 0; bx * stride < w; ++bx) {
                const int x0 = bx * stride, x1 = std::min(x0 + stride, w);
                double vx = 0.0, vy = 0.0;
                int moves = 0;
                for (int y = y0; y < y1; ++y) {
                    for (int x = x0; x < x1; ++x) {
                        const Direction d = directions[static_cast<std::size_t>(y) * w + x];
                        if (!is_move(d)) continue;
                        unit(d, vx, vy);
                        ++moves;
                    }
                }
                const double norm = std::hypot(vx, vy);
                if (moves == 0 || moves * 4 < (x1 - x0) * (y1 - y0) || norm < 0.25 * moves) continue;
                draw_arrow(image, map_x[2] + 0.5 * (x0 + x1) * ppc, map_y + 0.5 * (y0 + y1) * ppc, vx / norm, vy / norm,
                           spacing, kArrow);
            }
        }
    }

    // ---- Goals on every panel.
    const int goal_r = std::max(4, cp / 2 - 2);
    for (const Cell& g : goals) {
        if (!cost.contains(g)) continue;
        const int gx = static_cast<int>(std::floor((g.x + 0.5) * ppc));
        const int gy = static_cast<int>(std::floor((g.y + 0.5) * ppc));
        for (int p = 0; p < 3; ++p) draw_goal(image, map_x[p] + gx, map_y + gy, goal_r);
    }

    // ---- Frames, titles, legends (drawn last so markers near the border cannot cover them).
    for (int p = 0; p < 3; ++p) {
        image.stroke_rect(map_x[p] - 1, map_y - 1, map_w + 2, map_h + 2, kFrame);
        image.fill_rect(slot_x[p], margin, slot_w[p], title_h - 1, kBackground);
        draw_text(image, slot_x[p] + (slot_w[p] - text_width(titles[p], title_scale)) / 2, margin, titles[p], kInk,
                  title_scale);
        image.fill_rect(slot_x[p], legend_top - 2, slot_w[p], image_h - legend_top + 2, kBackground);
        for (std::size_t i = 0; i < legends[p].size(); ++i) {
            draw_item(image, legend_w[p] <= map_w + 2 ? map_x[p] - 1 : slot_x[p],
                      legend_top + static_cast<int>(i) * lm.line_h(), legends[p][i], lm);
        }
    }
    return image;
}

int draw_label(Image& image, int x, int y, std::string_view text, Rgb colour, int scale) {
    return draw_text(image, x, y, text, colour, scale);
}

int label_height(int scale) {
    return kGlyphH * scale;
}

Rgb terrain_colour(Cost c) {
    switch (c) {
        case kCostPlain:
            return kPlain;
        case kCostForest:
            return kForest;
        case kCostSwamp:
            return kSwamp;
        case kCostWall:
            return kWall;
        default:
            return grey_for_cost(c);
    }
}

}  // namespace tide::render
