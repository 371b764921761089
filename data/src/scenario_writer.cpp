// Streaming CSV (and truth JSON) output of generated data; see scenario_writer.hpp.
#include "robustfit/data/scenario_writer.hpp"

#include <algorithm>
#include <charconv>
#include <memory>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace robustfit::data {
namespace {

// A write buffer over a FILE*: whole rows are formatted into memory and written in large blocks.
class BlockWriter {
 public:
  explicit BlockWriter(std::FILE* file) : file_(file), buffer_(kBlock + kSlack) {}
  ~BlockWriter() = default;

  // Room for `bytes` more characters.
  char* reserve(std::size_t bytes) {
    if (used_ + bytes > buffer_.size()) {
      flush();
      if (bytes > buffer_.size()) buffer_.resize(bytes);
    }
    return buffer_.data() + used_;
  }
  void commit(char* end) { used_ = static_cast<std::size_t>(end - buffer_.data()); }
  void append(std::string_view text) { commit(std::copy(text.begin(), text.end(), reserve(text.size()))); }
  void row_done() {
    if (used_ >= kBlock) flush();
  }
  void flush() {
    if (used_ == 0) return;
    if (std::fwrite(buffer_.data(), 1, used_, file_) != used_) throw std::runtime_error("write failed");
    written_ += used_;
    used_ = 0;
  }
  void finish() {
    flush();
    if (std::fflush(file_) != 0 || std::ferror(file_)) throw std::runtime_error("write failed");
  }
  std::uint64_t written() const { return written_ + used_; }

 private:
  static constexpr std::size_t kBlock = std::size_t{1} << 20;
  static constexpr std::size_t kSlack = std::size_t{1} << 16;
  std::FILE* file_;
  std::vector<char> buffer_;
  std::size_t used_ = 0;
  std::uint64_t written_ = 0;
};

constexpr std::size_t kNumberBytes = 32;

char* format_unsigned(char* out, std::uint64_t value) {
  return std::to_chars(out, out + kNumberBytes, value).ptr;
}

std::string number_text(double value) {
  char buffer[kNumberBytes];
  return std::string(buffer, format_number(buffer, value));
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Everything of the truth file before the outlier rows.
std::string truth_prefix(const ScenarioSpec& spec, std::string_view name, const Eigen::VectorXd& beta) {
  std::string j = "{\"scenario\": " + json_string(name) + ", \"n\": " + std::to_string(spec.n) +
                  ", \"p\": " + std::to_string(spec.q) + ", \"contamination\": " + number_text(spec.epsilon) +
                  ", \"seed\": " + std::to_string(spec.seed) + ", \"coefficients\": {\"(Intercept)\": " +
                  number_text(beta(0));
  for (Eigen::Index j_ = 1; j_ < beta.size(); ++j_)
    j.append(", \"x").append(std::to_string(j_)).append("\": ").append(number_text(beta(j_)));
  j += "}, \"parameters\": {\"sigma\": " + number_text(spec.sigma);
  const auto add = [&j](const char* key, double value) { j += std::string(", \"") + key + "\": " + number_text(value); };
  switch (spec.contamination) {
    case Contamination::vertical:
      add("shift_min", spec.shift_min);
      add("shift_max", spec.shift_max);
      break;
    case Contamination::mixed:
      add("shift_min", spec.shift_min);
      add("shift_max", spec.shift_max);
      [[fallthrough]];
    case Contamination::bad_leverage:
      add("leverage_x", spec.leverage_x);
      add("leverage_spread", spec.leverage_spread);
      add("leverage_offset", spec.leverage_offset);
      add("leverage_y_spread", spec.leverage_y_spread);
      break;
    case Contamination::good_leverage:
      add("good_leverage_min", spec.good_leverage_min);
      add("good_leverage_max", spec.good_leverage_max);
      break;
    case Contamination::heavy_tails:
      j += spec.t_df == 0.0 ? ", \"errors\": \"cauchy\"" : ", \"errors\": \"t\", \"df\": " + number_text(spec.t_df);
      break;
    case Contamination::none:
      break;
  }
  return j + "}, \"outliers\": [";
}

}  // namespace

char* format_number(char* out, double value) {
  if (std::isnan(value)) return std::copy_n("NaN", 3, out);
  if (std::isinf(value)) return value > 0 ? std::copy_n("Inf", 3, out) : std::copy_n("-Inf", 4, out);
  return std::to_chars(out, out + kNumberBytes, value).ptr;
}

WriteStats write_scenario_csv(const ScenarioSpec& spec, std::string_view scenario_name, std::FILE* csv,
                              std::FILE* truth) {
  ScenarioStream stream(spec);
  BlockWriter out(csv);
  std::string header;
  for (std::size_t j = 1; j <= spec.q; ++j) header.append("x").append(std::to_string(j)).append(",");
  out.append(header + "y\n");

  std::unique_ptr<BlockWriter> truth_out;
  if (truth != nullptr) {
    truth_out = std::make_unique<BlockWriter>(truth);
    truth_out->append(truth_prefix(spec, scenario_name, stream.beta()));
  }

  // Rows are drawn in blocks (the streams are sequential) and formatted by several threads,
  // each into its own text; the texts are written in order, so the bytes do not depend on the
  // thread count. Formatting is most of the work.
  const std::size_t width = spec.q + 1;
  const std::size_t block_rows = std::max<std::size_t>(1, (std::size_t{1} << 18) / width);
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  std::vector<double> block(block_rows * width);
  std::vector<std::string> texts(threads);
  WriteStats stats;
  for (std::size_t first = 0; first < spec.n; first += block_rows) {
    const std::size_t rows = std::min(block_rows, spec.n - first);
    for (std::size_t r = 0; r < rows; ++r) {
      double* row = block.data() + r * width;
      bool outlier = false;
      row[spec.q] = stream.next(row, outlier);
      if (!outlier) continue;
      if (truth_out) {
        char* t = truth_out->reserve(kNumberBytes + 2);
        if (stats.outliers > 0) {
          *t++ = ',';
          *t++ = ' ';
        }
        truth_out->commit(format_unsigned(t, first + r + 1));
        truth_out->row_done();
      }
      ++stats.outliers;
    }
    const std::size_t parts = std::min(threads, (rows + 1023) / 1024);
    const auto format_part = [&](std::size_t part) {
      const std::size_t begin = rows * part / parts, end = rows * (part + 1) / parts;
      std::string& text = texts[part];
      text.resize((end - begin) * width * (kNumberBytes + 1));
      char* p = text.data();
      for (std::size_t r = begin; r < end; ++r) {
        const double* row = block.data() + r * width;
        for (std::size_t j = 0; j < width; ++j) {
          p = format_number(p, row[j]);
          *p++ = j + 1 < width ? ',' : '\n';
        }
      }
      text.resize(static_cast<std::size_t>(p - text.data()));
    };
    std::vector<std::thread> workers;
    for (std::size_t part = 1; part < parts; ++part) workers.emplace_back(format_part, part);
    format_part(0);
    for (auto& worker : workers) worker.join();
    for (std::size_t part = 0; part < parts; ++part) {
      out.append(texts[part]);
      out.row_done();
    }
  }
  out.finish();
  if (truth_out) {
    truth_out->append("]}\n");
    truth_out->finish();
  }
  stats.rows = spec.n;
  stats.bytes = out.written();
  return stats;
}

WriteStats write_distribution_csv(Distribution distribution, std::size_t n, std::uint64_t seed,
                                  std::size_t distinct, std::string_view column, std::FILE* csv) {
  BlockWriter out(csv);
  out.append(std::string(column) + "\n");
  for_each_distribution_chunk(distribution, n, seed, distinct, [&out](std::span<const double> chunk) {
    for (const double value : chunk) {
      char* p = format_number(out.reserve(kNumberBytes + 1), value);
      *p++ = '\n';
      out.commit(p);
      out.row_done();
    }
  });
  out.finish();
  WriteStats stats;
  stats.rows = n;
  stats.bytes = out.written();
  return stats;
}

}  // namespace robustfit::data
