#pragma once
// Bookkeeping of the bracketing selections (Floyd–Rivest, bracket), for host and device: plain
// C++ with no CUDA header, so that the CPU tests replay it against std::nth_element
// (tests/selection/bracket_bookkeeping_test.cpp). The bracket's ends from a sorted sample, the
// pass's counts, where rank k lies after the pass, and the radix digits of key - key(lo) that
// bracket selection finishes with.
#include <cmath>
#include <cstddef>
#include <limits>

#include "host_device.hpp"

namespace robustfit::selection::cuda::detail::bracketing {

// The bracket [lo, hi] and what the streaming pass counted against it. Two kinds of pass:
//  - open (closed == 0): counts < lo, == lo, == hi, inside (lo, hi) and NaN; keeps (lo, hi).
//    Taken where lo or hi repeats in the sample: heavy ties end on lo or hi, uncopied.
//  - closed (closed != 0): counts < lo only; keeps [lo, hi] and NaNs (counted as they are
//    kept), so inside counts every kept value and equal_lo = equal_hi = 0. Fewer
//    instructions a value (the open pass is bound by them, not by the memory).
// locate_rank reads both alike.
template <class T>
struct BracketState {
  T lo, hi;
  unsigned long long below, equal_lo, equal_hi, inside, nans;
  unsigned long long cursor;  // write position in the buffer (may pass its capacity)
  unsigned closed;
};

// The bracket's ends as positions in a sorted sample of `sample_size` values: rank k's sample
// position, widened by `sigmas` binomial standard deviations (+1) on each side. Positions off
// the sample (lo_rank < 0, hi_rank >= sample_size) stand for -inf / +inf.
struct SampleWindow {
  long long lo_rank, hi_rank;
};

ROBUSTFIT_HOST_DEVICE inline SampleWindow sample_window(std::size_t k, std::size_t n, long long sample_size,
                                                      float sigmas) {
  const double p = (static_cast<double>(k) + 0.5) / static_cast<double>(n);
  const double centre = p * static_cast<double>(sample_size) - 0.5;
  const double spread = sigmas * std::sqrt(static_cast<double>(sample_size) * p * (1 - p)) + 1;
  return {static_cast<long long>(std::floor(centre - spread)), static_cast<long long>(std::ceil(centre + spread))};
}

// Whether the bracket's end at sample position `rank` of a sorted sample of `size` values
// (`at(i)` the i-th, -inf / +inf off the ends as sample_window has it) may be a heavily tied
// value: it repeats in the sample, or, off the sample, the sample's extreme is that infinity.
// Then the closed pass, which keeps the end's ties, could overflow its buffer: the open pass
// counts them instead.
template <class T, class At>
ROBUSTFIT_HOST_DEVICE bool bracket_end_tied(At at, long long size, long long rank) {
  if (rank < 0) return at(0) == -std::numeric_limits<T>::infinity();
  if (rank >= size) return at(size - 1) == std::numeric_limits<T>::infinity();
  const T value = at(rank);
  return (rank > 0 && at(rank - 1) == value) || (rank + 1 < size && at(rank + 1) == value);
}
// The pass for the window's bracket: closed unless either end may be tied.
template <class T, class At>
ROBUSTFIT_HOST_DEVICE bool closed_pass_for(At at, long long size, SampleWindow window) {
  return !bracket_end_tied<T>(at, size, window.lo_rank) && !bracket_end_tied<T>(at, size, window.hi_rank);
}

// The bracket a sorted sample of `size` values (`at(i)` the i-th) gives rank k of n: lo and hi
// (-inf / +inf off the sample's ends), the kind of pass, and every count zero.
template <class T, class At>
ROBUSTFIT_HOST_DEVICE BracketState<T> bracket_from_sample(At at, long long size, std::size_t k, std::size_t n,
                                                         float sigmas) {
  const SampleWindow window = sample_window(k, n, size, sigmas);
  BracketState<T> s{};
  s.lo = window.lo_rank < 0 ? -std::numeric_limits<T>::infinity() : at(window.lo_rank);
  s.hi = window.hi_rank >= size ? std::numeric_limits<T>::infinity() : at(window.hi_rank);
  s.closed = closed_pass_for<T>(at, size, window);
  return s;
}

// The same bracket from the two sample values a selection found instead of a sort: the
// window's ends clamped to the sample (`clamped_rank`), the values there and how many sample
// values equal each. Off the sample an end is -inf / +inf, tied when the sample's extreme is that
// infinity (the value at the clamped rank is that extreme); on it, tied when its value repeats.
ROBUSTFIT_HOST_DEVICE inline long long clamped_rank(long long rank, long long size) {
  return rank < 0 ? 0 : rank >= size ? size - 1 : rank;
}

template <class T>
ROBUSTFIT_HOST_DEVICE BracketState<T> bracket_from_ends(SampleWindow window, long long size, T lo_value,
                                                       unsigned lo_repeats, T hi_value, unsigned hi_repeats) {
  constexpr T inf = std::numeric_limits<T>::infinity();
  BracketState<T> s{};
  s.lo = window.lo_rank < 0 ? -inf : lo_value;
  s.hi = window.hi_rank >= size ? inf : hi_value;
  const bool lo_tied = window.lo_rank < 0 ? lo_value == -inf : lo_repeats > 1;
  const bool hi_tied = window.hi_rank >= size ? hi_value == inf : hi_repeats > 1;
  s.closed = !lo_tied && !hi_tied;
  return s;
}

// Where rank k lies after the pass: on lo or hi (ties), inside (at `rank` of the buffer, which
// holds `cursor` values, the inside ones and padding hi), or nowhere known (a miss: rank k
// outside [lo, hi], or a buffer overflow). NaN is the caller's check (state.nans).
enum class Place { lo, inside, hi, miss };
struct Location {
  Place place;
  unsigned long long rank;  // inside: the rank within the buffer
};

template <class T>
ROBUSTFIT_HOST_DEVICE Location locate_rank(const BracketState<T>& s, std::size_t k, std::size_t capacity) {
  const unsigned long long equal_hi = s.lo == s.hi ? 0 : s.equal_hi;  // the pass counted lo's ties twice
  if (k < s.below) return {Place::miss, 0};
  unsigned long long rank = k - s.below;
  if (rank < s.equal_lo) return {Place::lo, 0};
  rank -= s.equal_lo;
  if (rank < s.inside) return {s.cursor <= capacity ? Place::inside : Place::miss, rank};
  rank -= s.inside;
  if (rank < equal_hi) return {Place::hi, 0};
  return {Place::miss, 0};
}

// The finish of bracket selection: radix select over key - key(lo) of the buffer, kDigitBits
// at a time from the top of the span's bit width. A digit covers the `remaining` low bits'
// top kDigitBits (fewer for the last); keys match while their bits above `remaining` equal the
// prefix found so far.
constexpr int kDigitBits = 11;
constexpr int kDigitBins = 1 << kDigitBits;

template <class Key>
ROBUSTFIT_HOST_DEVICE Key shift_right(Key key, int bits) {
  return bits >= static_cast<int>(sizeof(Key) * 8) ? Key(0) : Key(key >> bits);
}

// Bits needed for values 0 .. span.
template <class Key>
ROBUSTFIT_HOST_DEVICE int bit_width(Key span) {
  int bits = 0;
  while (bits < static_cast<int>(sizeof(Key) * 8) && (span >> bits) != 0) ++bits;
  return bits;
}

// The shift of the first finishing digit over keys key - base that span `span`: the top
// kDigitBits of its bit width (at least 1 bit; radix_select_in_range's first pass).
template <class Key>
ROBUSTFIT_HOST_DEVICE int first_digit_shift(Key span) {
  const int bits = bit_width(span) > 1 ? bit_width(span) : 1;
  return bits > kDigitBits ? bits - kDigitBits : 0;
}

struct Digit {
  int shift, width;  // the digit is (key >> shift) & (2^width - 1); shift is the next `remaining`
};

ROBUSTFIT_HOST_DEVICE inline Digit next_digit(int remaining) {
  const int shift = remaining > kDigitBits ? remaining - kDigitBits : 0;
  return {shift, remaining - shift};
}

// The digit's bin of `key` (key - base), or -1 when it does not share the prefix.
template <class Key>
ROBUSTFIT_HOST_DEVICE int digit_bin(Key key, Key prefix, int remaining, Digit digit) {
  if (shift_right(key, remaining) != prefix) return -1;
  return static_cast<int>((key >> digit.shift) & Key(kDigitBins - 1));
}

// Launches that cover every span of a key_bits-bit key (3 for float, 6 for double).
constexpr int digit_launches(int key_bits) { return (key_bits + kDigitBits - 1) / kDigitBits; }

}  // namespace robustfit::selection::cuda::detail::bracketing
