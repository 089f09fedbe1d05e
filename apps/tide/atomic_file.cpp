#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace tide::cli {
namespace {

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

Error io_error(const std::string& path, const std::string& what, int err) {
    return Error{ErrorCode::io, path + ": " + what + ": " + std::strerror(err)};
}

}  // namespace

Result<std::string> temp_path_for(const std::string& path) {
    if (path.empty()) return Error{"empty output path"};
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        return Error{path + ": is " + std::string(kind_of(st.st_mode)) + "; refusing to replace it with a file"};
    }
    return path + ".tmp." + std::to_string(::getpid());
}

Result<void> check_output_target(const std::string& path) {
    auto temp = temp_path_for(path);
    if (!temp) return temp.error();
    const int fd = ::open(temp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) return io_error(path, "cannot create a file there", errno);
    ::close(fd);
    ::unlink(temp->c_str());
    return {};
}

Result<void> replace_with(const std::string& temp, const std::string& path) {
    // Data first, then the name: after a crash the target is the old file or the whole new one.
    const int fd = ::open(temp.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
        const int err = errno;
        if (fd >= 0) ::close(fd);
        ::unlink(temp.c_str());
        return io_error(path, "cannot flush the written data to disk", err);
    }
    ::close(fd);
    // Checked again: the target may have appeared since the temporary file was opened.
    if (auto checked = temp_path_for(path); !checked) {
        ::unlink(temp.c_str());
        return checked.error();
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        return io_error(path, "cannot move the finished file into place", err);
    }
    return {};
}

AtomicFile::AtomicFile(std::FILE* file, std::string temp, std::string path) noexcept
    : file_(file), temp_(std::move(temp)), path_(std::move(path)) {}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : file_(std::exchange(other.file_, nullptr)),
      temp_(std::move(other.temp_)),
      path_(std::move(other.path_)),
      done_(std::exchange(other.done_, true)) {}

AtomicFile::~AtomicFile() {
    if (done_) return;
    if (file_) std::fclose(file_);
    ::unlink(temp_.c_str());
}

Result<AtomicFile> AtomicFile::open(const std::string& path) {
    auto temp = temp_path_for(path);
    if (!temp) return temp.error();
    // O_EXCL: never write through a file or link someone else left at the temporary name.
    const int fd = ::open(temp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) return io_error(path, "cannot open " + *temp + " for writing", errno);
    std::FILE* file = ::fdopen(fd, "wb");
    if (!file) {
        const int err = errno;
        ::close(fd);
        ::unlink(temp->c_str());
        return io_error(path, "cannot open for writing", err);
    }
    return AtomicFile(file, std::move(*temp), path);
}

Result<void> AtomicFile::commit() {
    if (done_) return Error{path_ + ": already written"};
    done_ = true;
    const bool stream_failed = std::ferror(file_) != 0;
    errno = 0;
    const int flushed = std::fflush(file_);
    const int err = errno;
    errno = 0;
    const int closed = std::fclose(file_);
    const int close_err = errno;
    file_ = nullptr;
    if (stream_failed || flushed != 0 || closed != 0) {
        ::unlink(temp_.c_str());
        const int why = flushed != 0 ? err : closed != 0 ? close_err : 0;
        // A failure inside an earlier write leaves only the stream's flag, not its reason.
        return why != 0 ? io_error(path_, "write error", why) : Error{ErrorCode::io, path_ + ": write error"};
    }
    return replace_with(temp_, path_);
}

Result<void> write_file_atomically(const std::string& path, std::string_view contents) {
    auto file = AtomicFile::open(path);
    if (!file) return file.error();
    if (std::fwrite(contents.data(), 1, contents.size(), file->get()) != contents.size()) {
        return io_error(path, "write error", errno);  // the AtomicFile removes its temporary file
    }
    return file->commit();
}

}  // namespace tide::cli
