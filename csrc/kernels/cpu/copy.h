// The CPU copy kernel: any layout to any layout, converting dtypes. The wrapper switches over the destination's
// dtype; this kernel switches over the source's, so every pair of dtypes is one small loop.
#pragma once

#include <algorithm>

#include <cstring>

#include "core/convert.h"
#include "core/copy_bytes.h"
#include "core/dtype_switch.h"
#include "core/parallel.h"
#include "iter/tensor_iterator.h"
#include "iter/vec.h"
#include "kernels/copy_support.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/_to_copy.h"

namespace yaten::native::cpu {


// Whether t is the transpose (in its last two dims) of a contiguous tensor: A.mT, and what linalg's kernels copy into
// LAPACK's column-major layout.
inline bool transposed_contiguous(const Tensor& t) {
  const int64_t d = t.dim(), rows = t.sizes()[d - 2], cols = t.sizes()[d - 1];
  if (rows < 2 || cols < 2) return false;
  int64_t expected = 1;
  const int64_t order[2] = {d - 2, d - 1};
  for (int64_t k : order) {
    if (t.strides()[k] != expected) return false;
    expected *= t.sizes()[k];
  }
  for (int64_t k = d - 3; k >= 0; --k) {
    if (t.sizes()[k] != 1 && t.strides()[k] != expected) return false;
    expected *= t.sizes()[k];
  }
  return true;
}
// A transposed contiguous src into the contiguous self: each matrix by 32 x 32 tiles of register transposes
// (detail::transpose_tile), the tiles of all matrices shared among the threads.
inline void copy_transposed(const Tensor& self, const Tensor& src) {
  constexpr int64_t kTile = 32;
  const int64_t d = self.dim(), rows = self.sizes()[d - 2], cols = self.sizes()[d - 1];
  const int64_t itemsize = element_size(self.dtype()), matrices = self.numel() / (rows * cols);
  const int64_t row_tiles = (rows + kTile - 1) / kTile, col_tiles = (cols + kTile - 1) / kTile;
  const int64_t per_matrix = row_tiles * col_tiles;
  const char* in = static_cast<const char*>(src.data_ptr());
  char* out = static_cast<char*>(self.data_ptr());
  // Rows a multiple of 1 KiB apart (512 float64) put the loads and the stores of a tile in the same cache sets, and
  // the stores then wait on the loads (512 x 512: 0.24 ms, where 500 x 500 and 520 x 520 take 0.07): such tiles go
  // through a buffer on the stack (0.11 ms), the others straight into self.
  const bool aliasing = (rows * itemsize) % 1024 == 0 || (cols * itemsize) % 1024 == 0;
  parallel_for(matrices * per_matrix, std::max<int64_t>(1, 16384 / (kTile * kTile)), [&](int64_t begin, int64_t end) {
    alignas(64) char buffer[kTile * kTile * 16];
    for (int64_t t = begin; t < end; ++t) {
      const int64_t m = t / per_matrix, r0 = (t % per_matrix) / col_tiles * kTile, c0 = t % col_tiles * kTile;
      const int64_t tile_rows = std::min(kTile, rows - r0), tile_cols = std::min(kTile, cols - c0);
      // src's matrix m holds self's (r, c) at c * rows + r: its rows are self's columns
      const char* block = in + (m * rows * cols + c0 * rows + r0) * itemsize;
      char* target = out + (m * rows * cols + r0 * cols + c0) * itemsize;
      if (!aliasing) {
        yaten::detail::transpose_tile(block, rows * itemsize, tile_cols, tile_rows, itemsize, target, cols);
        continue;
      }
      yaten::detail::transpose_tile(block, rows * itemsize, tile_cols, tile_rows, itemsize, buffer, tile_cols);
      for (int64_t r = 0; r < tile_rows; ++r) {
        std::memcpy(target + r * cols * itemsize, buffer + r * tile_cols * itemsize, size_t(tile_cols * itemsize));
      }
    }
  });
}

template <typename scalar_t>
Tensor copy_kernel(const Tensor& self, const Tensor& src, bool /*non_blocking: a CPU copy always ends first*/) {
  const char* op = "copy_";
  YATEN_CHECK(self.device().is_cpu() && src.device().is_cpu(), RuntimeError, op,
              ": the CPU kernel copies between CPU tensors, got ", self.device().str(), " <- ", src.device().str());
  if (self.is_same(src)) return self;
  if (self.numel() == 0) {  // nothing to write, but src must still broadcast to self's shape, as in torch
    YATEN_CHECK(broadcast_shapes("copy_", self.sizes(), src.sizes()) == self.sizes(), RuntimeError,
                "copy_: src of shape ", sizes_text(src.sizes()), " cannot be broadcast to self's shape ",
                sizes_text(self.sizes()));
    return self;
  }
  check_no_partial_overlap(op, self, src);
  warn_if_discarding_imaginary(self, src);
  if (src.dtype() == self.dtype() && src.sizes() == self.sizes() && src.is_contiguous() && self.is_contiguous()) {
    // in pieces of kParallelCopyBytes over the threads: one thread does not reach the memory's bandwidth (clone of
    // 4 MB took 0.089 ms at 1 and 2 threads, torch's 0.049 at 2)
    char* to = static_cast<char*>(self.data_ptr());
    const char* from = static_cast<const char*>(src.data_ptr());
    parallel_for(self.numel() * element_size(self.dtype()), kParallelCopyBytes, [&](int64_t begin, int64_t end) {
      yaten::detail::copy_bytes(to + begin, from + begin, static_cast<size_t>(end - begin));
    });
    return self;
  }
  if (src.dtype() == self.dtype() && src.sizes() == self.sizes() && self.is_contiguous() && self.dim() >= 2 &&
      transposed_contiguous(src)) {
    copy_transposed(self, src);
    return self;
  }
  // The iterator broadcasts src to self's shape and keeps both dtypes: converting is this kernel's job. It is built
  // once, outside the switch over src's dtype, so that the fifteen cases differ only in their loop.
  TensorIteratorConfig config;
  config.op_name = op;
  config.output = self;
  config.output_is_input = true;
  config.inputs = {src};
  config.keep_dtypes = true;
  const TensorIterator iter(std::move(config));
  visit_any_dtype(op, src.dtype(), [&](auto src_tag) {
    using src_t = decltype(src_tag);
    iter.for_each_row([](char** data, const int64_t* strides, int64_t n) {
      // float to float16 or bfloat16 and back: contiguous rows a vector at a time (Note [16-bit rows as float lanes])
      constexpr bool k16 = std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>;
      constexpr bool k16src = std::is_same_v<src_t, Half> || std::is_same_v<src_t, BFloat16>;
      if constexpr ((k16 && std::is_same_v<src_t, float>) || (k16src && std::is_same_v<scalar_t, float>)) {
        if (strides[0] == sizeof(scalar_t) && strides[1] == sizeof(src_t)) {
          constexpr int64_t kLanes = vec::kWideLanes;
          scalar_t* out = reinterpret_cast<scalar_t*>(data[0]);
          const src_t* in = reinterpret_cast<const src_t*>(data[1]);
          int64_t i = 0;
          for (; i + kLanes <= n; i += kLanes) {
            if constexpr (k16) {
              vec::store16(out + i, vec::load<vec::wfloat>(in + i));
            } else {
              vec::store(out + i, vec::load16<vec::wfloat>(in + i));
            }
          }
          for (; i < n; ++i) out[i] = convert<scalar_t>(in[i]);
          return;
        }
      }
      if (strides[0] == sizeof(scalar_t) && strides[1] == 0) {
        // a broadcast source (x[:, :1].expand(n, m).contiguous()): each row is a fill (element by element through
        // the strided loop, it took 5.4x torch's time)
        scalar_t* out = reinterpret_cast<scalar_t*>(data[0]);
        std::fill(out, out + n, convert<scalar_t>(*reinterpret_cast<const src_t*>(data[1])));
        return;
      }
      if (strides[0] == sizeof(scalar_t) && strides[1] == sizeof(src_t)) {
        // contiguous rows: typed pointers, so the compiler vectorizes the conversion (x.double() of 1M float32 took
        // 1.9x torch's time through the strided loop below)
        scalar_t* out = reinterpret_cast<scalar_t*>(data[0]);
        const src_t* in = reinterpret_cast<const src_t*>(data[1]);
        for (int64_t i = 0; i < n; ++i) out[i] = convert<scalar_t>(in[i]);
        return;
      }
      with_tile_length(n, [&](auto len) {
        char* out = data[0];
        const char* in = data[1];
        for (int64_t i = 0; i < len; ++i) {
          *reinterpret_cast<scalar_t*>(out + i * strides[0]) =
              convert<scalar_t>(*reinterpret_cast<const src_t*>(in + i * strides[1]));
        }
      });
    });
  });
  return self;
}

}  // namespace yaten::native::cpu
