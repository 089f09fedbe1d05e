#include "gif_writer.hpp"

#include "atomic_file.hpp"

#include <gif_lib.h>

#include <algorithm>
#include <filesystem>

namespace tide::cli {
namespace {

Error gif_error(const std::string& path, int code) {
    const char* text = GifErrorString(code);
    return Error{path + ": GIF error: " + (text ? text : "unknown")};
}

}  // namespace

GifWriter::~GifWriter() {
    if (!gif_) return;
    // Not closed: an error stopped the writer. The partial file goes; the target stays as it was.
    int err = 0;
    EGifCloseFile(gif_, &err);
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
}

Result<void> GifWriter::open(const std::string& path, int width, int height, const std::vector<Color>& palette) {
    if (width < 1 || height < 1 || width > 65535 || height > 65535) return Error{path + ": bad GIF size"};
    if (palette.empty() || palette.size() > 256) return Error{path + ": a GIF palette holds 1..256 colours"};
    // Written beside the target and renamed into place by close() (atomic_file.hpp).
    auto temp = temp_path_for(path);
    if (!temp) return temp.error();
    int err = 0;
    gif_ = EGifOpenFileName(temp->c_str(), true, &err);  // true: fail if the temporary name exists
    if (!gif_) return gif_error(path, err);
    path_ = path;
    temp_ = std::move(*temp);
    width_ = width;
    height_ = height;
    ColorMapObject* map = GifMakeMapObject(256, nullptr);
    for (int i = 0; i < 256; ++i) {
        const Color c = palette[std::min<std::size_t>(static_cast<std::size_t>(i), palette.size() - 1)];
        map->Colors[i] = {c.r, c.g, c.b};
    }
    EGifSetGifVersion(gif_, true);
    const int rc = EGifPutScreenDesc(gif_, width, height, 8, 0, map);
    GifFreeMapObject(map);
    if (rc != GIF_OK) return gif_error(path, gif_->Error);
    // NETSCAPE2.0 application extension: loop forever.
    static const GifByteType kApp[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    static const GifByteType kLoop[] = {1, 0, 0};
    if (EGifPutExtensionLeader(gif_, APPLICATION_EXT_FUNC_CODE) != GIF_OK ||
        EGifPutExtensionBlock(gif_, sizeof kApp, kApp) != GIF_OK ||
        EGifPutExtensionBlock(gif_, sizeof kLoop, kLoop) != GIF_OK || EGifPutExtensionTrailer(gif_) != GIF_OK) {
        return gif_error(path, gif_->Error);
    }
    return {};
}

Result<void> GifWriter::add_frame(const std::vector<std::uint8_t>& indices, int delay_cs) {
    if (!gif_) return Error{"GIF is not open"};
    if (indices.size() != static_cast<std::size_t>(width_) * height_) return Error{path_ + ": frame size mismatch"};
    GraphicsControlBlock gcb{};
    gcb.DisposalMode = DISPOSAL_UNSPECIFIED;
    gcb.DelayTime = delay_cs;
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    GifByteType ext[4];
    EGifGCBToExtension(&gcb, ext);
    if (EGifPutExtension(gif_, GRAPHICS_EXT_FUNC_CODE, 4, ext) != GIF_OK ||
        EGifPutImageDesc(gif_, 0, 0, width_, height_, false, nullptr) != GIF_OK) {
        return gif_error(path_, gif_->Error);
    }
    std::vector<GifPixelType> row(static_cast<std::size_t>(width_));
    for (int y = 0; y < height_; ++y) {
        std::copy_n(indices.begin() + static_cast<std::ptrdiff_t>(y) * width_, width_, row.begin());
        if (EGifPutLine(gif_, row.data(), width_) != GIF_OK) return gif_error(path_, gif_->Error);
    }
    return {};
}

Result<void> GifWriter::close() {
    if (!gif_) return {};
    int err = 0;
    const int rc = EGifCloseFile(gif_, &err);
    gif_ = nullptr;
    std::error_code ec;
    if (rc != GIF_OK) {
        std::filesystem::remove(temp_, ec);
        return gif_error(path_, err);
    }
    // giflib creates the file owner-only; make it readable like the other outputs.
    std::filesystem::permissions(temp_,
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                     std::filesystem::perms::group_read | std::filesystem::perms::others_read,
                                 ec);
    return replace_with(temp_, path_);
}

}  // namespace tide::cli
