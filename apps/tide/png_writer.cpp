// PNG output through libpng, and the raster primitives the renderer draws with.

#include "png_writer.hpp"

#include "atomic_file.hpp"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>

namespace tide::render {

Rgb mix(Rgb a, Rgb b, float t) noexcept {
    t = std::clamp(t, 0.0f, 1.0f);
    auto channel = [t](std::uint8_t x, std::uint8_t y) {
        return static_cast<std::uint8_t>(std::lround(static_cast<float>(x) + (static_cast<float>(y) - x) * t));
    };
    return {channel(a.r, b.r), channel(a.g, b.g), channel(a.b, b.b)};
}

Image::Image(int w, int h, Rgb fill) : width(std::max(w, 0)), height(std::max(h, 0)) {
    rgb.resize(static_cast<std::size_t>(width) * height * 3);
    for (std::size_t i = 0; i < rgb.size(); i += 3) {
        rgb[i] = fill.r;
        rgb[i + 1] = fill.g;
        rgb[i + 2] = fill.b;
    }
}

Rgb Image::pixel(int x, int y) const noexcept {
    if (!contains(x, y)) return {};
    const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
    return {rgb[i], rgb[i + 1], rgb[i + 2]};
}

void Image::set_pixel(int x, int y, Rgb c) noexcept {
    if (!contains(x, y)) return;
    const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
    rgb[i] = c.r;
    rgb[i + 1] = c.g;
    rgb[i + 2] = c.b;
}

void Image::blend(int x, int y, Rgb c, float alpha) noexcept {
    if (contains(x, y)) set_pixel(x, y, mix(pixel(x, y), c, alpha));
}

void Image::fill_rect(int x, int y, int w, int h, Rgb c) noexcept {
    const int x0 = std::max(x, 0), y0 = std::max(y, 0);
    const int x1 = static_cast<int>(std::min<long long>(static_cast<long long>(x) + w, width));
    const int y1 = static_cast<int>(std::min<long long>(static_cast<long long>(y) + h, height));
    for (int yy = y0; yy < y1; ++yy) {
        for (int xx = x0; xx < x1; ++xx) set_pixel(xx, yy, c);
    }
}

void Image::blend_rect(int x, int y, int w, int h, Rgb c, float alpha) noexcept {
    const int x0 = std::max(x, 0), y0 = std::max(y, 0);
    const int x1 = static_cast<int>(std::min<long long>(static_cast<long long>(x) + w, width));
    const int y1 = static_cast<int>(std::min<long long>(static_cast<long long>(y) + h, height));
    for (int yy = y0; yy < y1; ++yy) {
        for (int xx = x0; xx < x1; ++xx) blend(xx, yy, c, alpha);
    }
}

void Image::stroke_rect(int x, int y, int w, int h, Rgb c) noexcept {
    if (w <= 0 || h <= 0) return;
    fill_rect(x, y, w, 1, c);
    fill_rect(x, y + h - 1, w, 1, c);
    fill_rect(x, y, 1, h, c);
    fill_rect(x + w - 1, y, 1, h, c);
}

void Image::line(int x0, int y0, int x1, int y1, Rgb c) noexcept {
    if (width == 0 || height == 0) return;
    // Far-off endpoints are first clipped (Liang-Barsky) to a slightly enlarged image rectangle, so the
    // Bresenham walk below only visits pixels near the image however long the requested line is.
    const double margin = 2.0;
    const double lo_x = -margin, lo_y = -margin, hi_x = width - 1 + margin, hi_y = height - 1 + margin;
    const bool near =
        x0 >= lo_x && x0 <= hi_x && x1 >= lo_x && x1 <= hi_x && y0 >= lo_y && y0 <= hi_y && y1 >= lo_y && y1 <= hi_y;
    if (!near) {
        const double dx = static_cast<double>(x1) - x0, dy = static_cast<double>(y1) - y0;
        double t0 = 0.0, t1 = 1.0;
        const double p[4] = {-dx, dx, -dy, dy};
        const double q[4] = {x0 - lo_x, hi_x - x0, y0 - lo_y, hi_y - y0};
        for (int i = 0; i < 4; ++i) {
            if (p[i] == 0.0) {
                if (q[i] < 0.0) return;  // parallel to this edge and outside it
                continue;
            }
            const double r = q[i] / p[i];
            if (p[i] < 0.0) {
                t0 = std::max(t0, r);
            } else {
                t1 = std::min(t1, r);
            }
        }
        if (t0 > t1) return;
        const double sx = x0, sy = y0;
        x0 = static_cast<int>(std::lround(sx + t0 * dx));
        y0 = static_cast<int>(std::lround(sy + t0 * dy));
        x1 = static_cast<int>(std::lround(sx + t1 * dx));
        y1 = static_cast<int>(std::lround(sy + t1 * dy));
    }
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
    const int step_x = x0 < x1 ? 1 : -1, step_y = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        set_pixel(x0, y0, c);
        if (x0 == x1 && y0 == y1) break;
        const int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x0 += step_x;
        }
        if (e2 <= dx) {
            err += dx;
            y0 += step_y;
        }
    }
}

namespace {

// libpng reports errors through callbacks; the error callback must not return, so it jumps back
// into write_rows() with the message saved here.
struct PngContext {
    char message[256] = {};
};

void on_png_error(png_structp png, png_const_charp message) {
    auto* context = static_cast<PngContext*>(png_get_error_ptr(png));
    std::snprintf(context->message, sizeof context->message, "%s", message ? message : "libpng error");
    png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {}

// Everything between setjmp and a possible longjmp lives in this function and holds only trivially
// destructible locals, as longjmp requires. Returns false with context.message set on failure.
bool write_rows(std::FILE* file, const Image& image, PngContext& context) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, on_png_error, on_png_warning);
    if (png == nullptr) {
        std::snprintf(context.message, sizeof context.message, "cannot initialise libpng");
        return false;
    }
    png_infop info = png_create_info_struct(png);
    if (info == nullptr) {
        png_destroy_write_struct(&png, nullptr);
        std::snprintf(context.message, sizeof context.message, "cannot initialise libpng");
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_init_io(png, file);
    png_set_compression_level(png, 6);
    png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    const std::size_t stride = static_cast<std::size_t>(image.width) * 3;
    for (int y = 0; y < image.height; ++y) {
        png_write_row(png, image.rgb.data() + stride * static_cast<std::size_t>(y));
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return true;
}

}  // namespace

Result<void> write_png(const Image& image, const std::string& path) {
    if (image.width <= 0 || image.height <= 0) {
        return Error{path + ": cannot write an empty " + std::to_string(image.width) + " x " +
                     std::to_string(image.height) + " image"};
    }
    if (image.rgb.size() != static_cast<std::size_t>(image.width) * image.height * 3) {
        return Error{path + ": image buffer size does not match " + std::to_string(image.width) + " x " +
                     std::to_string(image.height)};
    }
    // Written beside the target and renamed into place: a failure leaves `path` as it was.
    auto file = cli::AtomicFile::open(path);
    if (!file) return file.error();
    PngContext context;
    if (!write_rows(file->get(), image, context)) return Error{path + ": cannot write PNG: " + context.message};
    if (auto r = file->commit(); !r) return Error{"cannot write PNG: " + r.error().message};
    return {};
}

}  // namespace tide::render
