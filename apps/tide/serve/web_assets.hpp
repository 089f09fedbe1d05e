#pragma once
// The demo page's files, compiled into the binary at build time (cmake/embed_web.cmake).

#include <span>
#include <string_view>

namespace tide::serve {

/// One page file: its name (relative to web/, e.g. "app.js") and bytes.
struct WebAsset {
    std::string_view path;
    std::string_view data;
};

/// Every page file compiled in.
std::span<const WebAsset> web_assets();

}  // namespace tide::serve
