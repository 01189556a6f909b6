// nonzero's CPU kernel, a header of its own beside kernels/cpu/indexing/common.h (Note [A header per op]).
#pragma once

#include "kernels/cpu/indexing/common.h"

namespace yaten::native::cpu {

// its coordinates at its offset (the counts' prefix sum), starting from its first element's coordinates. One serial
// pass appending to a vector took 1.5x torch's time at one thread (2.9x at two). The writing pass has no branch per
// element: every element's coordinates are written and the position advances only past a nonzero's, so random masks
// cost no mispredictions (with a branch, a mask of half True elements took 8.4x NumPy's time). The writes go to a
// buffer of one block first: the slot after a chunk's last nonzero is the next chunk's, written by another thread.
// A chunk of a tensor of 3 or more dims with under 1 in 16 nonzero keeps the branch, which is then predicted and
// writes less (1.24x -> 0.82x torch at 1 in 20 over 64 x 128 x 128; with one or two coordinates to write, writing
// them all stayed faster: 0.65 ms branch-free, 1.04 ms with the branch, 1M elements at 1 in 20).
template <typename scalar_t>
Tensor nonzero_kernel(const Tensor& self) {
  Tensor src = self.is_contiguous() ? self : yaten::_to_copy(self, std::nullopt, std::nullopt);
  const scalar_t* data = src.data<scalar_t>();
  const int64_t n = src.numel(), dims = src.dim();
  const auto nonzero = [data](int64_t i) {
    return static_cast<opmath_t<scalar_t>>(data[i]) != opmath_t<scalar_t>(0);
  };
  if (dims == 0) return yaten::empty({n == 1 && nonzero(0) ? 1 : 0, 0}, ScalarType::Long, self.device());
  constexpr int64_t kChunk = 1 << 16;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<int64_t> counts(size_t(chunks) + 1, 0);
  yaten::detail::ScopedGilRelease release_gil(n >= yaten::detail::kGilReleaseElements);
  parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      int64_t count = 0;
      for (int64_t i = c * kChunk, end = std::min(n, i + kChunk); i < end; ++i) count += nonzero(i) ? 1 : 0;
      counts[size_t(c) + 1] = count;
    }
  });
  for (int64_t c = 0; c < chunks; ++c) counts[size_t(c) + 1] += counts[size_t(c)];
  Tensor out = yaten::empty({counts[size_t(chunks)], dims}, ScalarType::Long, self.device());
  int64_t* found = out.data<int64_t>();
  const std::vector<int64_t>& sizes = src.sizes();
  constexpr int64_t kBlock = 512;
  parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
    std::vector<int64_t> coord(static_cast<size_t>(dims), 0), storage(size_t(kBlock * dims));
    int64_t* const buffer = storage.data();
    for (int64_t c = b; c < e; ++c) {
      int64_t at = counts[size_t(c)] * dims;
      const int64_t first = c * kChunk, end = std::min(n, first + kChunk);
      const bool sparse = dims > 2 && (counts[size_t(c) + 1] - counts[size_t(c)]) * 16 < end - first;
      for (int64_t d = dims - 1, rest = first; d >= 0; --d) {  // the chunk's first element's coordinates
        coord[size_t(d)] = rest % sizes[size_t(d)];
        rest /= sizes[size_t(d)];
      }
      // a row (the last dim) at a time: its leading coordinates are fixed, the last one is the position in it
      const int64_t last = sizes[size_t(dims - 1)];
      for (int64_t i = first; i < end;) {
        const int64_t stop = std::min(end, i + (last - coord[size_t(dims - 1)]));
        for (int64_t j = coord[size_t(dims - 1)]; i < stop;) {
          const int64_t block_end = std::min(stop, i + kBlock);
          int64_t k = 0;
          if (sparse) {  // few nonzeros: the branch is nearly always predicted, and writes only what is found
            for (; i < block_end; ++i, ++j) {
              if (!nonzero(i)) continue;
              for (int64_t d = 0; d + 1 < dims; ++d) found[at + d] = coord[size_t(d)];
              found[at + dims - 1] = j;
              at += dims;
            }
            continue;
          }
          if (dims == 1) {
            for (; i < block_end; ++i, ++j) {
              buffer[k] = j;
              k += nonzero(i);
            }
          } else if (dims == 2) {
            const int64_t row = coord[0];
            for (; i < block_end; ++i, ++j) {
              buffer[k] = row;
              buffer[k + 1] = j;
              k += 2 * int64_t(nonzero(i));
            }
          } else {
            for (; i < block_end; ++i, ++j) {
              for (int64_t d = 0; d + 1 < dims; ++d) buffer[k + d] = coord[size_t(d)];
              buffer[k + dims - 1] = j;
              k += dims * int64_t(nonzero(i));
            }
          }
          std::memcpy(found + at, buffer, size_t(k) * sizeof(int64_t));
          at += k;
        }
        coord[size_t(dims - 1)] = 0;  // the next row (or the chunk's end, where coord is not used again)
        for (int64_t d = dims - 2; d >= 0; --d) {
          if (++coord[size_t(d)] < sizes[size_t(d)]) break;
          coord[size_t(d)] = 0;
        }
      }
    }
  });
  return out;
}

}  // namespace yaten::native::cpu
