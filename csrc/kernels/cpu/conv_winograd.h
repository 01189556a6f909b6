// convolution's forward on the CPU for 3x3 kernels at stride 1 by Winograd's minimal filtering F(2x2, 3x3)
// (Note [Winograd's F(2x2, 3x3)]); included by kernels/cpu/conv.h, which decides when it runs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/parallel.h"
#include "core/storage.h"
#include "kernels/conv_math.h"

namespace yaten::native::cpu::conv_detail {

// Note [Winograd's F(2x2, 3x3)]: a 3x3 convolution at stride 1 computes each 2x2 block of an output plane from the
// 4x4 block of the padded image under it. Winograd's minimal filtering (Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2015) writes that as Y = A^T [(G g G^T) . (B^T d B)] A: the 3x3 kernel g and the
// 4x4 block d each go to a 4x4 transform, the transforms multiply element by element, and A^T (.) A folds the product
// back to 2x2. Summed over input channels, the element-by-element products become sixteen matrix products, one per
// element e of the 4x4 transform: M_e (Cout x tiles) = U_e (Cout x Cin) @ V_e (Cin x tiles). That is 16 Cin Cout
// multiplies per 2x2 outputs where the direct form takes 36: 2.25 times fewer, in the same BLAS products (the
// transforms are additions, and halvings in G). Only sums change order, with transforms whose entries are 0, +-1 and
// +-1/2, so the rounding stays close to the direct form's (measured beside torch's float64 result in
// tests/test_conv.py). 4 x 64 channels of 64 x 64 to 64, 3x3, padding 1, one thread of a Zen 2 core: shifted products
// (Note [Convolution on the CPU], OpenBLAS's sgemm at 80 GFLOP/s) took 1.15x the time of torch's oneDNN, this
// 0.66-0.73x; 8 x 64 of 56 x 56 1.16x -> 0.66-0.73x, 4 x 128 of 28 x 28 1.15x -> 0.72-0.74x (kernels/cpu/conv.h's
// takes_winograd has more, and says where it runs).
//
// A unit of work is an image (and group), or several small ones (kWinogradTiles). Its tile rows, image after image,
// go through in blocks, each block: the input transform of
// every channel into V (16 x Cin x block), the sixteen products into M, and the output transform of M into the
// output planes (the last tile row and column keep only the outputs inside the plane when its size is odd). The
// float32 transforms run eight tiles to a vector: a block row's columns 2t + j are the even and odd floats of two
// loads, and the outputs' two columns interleave back on the way out. Planes of fewer than 16 tiles stay with the
// shifted form, and a few small deep images take the ops' form (kernels/cpu/conv.h's takes_winograd and
// takes_columns).
// V and M of a block together: 4 MiB. Time over torch's at one thread, blocks of 0.5, 1, 2, 4 and 8 MiB: 8 x 256
// channels of 14 x 14 1.34x, 1.01x, 0.87x, 0.87x, 0.88x; 8 x 128 of 28 x 28 0.85x, 0.74x, 0.72x, 0.67x, 0.68x; 4 x 64
// of 64 x 64 0.70x, 0.67x, 0.66x, 0.67x, 0.72x. A larger block makes each product wider (OpenBLAS's sgemm slows below
// a few hundred columns), and V and M stay within a shared L3.
constexpr int64_t kWinogradBlockBytes = int64_t(4) << 20;
// Small planes go several images to a unit of work, their tiles side by side in one product: each unit's sixteen
// products read the transformed kernel U once (16 MiB at 512 x 512 channels, beyond a shared L3) and are wider. 8
// images of 7 x 7, time over torch's, an image a unit -> 256 tiles a unit: 512 channels 1.47x -> 0.96x, 256 1.04x ->
// 0.92x, 128 1.18x -> 0.96x; 8 x 256 of 14 x 14 0.74x -> 0.72x.
constexpr int64_t kWinogradTiles = 256;

// U_e for each group: (groups, 16, Cout/G, Cin/G), from weight (Cout, Cin/G, 3, 3), into `u`. G = [1 0 0; 1/2 1/2
// 1/2; 1/2 -1/2 1/2; 0 0 1]. An output channel's sixteen rows are made in `rows` and copied out one at a time: written
// in place, element by element, the sixteen streams lay Cout Cin floats apart, a power of two that put them in one
// set of the L1 cache (one image, 512 channels of 14 x 14: 26.1 ms -> 14.3 ms, 2.01x -> 1.10x torch's time). The
// output channels are shared out over the threads: at 512 x 512 channels U is 16 MiB, the whole of the work for a
// few small images.
template <typename scalar_t>
void winograd_kernel_transform(const scalar_t* w, int64_t groups, int64_t cout_g, int64_t cin_g, scalar_t* u) {
  const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(cin_g, 1));  // output channels a chunk
  parallel_for(groups * cout_g, grain, [&](int64_t begin, int64_t end) {
    std::vector<scalar_t> rows(static_cast<size_t>(16 * cin_g));
    for (int64_t go = begin; go < end; ++go) {
      const int64_t group = go / cout_g, o = go % cout_g;
      for (int64_t c = 0; c < cin_g; ++c) {
        const scalar_t* k = w + ((group * cout_g + o) * cin_g + c) * 9;
        scalar_t gk[4][3];  // G g
        for (int j = 0; j < 3; ++j) {
          gk[0][j] = k[j];
          gk[1][j] = (k[j] + k[3 + j] + k[6 + j]) * scalar_t(0.5);
          gk[2][j] = (k[j] - k[3 + j] + k[6 + j]) * scalar_t(0.5);
          gk[3][j] = k[6 + j];
        }
        for (int i = 0; i < 4; ++i) {  // (G g) G^T
          rows[size_t((i * 4 + 0) * cin_g + c)] = gk[i][0];
          rows[size_t((i * 4 + 1) * cin_g + c)] = (gk[i][0] + gk[i][1] + gk[i][2]) * scalar_t(0.5);
          rows[size_t((i * 4 + 2) * cin_g + c)] = (gk[i][0] - gk[i][1] + gk[i][2]) * scalar_t(0.5);
          rows[size_t((i * 4 + 3) * cin_g + c)] = gk[i][2];
        }
      }
      for (int e = 0; e < 16; ++e) {
        std::copy(rows.begin() + e * cin_g, rows.begin() + (e + 1) * cin_g,
                  u + ((group * 16 + e) * cout_g + o) * cin_g);
      }
    }
  });
}

// One tile row of one channel: V_e[t] = (B^T d B)[e] for the 4x4 block d of tile t, B^T = [1 0 -1 0; 0 1 1 0;
// 0 -1 1 0; 0 1 0 -1]. `d0` is the first of the row's four padded image rows (`cols` apart), `out` where its V_0
// starts (V_e `stride_e` further on).
template <typename scalar_t>
void winograd_input_row_scalar(const scalar_t* d0, int64_t cols, int64_t tiles, scalar_t* out, int64_t stride_e) {
  const scalar_t *d1 = d0 + cols, *d2 = d1 + cols, *d3 = d2 + cols;
  for (int64_t tj = 0; tj < tiles; ++tj) {
    const int64_t x = 2 * tj;
    scalar_t t[4][4];  // B^T d: rows
    for (int j = 0; j < 4; ++j) {
      t[0][j] = d0[x + j] - d2[x + j];
      t[1][j] = d1[x + j] + d2[x + j];
      t[2][j] = d2[x + j] - d1[x + j];
      t[3][j] = d1[x + j] - d3[x + j];
    }
    for (int i = 0; i < 4; ++i) {  // (B^T d) B: columns
      out[(i * 4 + 0) * stride_e + tj] = t[i][0] - t[i][2];
      out[(i * 4 + 1) * stride_e + tj] = t[i][1] + t[i][2];
      out[(i * 4 + 2) * stride_e + tj] = t[i][2] - t[i][1];
      out[(i * 4 + 3) * stride_e + tj] = t[i][1] - t[i][3];
    }
  }
}

typedef float WinogradF8 __attribute__((vector_size(32)));
inline WinogradF8 winograd_load8(const float* p) {
  WinogradF8 v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}
inline void winograd_store8(float* p, WinogradF8 v) { __builtin_memcpy(p, &v, sizeof(v)); }
// The even and odd columns of the 16 from p: d[2k] and d[2k + 1] for eight tiles.
inline void winograd_columns(const float* p, WinogradF8& even, WinogradF8& odd) {
  const WinogradF8 a = winograd_load8(p), b = winograd_load8(p + 8);
  even = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
  odd = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
}
// float32 eight tiles at a time: the row's columns 2tj + j for j = 0..3 are the even and odd columns of the 16 from
// 2tj and of the 16 from 2tj + 2; the rest of the row, and other dtypes, one tile at a time.
template <typename scalar_t>
void winograd_input_row(const scalar_t* d0, int64_t cols, int64_t tw, scalar_t* out, int64_t stride_e) {
  int64_t done = 0;
  if constexpr (std::is_same_v<scalar_t, float>) {
    const float* d[4] = {d0, d0 + cols, d0 + 2 * cols, d0 + 3 * cols};
    for (; done + 8 <= tw; done += 8) {
      WinogradF8 col[4][4];  // col[row][j]: d[row][2tj + j] for the eight tiles
      for (int r = 0; r < 4; ++r) {
        winograd_columns(d[r] + 2 * done, col[r][0], col[r][1]);
        winograd_columns(d[r] + 2 * done + 2, col[r][2], col[r][3]);
      }
      WinogradF8 t[4][4];  // B^T d
      for (int j = 0; j < 4; ++j) {
        t[0][j] = col[0][j] - col[2][j];
        t[1][j] = col[1][j] + col[2][j];
        t[2][j] = col[2][j] - col[1][j];
        t[3][j] = col[1][j] - col[3][j];
      }
      for (int i = 0; i < 4; ++i) {  // (B^T d) B
        winograd_store8(out + (i * 4 + 0) * stride_e + done, t[i][0] - t[i][2]);
        winograd_store8(out + (i * 4 + 1) * stride_e + done, t[i][1] + t[i][2]);
        winograd_store8(out + (i * 4 + 2) * stride_e + done, t[i][2] - t[i][1]);
        winograd_store8(out + (i * 4 + 3) * stride_e + done, t[i][1] - t[i][3]);
      }
    }
  }
  winograd_input_row_scalar(d0 + 2 * done, cols, tw - done, out + done, stride_e);
}

// One tile row of one output plane from M (m[e * stride_e + t], `tiles` tiles), Y = A^T m A with A^T = [1 1 1 0;
// 0 1 -1 -1], into the plane's rows at y0 (`row_stride` apart): `kept_rows` of the tiles' two rows (1 for the last
// row of an odd height) and the columns below `width` (counted from y0; an odd width ends in half a tile).
template <typename scalar_t>
void winograd_output_row_scalar(const scalar_t* m, int64_t stride_e, int64_t tiles, int kept_rows, int64_t width,
                                int64_t row_stride, scalar_t* y0) {
  scalar_t* rows[2] = {y0, y0 + row_stride};
  for (int64_t tj = 0; tj < tiles; ++tj) {
    scalar_t s[2][4];  // A^T m
    for (int j = 0; j < 4; ++j) {
      const scalar_t a = m[(0 + j) * stride_e + tj], b = m[(4 + j) * stride_e + tj];
      const scalar_t c = m[(8 + j) * stride_e + tj], d = m[(12 + j) * stride_e + tj];
      s[0][j] = a + b + c;
      s[1][j] = b - c - d;
    }
    for (int i = 0; i < kept_rows; ++i) {  // (A^T m) A
      rows[i][2 * tj] = s[i][0] + s[i][1] + s[i][2];
      if (2 * tj + 1 < width) rows[i][2 * tj + 1] = s[i][1] - s[i][2] - s[i][3];
    }
  }
}
// float32 eight tiles at a time where both rows and both columns of all eight are inside the plane, the outputs
// interleaved back into the rows; the rest, and other dtypes, one tile at a time.
template <typename scalar_t>
void winograd_output_row(const scalar_t* m, int64_t stride_e, int64_t tw, int kept_rows, int64_t ow, scalar_t* y0) {
  int64_t done = 0;
  if constexpr (std::is_same_v<scalar_t, float>) {
    for (; kept_rows == 2 && done + 8 <= ow / 2; done += 8) {
      WinogradF8 s[2][4];  // A^T m
      for (int j = 0; j < 4; ++j) {
        const WinogradF8 a = winograd_load8(m + (0 + j) * stride_e + done);
        const WinogradF8 b = winograd_load8(m + (4 + j) * stride_e + done);
        const WinogradF8 c = winograd_load8(m + (8 + j) * stride_e + done);
        const WinogradF8 d = winograd_load8(m + (12 + j) * stride_e + done);
        s[0][j] = a + b + c;
        s[1][j] = b - c - d;
      }
      for (int i = 0; i < 2; ++i) {  // (A^T m) A, the two columns interleaved
        const WinogradF8 left = s[i][0] + s[i][1] + s[i][2], right = s[i][1] - s[i][2] - s[i][3];
        float* row = y0 + i * ow + 2 * done;
        winograd_store8(row, __builtin_shufflevector(left, right, 0, 8, 1, 9, 2, 10, 3, 11));
        winograd_store8(row + 8, __builtin_shufflevector(left, right, 4, 12, 5, 13, 6, 14, 7, 15));
      }
    }
  }
  winograd_output_row_scalar(m + done, stride_e, tw - done, kept_rows, ow - 2 * done, ow, y0 + 2 * done);
}

// The forward of a 2-d 3x3 convolution at stride 1 and dilation 1 (Note [Winograd's F(2x2, 3x3)]); `src` the
// contiguous input (N, Cin, H, W), `w` the contiguous weight (Cout, Cin/G, 3, 3), `dst` the output (N, Cout, OH, OW).
// Gemm is conv_detail::gemm, passed in so that this header does not need kernels/cpu/conv.h.
template <typename scalar_t, typename Gemm>
void forward_winograd(const scalar_t* src, const scalar_t* w, const conv::Geometry& g, int64_t n, int64_t groups,
                      int64_t cin_g, int64_t cout_g, scalar_t* dst, Gemm gemm) {
  const int64_t h = g.in[0], wd = g.in[1], oh = g.out[0], ow = g.out[1];
  const int64_t th = (oh + 1) / 2, tw = (ow + 1) / 2;
  // The padded plane: the image at (pad, pad), zeros around it, as many rows and columns as the tiles read.
  const int64_t rows = 2 * th + 2, cols = 2 * tw + 2, plane = rows * cols;
  // U from the CPU allocator's cache, as the workspaces below: a std::vector zeroed and faulted in 16 MiB (512 x 512
  // channels) every call.
  const Storage u_storage = make_storage(static_cast<size_t>(groups * 16 * cout_g * cin_g) * sizeof(scalar_t),
                                         Device(DeviceType::CPU));
  scalar_t* const u = static_cast<scalar_t*>(u_storage->data());
  winograd_kernel_transform(w, groups, cout_g, cin_g, u);
  // Images to a unit of work: enough for kWinogradTiles tiles side by side in a product, as many to each unit of a
  // thread's share of the images (3 of 8 images a unit at 2 threads would give one thread 6 and the other 2).
  const int64_t share = (n + get_num_threads() - 1) / get_num_threads();
  const int64_t wanted = std::max<int64_t>(1, (kWinogradTiles + th * tw - 1) / (th * tw));
  const int64_t per_share = (share + wanted - 1) / wanted;
  const int64_t chunk = std::max<int64_t>(1, (share + per_share - 1) / per_share), chunks = (n + chunk - 1) / chunk;
  // Tile rows per block (a unit's images' rows one after another): V and M of one block within kWinogradBlockBytes.
  const int64_t per_row = 16 * (cin_g + cout_g) * tw * int64_t(sizeof(scalar_t));
  const int64_t block_rows = std::clamp<int64_t>(kWinogradBlockBytes / std::max<int64_t>(per_row, 1), 1, chunk * th);
  const int64_t block_tiles = block_rows * tw;
  parallel_for(chunks * groups, 1, [&](int64_t begin, int64_t end) {
    // From the CPU allocator, whose cache of large blocks hands the same (faulted-in) memory back call after call:
    // as std::vectors, the 6.6 MB a call faulted in page by page took a fifth of the time.
    // V_e and M_e are 64 bytes more than a block's apart: at 64 channels and 512 tiles they were 128 KiB apart, and
    // the transforms' sixteen streams, one per e, fell in one set of the L1 cache (the forward took 1.2-2.3x torch's
    // time from run to run where it takes 0.78x).
    const int64_t v_e = cin_g * block_tiles + 16, m_e = cout_g * block_tiles + 16;
    const int64_t buf_size = chunk * cin_g * plane, v_size = 16 * v_e, m_size = 16 * m_e;
    const Storage work = make_storage(static_cast<size_t>(buf_size + v_size + m_size) * sizeof(scalar_t),
                                      Device(DeviceType::CPU));
    scalar_t* const buf = static_cast<scalar_t*>(work->data());
    scalar_t* const v = buf + buf_size;
    scalar_t* const m = v + v_size;
    std::fill(buf, buf + buf_size, scalar_t(0));
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t first = unit / groups * chunk, group = unit % groups, images = std::min(chunk, n - first);
      for (int64_t i = 0; i < images; ++i) {  // the padding stays zero: only the images' own places are written
        const scalar_t* channels = src + ((first + i) * groups + group) * cin_g * h * wd;
        for (int64_t c = 0; c < cin_g; ++c) {
          for (int64_t y = 0; y < h; ++y) {
            const scalar_t* from = channels + (c * h + y) * wd;
            std::copy(from, from + wd, buf + (i * cin_g + c) * plane + (y + g.pad[0]) * cols + g.pad[1]);
          }
        }
      }
      const scalar_t* ug = u + group * 16 * cout_g * cin_g;
      const int64_t unit_rows = images * th;
      for (int64_t r0 = 0; r0 < unit_rows; r0 += block_rows) {
        const int64_t r1 = std::min(unit_rows, r0 + block_rows), count = (r1 - r0) * tw;
        // V_e a (Cin x count) matrix at v + e * v_e, M_e (Cout x count) at m + e * m_e: U_e (Cout x Cin) @ V_e.
        for (int64_t c = 0; c < cin_g; ++c) {
          for (int64_t r = r0; r < r1; ++r) {  // tile row r % th of the unit's image r / th
            winograd_input_row(buf + (r / th * cin_g + c) * plane + 2 * (r % th) * cols, cols, tw,
                               v + c * count + (r - r0) * tw, v_e);
          }
        }
        for (int e = 0; e < 16; ++e) {
          gemm(cout_g, count, cin_g, ug + e * cout_g * cin_g, cin_g, v + e * v_e, count, scalar_t(0), m + e * m_e,
               count);
        }
        for (int64_t o = 0; o < cout_g; ++o) {
          for (int64_t r = r0; r < r1; ++r) {
            const int64_t ti = r % th;
            scalar_t* out = dst + (((first + r / th) * groups + group) * cout_g + o) * oh * ow;
            winograd_output_row(m + o * count + (r - r0) * tw, m_e, tw, 2 * ti + 1 < oh ? 2 : 1, ow, out + 2 * ti * ow);
          }
        }
      }
    }
  });
}

}  // namespace yaten::native::cpu::conv_detail
