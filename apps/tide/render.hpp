#pragma once
/// \file render.hpp
/// Pictures of a built field for the `tide` CLI: terrain, integration heat map and flow arrows side by
/// side in one image. Part of the CLI, not of the core library.

#include <span>
#include <string_view>

#include "png_writer.hpp"
#include "tide/cost_field.hpp"
#include "tide/flow_field.hpp"

namespace tide::render {

/// How render_layers() sizes the picture. Zero means "choose automatically".
struct RenderOptions {
    /// Pixels per cell side. 0 = automatic: 12..24 for maps up to 128 cells on their longest side, else
    /// as many as keep a panel within 1024 px, and for maps over 1024 cells one panel pixel covering
    /// k x k cells. An explicit value is reduced if a panel would exceed 4096 px.
    int cell_pixels = 0;
    /// Draw one arrow per `arrow_stride` x `arrow_stride` block of cells. 0 = automatic: arrows about
    /// 12 px apart (every cell when cells are 12 px or larger).
    int arrow_stride = 0;
};

/// Colour of a cost on the terrain panel: plain, forest, swamp, a grey ramp for other costs, walls dark.
Rgb terrain_colour(Cost c);

/// Draws `text` (the built-in 5x7 pixel font, upper case) with its top-left corner at (x, y), each
/// font pixel `scale` x `scale` image pixels; returns the width drawn, pixels.
int draw_label(Image& image, int x, int y, std::string_view text, Rgb colour, int scale);
/// Height of a line of draw_label() text at `scale`, pixels.
int label_height(int scale);

/// Draws three panels side by side, each under a title and above a legend: "terrain" (cost colours:
/// plain, forest, swamp, a grey ramp for other costs, walls dark), "integration" (viridis heat map of
/// the cost to the goal normalised by the largest finite value, walls dark, unreachable cells hatched
/// magenta) and "flow" (arrows over faded terrain). Goals are marked on every panel; goals off the map
/// are ignored. `field` must have been built on `cost` (same size; asserts otherwise). Never fails for
/// any map from 1 x 1 to kMaxDimension, including fields that are all walls or all unreachable.
Image render_layers(const CostField& cost, const FlowField& field, std::span<const Cell> goals,
                    const RenderOptions& options = {});

}  // namespace tide::render
