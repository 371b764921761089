#include "file_text.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

#include "robustfit/data/csv.hpp"

namespace robustfit::data::csv_detail {
namespace {

DataError failure(const char* what, const std::filesystem::path& path, int error) {
  return DataError(std::string(what) + " '" + path.string() +
                   "': " + std::generic_category().message(error));
}

}  // namespace

FileText::FileText(const std::filesystem::path& path, bool read_ahead) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw failure("cannot open", path, EISDIR);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw failure("cannot open", path, errno != 0 ? errno : ENOENT);
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
    const auto size = static_cast<std::size_t>(info.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      if (read_ahead) ::madvise(map, size, MADV_WILLNEED);  // the chunks are read in parallel
      mapped_ = static_cast<const char*>(map);
      size_ = size;
      ::close(fd);
      return;
    }
  }
  char buffer[1 << 16];
  for (;;) {
    const ssize_t count = ::read(fd, buffer, sizeof buffer);
    if (count == 0) break;
    if (count < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      throw failure("cannot read", path, error);
    }
    read_.append(buffer, static_cast<std::size_t>(count));
  }
  ::close(fd);
}

FileText::~FileText() {
  if (mapped_ != nullptr) ::munmap(const_cast<char*>(mapped_), size_);
}

}  // namespace robustfit::data::csv_detail
