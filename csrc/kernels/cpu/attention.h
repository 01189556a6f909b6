// Flash attention on the CPU: scaled_dot_product_attention's forward and backward in blocks, with an online softmax,
// so that no L x S matrix of scores or weights is ever in memory (Note [Flash attention on the CPU]).
//
// Note [Flash attention on the CPU]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// query (B, H, L, E), key (B, Hk, S, E), value (B, Hk, S, Ev), contiguous; H a multiple of Hk (grouped-query
// attention: query head h reads key head h / (H / Hk)). An additive mask, when given, is read through its strides as
// (B, H, L, S) (a broadcast view). The forward takes a block of kBlockRows query rows of one (b, h) at a time, and
// for each block of kBlockCols keys (none above the diagonal with is_causal, torch's top-left alignment j <= i):
// scores = scale * q k^T + mask on the BLAS, then the online softmax (each row's running maximum m and sum l, the
// accumulated output rescaled by exp(m_old - m_new)), output += p v on the BLAS. It returns the output and each
// row's log-sum-exp, m + log(l), which is all the backward needs: it recomputes each block's weights as
// exp(scores - lse) and accumulates dV = p^T dO, dS = p * (dO v^T - rowsum(dO * O)), dK = scale * dS^T q and
// dQ = scale * dS k block by block. A row that every key is masked out of gets zero output and zero gradients, as
// the composite (and torch's math path) gives. Blocks compute in float (double for float64): float16 and bfloat16
// blocks are converted when loaded. The forward shares (b, h, query block) work items over yaten's threads, the
// backward (b, key head) ones (each owns its dK and dV).
//
// The block products are small (64 x 64 x E): in float they run on the register-tiled kernel below (mm_nn: 4 rows
// of C by up to 4 vectors at a time, kept in registers across the whole inner dimension), not on the BLAS, whose
// packing and dispatch cost more than the arithmetic at these sizes (the forward at (12, 4, 64, 32) took 3.2x
// torch's time on sgemm). Every block buffer is laid out for it: rows padded to a multiple of the vector width
// (kPad), keys and values loaded transposed (E x kBlockCols) for the products with them on the right, and P and dS
// read by column in place for dV and dK (mm's trans_a); the padding lanes hold zeros or stale finite values and are
// never read back. float64 keeps the BLAS on the same layouts. Keys above the diagonal (is_causal) are neither
// exponentiated nor maxed over: a row stops at its diagonal.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/blas.h"
#include "core/gil.h"
#include "core/parallel.h"
#include "iter/vec.h"
#include "kernels/composite/attention.h"  // the gradients' formula, attention_detail::flash_backward
#include "yaten/ops/empty.h"
#include "yaten/ops/zeros.h"

namespace yaten::native::cpu {

namespace attention_detail {
constexpr int64_t kBlockRows = 64;
constexpr int64_t kBlockCols = 64;

constexpr int64_t kPad = 16;  // row strides of the block buffers: a multiple of every vector width
inline int64_t padded(int64_t n) { return (n + kPad - 1) / kPad * kPad; }

// One tile of mm_nn: NR rows of C by NV vectors, accumulated in registers over the whole k. kTransA: a is stored
// k x m (C's row i reads a's column i), so P^T and dS^T need no transposed copy.
template <int NR, int NV, bool kTransA>
inline void mm_tile(int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, bool accumulate,
                    float* c, int64_t ldc) {
  using vec::wfloat;
  constexpr int W = vec::kWideLanes;
  wfloat acc[NR][NV];
  for (int i = 0; i < NR; ++i) {
    for (int j = 0; j < NV; ++j) acc[i][j] = vec::broadcast<wfloat>(0.0f);
  }
  for (int64_t p = 0; p < k; ++p) {
    wfloat bv[NV];
    for (int j = 0; j < NV; ++j) bv[j] = vec::load<wfloat>(b + p * ldb + j * W);
    for (int i = 0; i < NR; ++i) {
      const wfloat av = vec::broadcast<wfloat>(kTransA ? a[p * lda + i] : a[i * lda + p]);
      for (int j = 0; j < NV; ++j) acc[i][j] += av * bv[j];
    }
  }
  for (int i = 0; i < NR; ++i) {
    for (int j = 0; j < NV; ++j) {
      wfloat r = acc[i][j] * alpha;
      if (accumulate) r += vec::load<wfloat>(c + i * ldc + j * W);
      vec::store(c + i * ldc + j * W, r);
    }
  }
}

template <int NR, bool kTransA>
inline void mm_rows(int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                    bool accumulate, float* c, int64_t ldc) {
  constexpr int W = vec::kWideLanes;
  for (int64_t j0 = 0; j0 < n; j0 += 4 * W) {
    const int64_t nv = std::min<int64_t>(4, (n - j0 + W - 1) / W);
    const float* bj = b + j0;
    float* cj = c + j0;
    switch (nv) {
      case 4: mm_tile<NR, 4, kTransA>(k, alpha, a, lda, bj, ldb, accumulate, cj, ldc); break;
      case 3: mm_tile<NR, 3, kTransA>(k, alpha, a, lda, bj, ldb, accumulate, cj, ldc); break;
      case 2: mm_tile<NR, 2, kTransA>(k, alpha, a, lda, bj, ldb, accumulate, cj, ldc); break;
      default: mm_tile<NR, 1, kTransA>(k, alpha, a, lda, bj, ldb, accumulate, cj, ldc); break;
    }
  }
}

// c (m x n) = alpha * op(a) @ b (k x n) (+ c when accumulate), row-major with leading dims; op(a) is a (m x k) or,
// with trans_a, a stored k x m transposed. In float, n is computed up to the next multiple of kPad: b's and c's rows
// must have that many (finite) columns.
template <typename acc_t>
void mm(bool trans_a, int64_t m, int64_t n, int64_t k, acc_t alpha, const acc_t* a, int64_t lda, const acc_t* b,
        int64_t ldb, bool accumulate, acc_t* c, int64_t ldc) {
  if constexpr (std::is_same_v<acc_t, double>) {
    blas::dgemm(trans_a ? blas::Trans : blas::NoTrans, blas::NoTrans, m, n, k, alpha, a, lda, b, ldb,
                accumulate ? 1.0 : 0.0, c, ldc);
  } else {
    const int64_t np = padded(n);
    const auto rows = [&](auto nr, int64_t i) {
      constexpr int NR = decltype(nr)::value;
      const float* ai = trans_a ? a + i : a + i * lda;
      if (trans_a) {
        mm_rows<NR, true>(np, k, alpha, ai, lda, b, ldb, accumulate, c + i * ldc, ldc);
      } else {
        mm_rows<NR, false>(np, k, alpha, ai, lda, b, ldb, accumulate, c + i * ldc, ldc);
      }
    };
    int64_t i = 0;
    for (; i + 4 <= m; i += 4) rows(std::integral_constant<int, 4>{}, i);
    for (; i < m; ++i) rows(std::integral_constant<int, 1>{}, i);
  }
}
template <typename acc_t>
void mm_nn(int64_t m, int64_t n, int64_t k, acc_t alpha, const acc_t* a, int64_t lda, const acc_t* b, int64_t ldb,
           bool accumulate, acc_t* c, int64_t ldc) {
  mm<acc_t>(false, m, n, k, alpha, a, lda, b, ldb, accumulate, c, ldc);
}

// A 4-dim operand whose last dim is contiguous (query, key, value: often transposed views of one projection).
template <typename scalar_t>
struct Operand {
  const scalar_t* data;
  int64_t sb, sh, sr;  // the strides of batch, head and row
  explicit Operand(const Tensor& t)
      : data(t.data<scalar_t>()), sb(t.strides()[0]), sh(t.strides()[1]), sr(t.strides()[2]) {}
  const scalar_t* row(int64_t b, int64_t h, int64_t r) const { return data + b * sb + h * sh + r * sr; }
};

// rows [r0, r0 + rows) of head (b, h) of `src`, `width` wide, converted into `dst` (rows x width, row stride
// padded(width)).
template <typename acc_t, typename scalar_t>
void load(acc_t* dst, const Operand<scalar_t>& src, int64_t b, int64_t h, int64_t r0, int64_t rows, int64_t width) {
  const int64_t ld = padded(width);
  for (int64_t r = 0; r < rows; ++r) {
    const scalar_t* from = src.row(b, h, r0 + r);
    acc_t* to = dst + r * ld;
    for (int64_t e = 0; e < width; ++e) to[e] = static_cast<acc_t>(from[e]);
  }
}

// The same rows transposed: dst[e * kBlockCols + r] (width x kBlockCols), the layout the scores' product reads.
template <typename acc_t, typename scalar_t>
void load_transposed(acc_t* dst, const Operand<scalar_t>& src, int64_t b, int64_t h, int64_t r0, int64_t rows,
                     int64_t width) {
  for (int64_t r = 0; r < rows; ++r) {
    const scalar_t* from = src.row(b, h, r0 + r);
    for (int64_t e = 0; e < width; ++e) dst[e * kBlockCols + r] = static_cast<acc_t>(from[e]);
  }
}

// x[c] = exp(x[c] - shift) for c < n; returns their sum. float: vec.h's exp, 16 lanes at a time (exp(-inf) is 0).
template <typename acc_t>
inline acc_t exp_shifted(acc_t* x, int64_t n, acc_t shift) {
  acc_t sum = 0;
  int64_t c = 0;
  if constexpr (std::is_same_v<acc_t, float>) {
    using vec::wfloat;
    constexpr int kLanes = vec::kWideLanes;
    wfloat total = vec::broadcast<wfloat>(0.0f);
    for (; c + kLanes <= n; c += kLanes) {
      const wfloat e = vec::exp(vec::load<wfloat>(x + c) - shift);
      vec::store(x + c, e);
      total += e;
    }
    float lanes[kLanes];
    vec::store(lanes, total);
    for (int j = 0; j < kLanes; ++j) sum += lanes[j];
  }
  for (; c < n; ++c) {
    x[c] = std::exp(x[c] - shift);
    sum += x[c];
  }
  return sum;
}

// The largest of x[0..n) (-inf when n is 0); float: 16 lanes at a time (a scalar max is a chain of dependent
// instructions, a third of the forward's time before).
template <typename acc_t>
inline acc_t row_max(const acc_t* x, int64_t n) {
  acc_t best = -std::numeric_limits<acc_t>::infinity();
  int64_t c = 0;
  if constexpr (std::is_same_v<acc_t, float>) {
    using vec::wfloat;
    constexpr int kLanes = vec::kWideLanes;
    if (n >= kLanes) {
      wfloat m = vec::load<wfloat>(x);
      for (c = kLanes; c + kLanes <= n; c += kLanes) m = vec::max(m, vec::load<wfloat>(x + c));
      float lanes[kLanes];
      vec::store(lanes, m);
      for (int j = 0; j < kLanes; ++j) best = std::max(best, lanes[j]);
    }
  }
  for (; c < n; ++c) best = std::max(best, x[c]);
  return best;
}

// How many of a block's keys row r can see: all `cols`, or with is_causal those up to its diagonal (<= 0: none).
inline int64_t visible(bool causal, int64_t i0, int64_t r, int64_t j0, int64_t cols) {
  return causal ? std::min(cols, i0 + r + 1 - j0) : cols;
}

// The shapes and the mask of one call.
struct Problem {
  int64_t B, H, Hk, L, S, E, Ev;
  double scale;
  bool causal;
  const Tensor* mask;  // additive, broadcast to (B, H, L, S); undefined: none
  int64_t ms[4] = {0, 0, 0, 0};  // its strides
};

// The operands' contract (the composite meets it; a direct call that does not gets a RuntimeError): 4-dim query,
// key and value, each with a contiguous last dim, of one batch, key heads dividing query heads, key and value of one length, and a mask
// of the compute dtype, 4 dims, broadcast to (B, H, L, S); nothing empty.
inline void check_operands(const char* op, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                           ScalarType acc) {
  YATEN_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, RuntimeError, op,
              ": expected 4-dim query, key and value (B, H, L, E), got ", q.dim(), ", ", k.dim(), " and ", v.dim(),
              " dims");
  YATEN_CHECK(q.dtype() == k.dtype() && q.dtype() == v.dtype(), RuntimeError, op,
              ": query, key and value must share a dtype");
  YATEN_CHECK(q.strides()[3] == 1 && k.strides()[3] == 1 && v.strides()[3] == 1, RuntimeError, op,
              ": query, key and value must each have a contiguous last dim");
  YATEN_CHECK(q.numel() > 0 && k.numel() > 0 && v.numel() > 0, RuntimeError, op,
              ": expected non-empty query, key and value (scaled_dot_product_attention composes empty ones)");
  const auto& qs = q.sizes();
  const auto& ks = k.sizes();
  const auto& vs = v.sizes();
  YATEN_CHECK(ks[0] == qs[0] && vs[0] == qs[0] && vs[1] == ks[1] && qs[1] % ks[1] == 0 && ks[3] == qs[3] &&
                  vs[2] == ks[2],
              RuntimeError, op, ": shapes do not fit: query ", qs[0], "x", qs[1], "x", qs[2], "x", qs[3], ", key ",
              ks[0], "x", ks[1], "x", ks[2], "x", ks[3], ", value ", vs[0], "x", vs[1], "x", vs[2], "x", vs[3]);
  if (mask.defined()) {
    const auto& ms = mask.sizes();
    YATEN_CHECK(mask.dim() == 4 && mask.dtype() == acc && ms[0] == qs[0] && ms[1] == qs[1] && ms[2] == qs[2] &&
                    ms[3] == ks[2],
                RuntimeError, op, ": attn_mask must be an additive mask of dtype ", dtype_name(acc),
                " broadcast to (B, H, L, S)");
  }
}

inline Problem problem(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool causal,
                       double scale) {
  Problem p{q.sizes()[0], q.sizes()[1], k.sizes()[1], q.sizes()[2], k.sizes()[2], q.sizes()[3], v.sizes()[3],
            scale, causal, &mask};
  if (mask.defined()) {
    for (int d = 0; d < 4; ++d) p.ms[d] = mask.strides()[size_t(d)];
  }
  return p;
}

// scores[r][c] (row stride kBlockCols) for query rows i0.. and keys j0..: scale * q k^T (+ mask, causal -inf); qb
// (rows x E, stride padded(E)), kt the keys transposed (E x kBlockCols).
template <typename acc_t>
void block_scores(const Problem& p, const acc_t* qb, const acc_t* kt, int64_t rows, int64_t cols, int64_t b,
                  int64_t h, int64_t i0, int64_t j0, acc_t* s) {
  constexpr int64_t ld = kBlockCols;
  mm_nn<acc_t>(rows, cols, p.E, acc_t(p.scale), qb, padded(p.E), kt, ld, false, s, ld);
  const acc_t minus_inf = -std::numeric_limits<acc_t>::infinity();
  if (p.mask->defined()) {
    const acc_t* m = p.mask->data<acc_t>() + b * p.ms[0] + h * p.ms[1];
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) s[r * ld + c] += m[(i0 + r) * p.ms[2] + (j0 + c) * p.ms[3]];
    }
  }
  if (p.causal && j0 + cols - 1 > i0) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = std::max<int64_t>(0, i0 + r + 1 - j0); c < cols; ++c) s[r * ld + c] = minus_inf;
    }
  }
}
}  // namespace attention_detail

template <typename scalar_t>
std::tuple<Tensor, Tensor> _flash_attention_kernel(const Tensor& query, const Tensor& key, const Tensor& value,
                                                   const Tensor& attn_mask, bool is_causal, double scale) {
  using namespace attention_detail;
  using acc_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
  check_operands("_flash_attention", query, key, value, attn_mask, scalar_type_of<acc_t>);
  const Problem p = problem(query, key, value, attn_mask, is_causal, scale);
  Tensor out = yaten::empty({p.B, p.H, p.L, p.Ev}, query.dtype(), query.device());
  Tensor lse = yaten::empty({p.B, p.H, p.L}, scalar_type_of<acc_t>, query.device());
  const Operand<scalar_t> q(query), k(key), v(value);
  scalar_t* o = out.data<scalar_t>();
  acc_t* lse_d = lse.data<acc_t>();
  const int64_t blocks = (p.L + kBlockRows - 1) / kBlockRows, group = p.H / p.Hk;
  const acc_t minus_inf = -std::numeric_limits<acc_t>::infinity();
  yaten::detail::ScopedGilRelease release_gil(true);
  const int64_t Ep = padded(p.E), Evp = padded(p.Ev);
  parallel_for(p.B * p.H * blocks, 1, [&](int64_t w0, int64_t w1) {
    std::vector<acc_t> qb(size_t(kBlockRows * Ep)), kt(size_t(Ep * kBlockCols)), vb(size_t(kBlockCols * Evp));
    std::vector<acc_t> s(size_t(kBlockRows * kBlockCols)), acc(size_t(kBlockRows * Evp));
    std::vector<acc_t> m(kBlockRows), l(kBlockRows);
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t bh = w / blocks, b = bh / p.H, h = bh % p.H, kh = h / group;
      const int64_t i0 = (w % blocks) * kBlockRows, rows = std::min(kBlockRows, p.L - i0);
      load(qb.data(), q, b, h, i0, rows, p.E);
      std::fill(m.begin(), m.end(), minus_inf);
      std::fill(l.begin(), l.end(), acc_t(0));
      std::fill(acc.begin(), acc.end(), acc_t(0));
      const int64_t j_end = p.causal ? std::min(p.S, i0 + rows) : p.S;
      for (int64_t j0 = 0; j0 < j_end; j0 += kBlockCols) {
        const int64_t cols = std::min(kBlockCols, j_end - j0);
        load_transposed(kt.data(), k, b, kh, j0, cols, p.E);
        load(vb.data(), v, b, kh, j0, cols, p.Ev);
        block_scores(p, qb.data(), kt.data(), rows, cols, b, h, i0, j0, s.data());
        for (int64_t r = 0; r < rows; ++r) {
          acc_t* sr = s.data() + r * kBlockCols;
          // the keys above the diagonal are skipped, not exponentiated from -inf (vec::exp's slow lane path)
          const int64_t seen = std::max<int64_t>(0, visible(p.causal, i0, r, j0, cols));
          std::fill(sr + seen, sr + cols, acc_t(0));
          const acc_t m_new = std::max(m[size_t(r)], row_max(sr, seen));
          if (m_new == minus_inf) {  // every key so far masked out: nothing to add
            std::fill(sr, sr + seen, acc_t(0));
            continue;
          }
          const acc_t rescale = std::exp(m[size_t(r)] - m_new);  // 0 on the first block
          const acc_t sum = exp_shifted(sr, seen, m_new);
          l[size_t(r)] = l[size_t(r)] * rescale + sum;
          m[size_t(r)] = m_new;
          acc_t* ar = acc.data() + r * Evp;
          for (int64_t e = 0; e < p.Ev; ++e) ar[e] *= rescale;
        }
        mm_nn<acc_t>(rows, p.Ev, cols, acc_t(1), s.data(), kBlockCols, vb.data(), Evp, true, acc.data(), Evp);
      }
      for (int64_t r = 0; r < rows; ++r) {
        const acc_t li = l[size_t(r)];
        scalar_t* orow = o + (bh * p.L + i0 + r) * p.Ev;
        const acc_t* ar = acc.data() + r * Evp;
        for (int64_t e = 0; e < p.Ev; ++e) orow[e] = static_cast<scalar_t>(li > 0 ? ar[e] / li : acc_t(0));
        lse_d[bh * p.L + i0 + r] = li > 0 ? m[size_t(r)] + std::log(li) : minus_inf;
      }
    }
  });
  return {out, lse};
}

template <typename scalar_t>
std::tuple<Tensor, Tensor, Tensor> _flash_attention_backward_kernel(const Tensor& grad_out, const Tensor& query,
                                                                    const Tensor& key, const Tensor& value,
                                                                    const Tensor& attn_mask, const Tensor& out,
                                                                    const Tensor& logsumexp, bool is_causal,
                                                                    double scale) {
  using namespace attention_detail;
  using acc_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
  check_operands("_flash_attention_backward", query, key, value, attn_mask, scalar_type_of<acc_t>);
  const auto& qs = query.sizes();
  const std::vector<int64_t> rows_shape{qs[0], qs[1], qs[2]};
  const std::vector<int64_t> out_shape{qs[0], qs[1], qs[2], value.sizes()[3]};
  YATEN_CHECK(grad_out.dtype() == query.dtype() && grad_out.is_contiguous() && grad_out.sizes() == out_shape &&
                  out.dtype() == query.dtype() && out.is_contiguous() && out.sizes() == out_shape &&
                  logsumexp.dtype() == scalar_type_of<acc_t> && logsumexp.is_contiguous() &&
                  logsumexp.sizes() == rows_shape,
              RuntimeError, "_flash_attention_backward: grad_out, out and logsumexp must be contiguous, of the "
              "forward's shapes and dtypes");
  const Problem p = problem(query, key, value, attn_mask, is_causal, scale);
  Tensor dq = yaten::empty(query.sizes(), query.dtype(), query.device());
  Tensor dk = yaten::empty(key.sizes(), key.dtype(), key.device());
  Tensor dv = yaten::empty(value.sizes(), value.dtype(), value.device());
  const Operand<scalar_t> q(query), k(key), v(value), g_op(grad_out);
  const scalar_t *go = grad_out.data<scalar_t>(), *o = out.data<scalar_t>();
  const acc_t* lse = logsumexp.data<acc_t>();
  scalar_t *dq_d = dq.data<scalar_t>(), *dk_d = dk.data<scalar_t>(), *dv_d = dv.data<scalar_t>();
  const int64_t group = p.H / p.Hk;
  const acc_t minus_inf = -std::numeric_limits<acc_t>::infinity();
  yaten::detail::ScopedGilRelease release_gil(true);
  const int64_t Ep = padded(p.E), Evp = padded(p.Ev);
  parallel_for(p.B * p.Hk, 1, [&](int64_t w0, int64_t w1) {
    std::vector<acc_t> kb(size_t(kBlockCols * Ep)), kt(size_t(Ep * kBlockCols)), vt(size_t(Evp * kBlockCols));
    std::vector<acc_t> dkb(size_t(kBlockCols * Ep)), dvb(size_t(kBlockCols * Evp));
    std::vector<acc_t> qb(size_t(kBlockRows * Ep)), gb(size_t(kBlockRows * Evp));
    std::vector<acc_t> s(size_t(kBlockRows * kBlockCols)), dp(size_t(kBlockRows * kBlockCols));
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t b = w / p.Hk, hk = w;  // hk: the (b, key head) index
      // per query head of the group: its dQ (L x E, row stride Ep, accumulated over the key blocks) and
      // delta = rowsum(dO * O)
      std::vector<std::vector<acc_t>> dq_heads(size_t(group), std::vector<acc_t>(size_t(p.L * Ep), acc_t(0)));
      std::vector<std::vector<acc_t>> deltas(size_t(group), std::vector<acc_t>(size_t(p.L), acc_t(0)));
      for (int64_t g = 0; g < group; ++g) {
        const int64_t bh = b * p.H + (hk % p.Hk) * group + g;
        for (int64_t i = 0; i < p.L; ++i) {
          const scalar_t* gi = go + (bh * p.L + i) * p.Ev;
          const scalar_t* oi = o + (bh * p.L + i) * p.Ev;
          acc_t d = 0;
          for (int64_t e = 0; e < p.Ev; ++e) d += static_cast<acc_t>(gi[e]) * static_cast<acc_t>(oi[e]);
          deltas[size_t(g)][size_t(i)] = d;
        }
      }
      for (int64_t j0 = 0; j0 < p.S; j0 += kBlockCols) {
        const int64_t cols = std::min(kBlockCols, p.S - j0);
        load(kb.data(), k, b, hk % p.Hk, j0, cols, p.E);
        load_transposed(kt.data(), k, b, hk % p.Hk, j0, cols, p.E);
        load_transposed(vt.data(), v, b, hk % p.Hk, j0, cols, p.Ev);
        std::fill(dkb.begin(), dkb.end(), acc_t(0));
        std::fill(dvb.begin(), dvb.end(), acc_t(0));
        for (int64_t g = 0; g < group; ++g) {
          const int64_t h = (hk % p.Hk) * group + g, bh = b * p.H + h;
          const acc_t* delta = deltas[size_t(g)].data();
          acc_t* dqh_g = dq_heads[size_t(g)].data();
          const int64_t i_start = p.causal ? (j0 / kBlockRows) * kBlockRows : 0;
          for (int64_t i0 = i_start; i0 < p.L; i0 += kBlockRows) {
            const int64_t rows = std::min(kBlockRows, p.L - i0);
            load(qb.data(), q, b, h, i0, rows, p.E);
            load(gb.data(), g_op, b, h, i0, rows, p.Ev);
            block_scores(p, qb.data(), kt.data(), rows, cols, b, h, i0, j0, s.data());
            for (int64_t r = 0; r < rows; ++r) {  // the weights, exp(scores - lse); 0 in a fully masked row
              const acc_t lr = lse[bh * p.L + i0 + r];
              acc_t* sr = s.data() + r * kBlockCols;
              const int64_t seen = std::max<int64_t>(0, visible(p.causal, i0, r, j0, cols));
              if (lr == minus_inf) {
                std::fill(sr, sr + cols, acc_t(0));
              } else {
                exp_shifted(sr, seen, lr);
                std::fill(sr + seen, sr + cols, acc_t(0));
              }
            }
            // dV += P^T dO;  dP = dO V^T;  dS = P * (dP - delta)
            mm<acc_t>(true, cols, p.Ev, rows, acc_t(1), s.data(), kBlockCols, gb.data(), Evp, true, dvb.data(), Evp);
            mm_nn<acc_t>(rows, cols, p.Ev, acc_t(1), gb.data(), Evp, vt.data(), kBlockCols, false, dp.data(),
                         kBlockCols);
            for (int64_t r = 0; r < rows; ++r) {
              const acc_t dr = delta[size_t(i0 + r)];
              for (int64_t c = 0; c < cols; ++c) {
                const size_t at = size_t(r * kBlockCols + c);
                dp[at] = s[at] * (dp[at] - dr);
              }
            }
            // dK += scale * dS^T Q;  dQ += scale * dS K
            mm<acc_t>(true, cols, p.E, rows, acc_t(p.scale), dp.data(), kBlockCols, qb.data(), Ep, true, dkb.data(),
                      Ep);
            mm_nn<acc_t>(rows, p.E, cols, acc_t(p.scale), dp.data(), kBlockCols, kb.data(), Ep, true,
                         dqh_g + i0 * Ep, Ep);
          }
        }
        for (int64_t c = 0; c < cols; ++c) {
          for (int64_t e = 0; e < p.E; ++e) {
            dk_d[(hk * p.S + j0 + c) * p.E + e] = static_cast<scalar_t>(dkb[size_t(c * Ep + e)]);
          }
          for (int64_t e = 0; e < p.Ev; ++e) {
            dv_d[(hk * p.S + j0 + c) * p.Ev + e] = static_cast<scalar_t>(dvb[size_t(c * Evp + e)]);
          }
        }
      }
      for (int64_t g = 0; g < group; ++g) {
        const int64_t bh = b * p.H + (hk % p.Hk) * group + g;
        const acc_t* src = dq_heads[size_t(g)].data();
        for (int64_t i = 0; i < p.L; ++i) {
          for (int64_t e = 0; e < p.E; ++e) {
            dq_d[(bh * p.L + i) * p.E + e] = static_cast<scalar_t>(src[size_t(i * Ep + e)]);
          }
        }
      }
    }
  });
  return {dq, dk, dv};
}

}  // namespace yaten::native::cpu
