#pragma once
/// \file png_writer.hpp
/// A minimal RGB raster with a few drawing primitives, and a PNG writer (libpng). Part of the CLI,
/// not of the core library. Pixel (x, y): x is the column (0 at the left), y the row (0 at the top).

#include <cstdint>
#include <string>
#include <vector>

#include "tide/result.hpp"

namespace tide::render {

/// An 8-bit-per-channel colour.
struct Rgb {
    std::uint8_t r = 0;  ///< Red.
    std::uint8_t g = 0;  ///< Green.
    std::uint8_t b = 0;  ///< Blue.
    friend bool operator==(const Rgb&, const Rgb&) = default;
};

/// Linear mix of two colours: `t` = 0 gives `a`, 1 gives `b` (clamped to 0..1).
Rgb mix(Rgb a, Rgb b, float t) noexcept;

/// An RGB image, 8 bits per channel, row-major (`rgb[3 * (y * width + x) + channel]`).
/// All drawing helpers clip to the image, so any coordinates are safe.
struct Image {
    int width = 0;                  ///< Columns, >= 0.
    int height = 0;                 ///< Rows, >= 0.
    std::vector<std::uint8_t> rgb;  ///< 3 * width * height bytes.

    Image() = default;
    /// A `width` x `height` image filled with `fill` (negative sizes are treated as 0).
    Image(int width, int height, Rgb fill = {});

    /// True when (x, y) lies on the image.
    bool contains(int x, int y) const noexcept { return x >= 0 && y >= 0 && x < width && y < height; }
    /// Colour at (x, y); black when off the image.
    Rgb pixel(int x, int y) const noexcept;
    /// Sets (x, y) to `c`; ignored when off the image.
    void set_pixel(int x, int y, Rgb c) noexcept;
    /// Mixes `c` into (x, y) with opacity `alpha` (0..1); ignored when off the image.
    void blend(int x, int y, Rgb c, float alpha) noexcept;
    /// Fills the `w` x `h` rectangle whose top-left pixel is (x, y), clipped.
    void fill_rect(int x, int y, int w, int h, Rgb c) noexcept;
    /// Mixes `c` into the `w` x `h` rectangle at (x, y) with opacity `alpha`, clipped.
    void blend_rect(int x, int y, int w, int h, Rgb c, float alpha) noexcept;
    /// Draws the 1-pixel outline of the `w` x `h` rectangle at (x, y), clipped.
    void stroke_rect(int x, int y, int w, int h, Rgb c) noexcept;
    /// Draws a 1-pixel line from (x0, y0) to (x1, y1) inclusive (Bresenham), clipped to the image.
    void line(int x0, int y0, int x1, int y1, Rgb c) noexcept;
};

/// Writes `image` to `path` as an 8-bit RGB PNG (libpng). On failure the error names the path and the
/// partial file is removed. An image with a zero dimension is an error (PNG cannot hold it).
Result<void> write_png(const Image& image, const std::string& path);

}  // namespace tide::render
