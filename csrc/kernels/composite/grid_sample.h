// grid_sampler_2d for every device (F.grid_sample): each output position samples the input at the (x, y) its grid
// entry names in [-1, 1], by bilinear interpolation of the four surrounding pixels, by the nearest one, or by bicubic
// convolution of the sixteen around it, with
// torch's rules for align_corners and the padding modes (zeros, border, reflection). Written over ops: the pixel
// coordinates are computed elementwise, the taps are gathers from the (N, C, H * W) input, and out-of-image taps
// weigh 0; gradients flow to the input through gather and to the grid through the bilinear weights (the floor and
// the masks are of detached coordinates, whose own derivative is 0, as torch's).
#pragma once

#include <cmath>
#include <optional>
#include <vector>

#include "autograd/autograd.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/abs.h"
#include "yaten/ops/add.h"
#include "yaten/ops/clamp.h"
#include "yaten/ops/div.h"
#include "yaten/ops/eq.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/floor.h"
#include "yaten/ops/fmod.h"
#include "yaten/ops/full.h"
#include "yaten/ops/gather.h"
#include "yaten/ops/ge.h"
#include "yaten/ops/le.h"
#include "yaten/ops/logical_and.h"
#include "yaten/ops/mul.h"
#include "yaten/ops/remainder.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/round.h"
#include "yaten/ops/neg.h"
#include "yaten/ops/select.h"
#include "yaten/ops/sub.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/where.h"

namespace yaten::native {

namespace grid_detail {
// torch's reflect_coordinates: v reflected into [low / 2, high / 2] (twice the bounds, to stay in integers).
inline Tensor reflect(const Tensor& v, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return yaten::mul(v, Scalar(0.0));
  const double low = twice_low / 2.0, span = (twice_high - twice_low) / 2.0;
  const Tensor in = yaten::abs(yaten::sub(v, Scalar(low), Scalar(int64_t(1))));
  const Tensor extra = yaten::fmod(in, Scalar(span));
  const Tensor flips = yaten::floor(yaten::div(autograd::detach(in), Scalar(span)));
  const Tensor even = yaten::eq(yaten::remainder(flips, Scalar(2.0)), Scalar(0.0));
  return yaten::where(even, yaten::add(extra, Scalar(low), Scalar(int64_t(1))),
                      yaten::add(yaten::mul(extra, Scalar(-1.0)), Scalar(span + low), Scalar(int64_t(1))));
}

// A pixel coordinate along a dim of `size` after the padding mode (torch's compute_coordinates).
inline Tensor padded(Tensor v, int64_t size, int64_t padding_mode, bool align_corners) {
  if (padding_mode == 2) v = align_corners ? reflect(v, 0, 2 * (size - 1)) : reflect(v, -1, 2 * size - 1);
  if (padding_mode != 0) v = yaten::clamp(v, Scalar(0.0), Scalar(double(size - 1)));
  return v;
}

// A grid coordinate in [-1, 1] as a pixel coordinate along a dim of `size` (torch's grid_sampler_unnormalize).
inline Tensor unnormalized(const Tensor& coord, int64_t size, bool align_corners) {
  return align_corners ? yaten::mul(yaten::add(coord, Scalar(1.0), Scalar(int64_t(1))), Scalar((size - 1) / 2.0))
                       : yaten::sub(yaten::mul(yaten::add(coord, Scalar(1.0), Scalar(int64_t(1))),
                                               Scalar(size / 2.0)), Scalar(0.5), Scalar(int64_t(1)));
}

// ... after the padding mode.
inline Tensor source_coordinate(const Tensor& coord, int64_t size, int64_t padding_mode, bool align_corners) {
  return padded(unnormalized(coord, size, align_corners), size, padding_mode, align_corners);
}

// The four weights of Keys' cubic convolution (a = -0.75, as torch's bicubic) for the taps at floor - 1 .. floor + 2
// of a position whose fraction is t.
inline std::vector<Tensor> cubic_weights(const Tensor& t) {
  const double a = -0.75;
  const auto near = [&](const Tensor& x) {  // ((a + 2) x - (a + 3)) x^2 + 1, for |x| <= 1
    const Tensor inner = yaten::sub(yaten::mul(x, Scalar(a + 2)), Scalar(a + 3), Scalar(int64_t(1)));
    return yaten::add(yaten::mul(yaten::mul(inner, x), x), Scalar(1.0), Scalar(int64_t(1)));
  };
  const auto far = [&](const Tensor& x) {  // ((a x - 5 a) x + 8 a) x - 4 a, for 1 < |x| < 2
    const Tensor inner = yaten::sub(yaten::mul(x, Scalar(a)), Scalar(5 * a), Scalar(int64_t(1)));
    const Tensor middle = yaten::add(yaten::mul(inner, x), Scalar(8 * a), Scalar(int64_t(1)));
    return yaten::sub(yaten::mul(middle, x), Scalar(4 * a), Scalar(int64_t(1)));
  };
  const Tensor one_minus = yaten::add(yaten::neg(t), Scalar(1.0), Scalar(int64_t(1)));
  return {far(yaten::add(t, Scalar(1.0), Scalar(int64_t(1)))), near(t), near(one_minus),
          far(yaten::add(one_minus, Scalar(1.0), Scalar(int64_t(1))))};
}

// input flattened to (N, C, prod(sizes)) at integer coordinates coords[d] (N, P) along dims of sizes[d] (the last
// the fastest), times weight (N, P): (N, C, P). A tap outside the image adds 0 (not 0 times the clamped pixel it
// reads, which may be infinite or NaN), and no gradient.
inline Tensor tap_nd(const Tensor& flat, const std::vector<Tensor>& coords, const std::vector<int64_t>& sizes,
                     const Tensor& weight) {
  Tensor ok, index;
  for (size_t d = 0; d < coords.size(); ++d) {
    const Scalar last(double(sizes[d] - 1));
    const Tensor in = yaten::logical_and(yaten::ge(coords[d], Scalar(0.0)), yaten::le(coords[d], last));
    ok = ok.defined() ? yaten::logical_and(ok, in) : in;
    // the position in int64: in float16 or bfloat16 the flat position of a large image is not representable
    const Tensor clamped = yaten::_to_copy(yaten::clamp(coords[d], Scalar(0.0), last), ScalarType::Long,
                                          std::nullopt);
    index = index.defined() ? yaten::add(yaten::mul(index, Scalar(sizes[d])), clamped, Scalar(int64_t(1)))
                            : clamped;
  }
  const int64_t n = flat.sizes()[0], c = flat.sizes()[1], p = index.sizes()[1];
  const Tensor picked = yaten::gather(flat, 2, yaten::expand(yaten::unsqueeze(index, 1), {n, c, p}));
  return yaten::where(yaten::unsqueeze(ok, 1), yaten::mul(picked, yaten::unsqueeze(weight, 1)), Scalar(0.0));
}
inline Tensor tap(const Tensor& flat, const Tensor& ix, const Tensor& iy, const Tensor& weight, int64_t h, int64_t w) {
  return tap_nd(flat, {iy, ix}, {h, w}, weight);
}

inline void check_sampler(const char* op, const Tensor& input, const Tensor& grid, int64_t dims,
                          int64_t interpolation_mode, int64_t padding_mode) {
  YATEN_CHECK(input.dim() == dims + 2 && grid.dim() == dims + 2 && grid.sizes()[size_t(dims + 1)] == dims &&
              grid.sizes()[0] == input.sizes()[0], RuntimeError, op, ": expected ",
              dims == 2 ? "4-D input (N, C, H, W) and grid (N, H_out, W_out, 2)"
                        : "5-D input (N, C, D, H, W) and grid (N, D_out, H_out, W_out, 3)",
              " of one batch, but got input of size ", sizes_text(input.sizes()), " and grid of size ",
              sizes_text(grid.sizes()));
  YATEN_CHECK(input.dtype() == grid.dtype() && is_floating_point(input.dtype()), RuntimeError, op, ": expected input "
              "and grid of one floating dtype, but got ", dtype_name(input.dtype()), " and ", dtype_name(grid.dtype()));
  YATEN_CHECK(input.device() == grid.device(), RuntimeError, op, ": expected input and grid on one device");
  YATEN_CHECK(interpolation_mode >= 0 && interpolation_mode <= (dims == 2 ? 2 : 1), RuntimeError, op,
              ": interpolation mode ", interpolation_mode, dims == 2 ? " is not one of 0 (bilinear), 1 (nearest), "
              "2 (bicubic)" : " is not one of 0 (bilinear), 1 (nearest): bicubic interpolation only supports 4-D "
              "input");
  YATEN_CHECK(padding_mode >= 0 && padding_mode <= 2, RuntimeError, op, ": padding mode ", padding_mode,
              " is not one of 0 (zeros), 1 (border), 2 (reflection)");
  for (int64_t d = 2; d < input.dim(); ++d) {
    YATEN_CHECK(input.sizes()[size_t(d)] > 0, RuntimeError, op, ": expected a non-empty image, got input of size ",
                sizes_text(input.sizes()));
  }
}
}  // namespace grid_detail

inline Tensor grid_sampler_2d_impl(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                                   int64_t padding_mode, bool align_corners) {
  using namespace grid_detail;
  check_sampler("grid_sampler_2d", input, grid, 2, interpolation_mode, padding_mode);
  const int64_t n = input.sizes()[0], c = input.sizes()[1], h = input.sizes()[2], w = input.sizes()[3];
  const int64_t ho = grid.sizes()[1], wo = grid.sizes()[2];
  const Tensor flat = yaten::reshape(input, {n, c, h * w});
  const Tensor points = yaten::reshape(grid, {n, ho * wo, 2});
  if (interpolation_mode == 2) {
    // torch's bicubic: the 4 x 4 taps around the unpadded position, each tap's coordinate padded on its own
    const Tensor ix = unnormalized(yaten::select(points, 2, 0), w, align_corners);
    const Tensor iy = unnormalized(yaten::select(points, 2, 1), h, align_corners);
    const Tensor x0 = yaten::floor(autograd::detach(ix)), y0 = yaten::floor(autograd::detach(iy));
    const std::vector<Tensor> wx = cubic_weights(yaten::sub(ix, x0, Scalar(int64_t(1))));
    const std::vector<Tensor> wy = cubic_weights(yaten::sub(iy, y0, Scalar(int64_t(1))));
    Tensor out;
    for (int ky = 0; ky < 4; ++ky) {
      const Tensor cy = padded(yaten::add(y0, Scalar(double(ky - 1)), Scalar(int64_t(1))), h, padding_mode,
                               align_corners);
      for (int kx = 0; kx < 4; ++kx) {
        const Tensor cx = padded(yaten::add(x0, Scalar(double(kx - 1)), Scalar(int64_t(1))), w, padding_mode,
                                 align_corners);
        const Tensor term = tap(flat, cx, cy, yaten::mul(wx[size_t(kx)], wy[size_t(ky)]), h, w);
        out = out.defined() ? yaten::add(out, term, Scalar(int64_t(1))) : term;
      }
    }
    return yaten::reshape(out, {n, c, ho, wo});
  }
  const Tensor ix = source_coordinate(yaten::select(points, 2, 0), w, padding_mode, align_corners);
  const Tensor iy = source_coordinate(yaten::select(points, 2, 1), h, padding_mode, align_corners);
  Tensor out;
  if (interpolation_mode == 1) {
    const Tensor one = yaten::full({}, Scalar(1.0), ix.dtype(), ix.device());
    out = tap(flat, yaten::round(autograd::detach(ix)), yaten::round(autograd::detach(iy)),
              yaten::expand(one, ix.sizes()), h, w);
  } else {
    const Tensor x0 = yaten::floor(autograd::detach(ix)), y0 = yaten::floor(autograd::detach(iy));
    const Tensor x1 = yaten::add(x0, Scalar(1.0), Scalar(int64_t(1)));
    const Tensor y1 = yaten::add(y0, Scalar(1.0), Scalar(int64_t(1)));
    const Tensor wx1 = yaten::sub(ix, x0, Scalar(int64_t(1))), wx0 = yaten::sub(x1, ix, Scalar(int64_t(1)));
    const Tensor wy1 = yaten::sub(iy, y0, Scalar(int64_t(1))), wy0 = yaten::sub(y1, iy, Scalar(int64_t(1)));
    out = yaten::add(yaten::add(tap(flat, x0, y0, yaten::mul(wx0, wy0), h, w),
                                tap(flat, x1, y0, yaten::mul(wx1, wy0), h, w), Scalar(int64_t(1))),
                     yaten::add(tap(flat, x0, y1, yaten::mul(wx0, wy1), h, w),
                                tap(flat, x1, y1, yaten::mul(wx1, wy1), h, w), Scalar(int64_t(1))),
                     Scalar(int64_t(1)));
  }
  return yaten::reshape(out, {n, c, ho, wo});
}

// grid_sampler_3d: grid_sampler_2d one dim up, input (N, C, D, H, W) sampled at the grid's (x, y, z) points
// (N, D_out, H_out, W_out, 3), x along W, y along H, z along D; trilinear interpolation of the eight surrounding
// voxels (summed in torch's order, z, then y, then x) or the nearest one (ties to even, as nearbyint); no bicubic.
inline Tensor grid_sampler_3d_impl(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                                   int64_t padding_mode, bool align_corners) {
  using namespace grid_detail;
  check_sampler("grid_sampler_3d", input, grid, 3, interpolation_mode, padding_mode);
  const int64_t n = input.sizes()[0], c = input.sizes()[1];
  const std::vector<int64_t> sizes = {input.sizes()[2], input.sizes()[3], input.sizes()[4]};  // D, H, W
  const int64_t points_count = grid.sizes()[1] * grid.sizes()[2] * grid.sizes()[3];
  const Tensor flat = yaten::reshape(input, {n, c, sizes[0] * sizes[1] * sizes[2]});
  const Tensor points = yaten::reshape(grid, {n, points_count, 3});
  std::vector<Tensor> at;  // the source coordinates along D, H, W (the grid's z, y, x)
  for (int d = 0; d < 3; ++d) {
    at.push_back(source_coordinate(yaten::select(points, 2, 2 - d), sizes[size_t(d)], padding_mode, align_corners));
  }
  Tensor out;
  if (interpolation_mode == 1) {
    std::vector<Tensor> nearest;
    for (const Tensor& v : at) nearest.push_back(yaten::round(autograd::detach(v)));
    out = tap_nd(flat, nearest, sizes, yaten::expand(yaten::full({}, Scalar(1.0), at[0].dtype(), at[0].device()),
                                                     at[0].sizes()));
  } else {
    std::vector<Tensor> low, high, w_low, w_high;
    for (const Tensor& v : at) {
      low.push_back(yaten::floor(autograd::detach(v)));
      high.push_back(yaten::add(low.back(), Scalar(1.0), Scalar(int64_t(1))));
      w_low.push_back(yaten::sub(high.back(), v, Scalar(int64_t(1))));   // the weight of the lower voxel
      w_high.push_back(yaten::sub(v, low.back(), Scalar(int64_t(1))));  // ... of the upper one
    }
    for (int corner = 0; corner < 8; ++corner) {  // bits: z (4), y (2), x (1)
      const bool z = corner & 4, y = corner & 2, x = corner & 1;
      const Tensor weight = yaten::mul(yaten::mul(x ? w_high[2] : w_low[2], y ? w_high[1] : w_low[1]),
                                       z ? w_high[0] : w_low[0]);
      const Tensor term = tap_nd(flat, {z ? high[0] : low[0], y ? high[1] : low[1], x ? high[2] : low[2]}, sizes,
                                 weight);
      out = out.defined() ? yaten::add(out, term, Scalar(int64_t(1))) : term;
    }
  }
  return yaten::reshape(out, {n, c, grid.sizes()[1], grid.sizes()[2], grid.sizes()[3]});
}

}  // namespace yaten::native
