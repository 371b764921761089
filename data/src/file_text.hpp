#pragma once
// Private: the bytes of a file, mapped into memory when it is a regular file (no copy, and the
// pages are shared with the page cache), read into a string otherwise (a pipe).
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace robustfit::data::csv_detail {

class FileText {
 public:
  // Throws DataError "cannot open '<path>': <reason>" or "cannot read '<path>': <reason>".
  // read_ahead: ask the kernel to read the whole file ahead (all of it is about to be parsed);
  // a reader of one part of the file leaves it off.
  explicit FileText(const std::filesystem::path& path, bool read_ahead = true);
  ~FileText();
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;

  std::string_view text() const { return mapped_ != nullptr ? std::string_view(mapped_, size_) : read_; }

 private:
  const char* mapped_ = nullptr;
  std::size_t size_ = 0;
  std::string read_;
};

}  // namespace robustfit::data::csv_detail
