#pragma once
// Animated GIF output for `tide sim --gif`, through giflib (Debian's libgif-dev).

#include <cstdint>
#include <string>
#include <vector>

#include "tide/result.hpp"

struct GifFileType;

namespace tide::cli {

/// Writes an endlessly looping animated GIF frame by frame. Frames are palette indices.
class GifWriter {
public:
    /// One RGB palette entry.
    struct Color {
        std::uint8_t r, g, b;
    };
    GifWriter() = default;
    GifWriter(const GifWriter&) = delete;
    GifWriter& operator=(const GifWriter&) = delete;
    ~GifWriter();

    /// Starts `path` (as a temporary file beside it) for `width` x `height` frames with up to 256
    /// `palette` colours. Error for a target that is not a regular file.
    Result<void> open(const std::string& path, int width, int height, const std::vector<Color>& palette);
    /// Appends a frame of width*height palette indices shown for `delay_cs` hundredths of a second.
    Result<void> add_frame(const std::vector<std::uint8_t>& indices, int delay_cs);
    /// Finishes the file and renames it over `path`. Destroying an open writer without close()
    /// removes the temporary file and leaves `path` as it was.
    Result<void> close();

private:
    GifFileType* gif_ = nullptr;
    std::string path_;
    std::string temp_;  // where it is written until close()
    int width_ = 0, height_ = 0;
};

}  // namespace tide::cli
