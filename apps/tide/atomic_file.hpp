#pragma once
// Output files of the tide CLI, written so that a failure never destroys anything: every writer
// (PNG, CSV, JSON, SVG, GIF, maps) writes `<path>.tmp.<pid>` beside the target, flushes it to disk
// and renames it over the target only when everything succeeded. On any error only the temporary
// file is removed; a target that exists and is not a regular file (a directory, a device, a FIFO)
// is refused before anything is written.

#include <cstdio>
#include <string>
#include <string_view>

#include "tide/result.hpp"

namespace tide::cli {

/// The temporary path beside `path` that its writer fills ("<path>.tmp.<pid>"). Error naming
/// `path` when it exists and is not a regular file (or a symbolic link to one).
Result<std::string> temp_path_for(const std::string& path);

/// Checks before any work that `path` can be written: it is not an existing non-regular file and
/// its temporary file can be created there (created and removed at once). Error names `path`.
Result<void> check_output_target(const std::string& path);

/// Flushes `temp` to disk and renames it to `path`; on error removes `temp` (never `path`) and
/// returns an error naming `path`.
Result<void> replace_with(const std::string& temp, const std::string& path);

/// A stdio file open on the temporary path of `path`. commit() puts it in place; destroying it
/// without a successful commit() removes the temporary file and leaves `path` as it was.
class AtomicFile {
public:
    /// Creates the temporary file (mode 0666 less the umask, like fopen). Error names `path`.
    static Result<AtomicFile> open(const std::string& path);
    AtomicFile(AtomicFile&& other) noexcept;
    AtomicFile& operator=(AtomicFile&&) = delete;
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    ~AtomicFile();

    /// The stream to write to (owned by this object).
    std::FILE* get() const noexcept { return file_; }
    /// Checks the stream for write errors, closes it and renames it over the target.
    Result<void> commit();

private:
    AtomicFile(std::FILE* file, std::string temp, std::string path) noexcept;
    std::FILE* file_ = nullptr;
    std::string temp_;
    std::string path_;
    bool done_ = false;
};

/// Writes `contents` to `path` through an AtomicFile. Error names `path`.
Result<void> write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace tide::cli
