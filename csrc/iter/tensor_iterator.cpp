#include "iter/tensor_iterator.h"

#include <algorithm>
#include <cstdint>
#ifdef __AVX2__
#include <immintrin.h>
#endif
#include <sstream>

#include "autograd/view_geometry.h"
#include "core/type_promotion.h"
#include "kernels/sizes_text.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/copy.h"

namespace yaten {

namespace {
std::string shape_str(IntArrayRef shape) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << "]";
  return out.str();
}

// A new output of `shape` laid out like the first input that has the full shape and a permuted dense layout
// (a transposed matrix gives a transposed result, as in torch), so that input and the output walk memory in step;
// otherwise contiguous.
Tensor allocate_like_inputs(const std::vector<int64_t>& shape, ScalarType dtype, Device device,
                            const std::vector<Tensor>& inputs) {
  const int64_t n = static_cast<int64_t>(shape.size());
  for (const Tensor& t : inputs) {
    if (t.dim() != n || t.sizes() != shape || t.numel() <= 1 || t.is_contiguous()) continue;
    std::vector<int64_t> order(n);
    for (int64_t d = 0; d < n; ++d) order[d] = d;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return t.strides()[a] > t.strides()[b];
    });
    // Dense (a permutation of a contiguous layout) only: sliced or expanded inputs leave the output contiguous.
    std::vector<int64_t> strides(n);
    int64_t expected = 1;
    bool dense = true;
    for (int64_t k = n - 1; k >= 0; --k) {
      const int64_t d = order[k];
      if (shape[d] != 1 && t.strides()[d] != expected) dense = false;
      strides[d] = expected;
      expected *= shape[d];
    }
    if (!dense) continue;
    return detail::empty_strided_tensor(shape, strides, dtype, device);
  }
  return detail::empty_tensor(shape, dtype, device);
}

// A CPU zero-dim tensor may join an op on another device (torch allows this for scalars).
bool is_cpu_scalar(const Tensor& t) { return t.dim() == 0 && t.device().is_cpu(); }
}  // namespace

namespace {
// Whether `t` covers a block of memory exactly once in some order of its dims (contiguous up to a permutation):
// torch checks overlaps only between such tensors.
bool non_overlapping_and_dense(const Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims that are not 1
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] != 1) dims.emplace_back(t.strides()[d], t.sizes()[d]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  for (const auto& [stride, size] : dims) {
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}
}  // namespace

void check_no_partial_overlap(const char* op, const Tensor& output, const Tensor& input) {
  if (!output.defined() || !input.defined() || output.numel() == 0 || input.numel() == 0) return;
  if (output.impl()->storage() != input.impl()->storage()) return;
  if (!non_overlapping_and_dense(output) || !non_overlapping_and_dense(input)) return;
  const char* out_begin = static_cast<const char*>(output.data_ptr());
  const char* in_begin = static_cast<const char*>(input.data_ptr());
  const char* out_end = out_begin + output.numel() * element_size(output.dtype());
  const char* in_end = in_begin + input.numel() * element_size(input.dtype());
  // torch's rule: the same memory counts as the same tensor only when it is walked the same way
  const bool same = out_begin == in_begin && out_end == in_end && output.strides() == input.strides();
  YATEN_CHECK(same || out_end <= in_begin || in_end <= out_begin, RuntimeError, op, ": unsupported operation: some ",
              "elements of the input tensor and the written-to tensor refer to a single memory location. Please "
              "clone() the tensor before performing the operation.");
}

std::vector<int64_t> broadcast_shapes(const char* op, IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    YATEN_CHECK(da == db || da == 1 || db == 1, RuntimeError, op, ": the size of tensor a (", da,
                ") must match the size of tensor b (", db, ") at non-singleton dimension ", i,
                " (shapes ", shape_str(a), " and ", shape_str(b), " do not broadcast)");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace native {
std::string sizes_text(const std::vector<int64_t>& v) {
  std::string text = "[";
  for (size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + std::to_string(v[i]);
  return text + "]";
}
}  // namespace native

namespace native::detail {
void arity_mismatch(int arity, int inputs) {
  YATEN_FAIL(RuntimeError, "cpu_kernel: the element function takes ", arity, " inputs but the iterator has ", inputs);
}
}  // namespace native::detail

TensorIteratorConfig::TensorIteratorConfig() = default;
TensorIteratorConfig::TensorIteratorConfig(TensorIteratorConfig&&) noexcept = default;
TensorIteratorConfig::~TensorIteratorConfig() = default;
TensorIterator::~TensorIterator() = default;

TensorIterator::TensorIterator(TensorIteratorConfig config) : op_name_(config.op_name) {
  const char* op = op_name_;
  operands_.reserve(config.inputs.size() + 1);
  input_dtypes_.reserve(config.inputs.size());
  input_dims_.reserve(config.inputs.size());
  YATEN_CHECK(config.inputs.size() + 1 <= kMaxOperands, RuntimeError, op, ": too many operands");

  // Device: the first tensor that is not a CPU scalar decides; every other such tensor must agree.
  bool have_device = false;
  auto join_device = [&](const Tensor& t) {
    if (!t.defined() || is_cpu_scalar(t)) return;
    if (!have_device) {
      device_ = t.device();
      have_device = true;
      return;
    }
    YATEN_CHECK(t.device() == device_, RuntimeError, op, ": expected all tensors to be on the same device, but "
                "found at least two devices, ", device_.str(), " and ", t.device().str(),
                ". Move them with .to(device) first.");
  };
  join_device(config.output);
  for (const Tensor& t : config.inputs) join_device(t);
  if (!have_device) device_ = config.output.defined() ? config.output.device() : Device(DeviceType::CPU);

  // Shape: inputs broadcast together; an in-place output takes part and may not change shape.
  std::vector<int64_t> shape;
  const bool in_place = config.output.defined() && config.output_is_input;
  if (in_place) shape = config.output.sizes();
  for (size_t i = 0; i < config.inputs.size(); ++i) {
    const std::vector<int64_t>& sizes = config.inputs[i].sizes();
    if (i == 0 && !in_place) {
      shape = sizes;
    } else if (sizes != shape) {
      shape = broadcast_shapes(op, shape, sizes);
    }
  }
  if (in_place) {
    YATEN_CHECK(config.output.sizes() == shape, RuntimeError, op, ": output with shape ",
                shape_str(config.output.sizes()), " doesn't match the broadcast shape ", shape_str(shape),
                " (an in-place op cannot grow its destination)");
  }

  // Dtypes: compute in result_type(inputs) (per the rule); write the rule's result dtype.
  ScalarType result_dtype;
  if (config.keep_dtypes) {
    YATEN_CHECK(config.output.defined(), RuntimeError, op, ": keep_dtypes needs an output");
    compute_dtype_ = result_dtype = config.output.dtype();
  } else {
    ResultTypeState state;
    for (const Tensor& t : config.inputs) state.add(t);
    compute_dtype_ = result_dtype = state.result();
    if (config.rule == DtypeRule::PromoteFloat && is_integral(compute_dtype_, /*include_bool=*/true)) {
      compute_dtype_ = result_dtype = default_dtype();
    } else if (config.rule == DtypeRule::Compare) {
      result_dtype = ScalarType::Bool;
    } else if (config.rule == DtypeRule::ToReal) {
      result_dtype = to_real_dtype(compute_dtype_);
      if (config.output_is_input && is_complex(compute_dtype_)) {  // abs_ of a complex tensor, as torch refuses it
        std::string name = op;
        if (!name.empty() && name.back() == '_') name.pop_back();
        YATEN_FAIL(RuntimeError, op, ": in-place ", name, " is not supported for complex tensors (its result is real)");
      }
    }
  }

  Operand& out = operands_.emplace_back();
  if (config.output.defined()) {
    for (int64_t d = 0; d < config.output.dim() && config.output.numel() > 0; ++d) {  // an expanded destination
      YATEN_CHECK(config.output.strides()[d] != 0 || config.output.sizes()[d] <= 1, RuntimeError, op,
                  ": unsupported operation: more than one element of the written-to tensor refers to a single "
                  "memory location. Please clone() the tensor before performing the operation.");
    }
    // before the output is resized, as torch checks: `out=a[:1]` overlaps `a` even if resizing would cover it
    for (const Tensor& t : config.inputs) check_no_partial_overlap(op, config.output, t);
    ScalarType out_dtype = config.output.dtype();
    // torch's unary ops (neg, abs, floor, sign, bitwise_not, gelu, ...: one input, no promotion) do not cast
    YATEN_CHECK(!((config.rule == DtypeRule::Promote || config.rule == DtypeRule::ToReal) && config.inputs.size() == 1 && !config.keep_dtypes &&
                  !config.output_is_input) || out_dtype == result_dtype,
                RuntimeError, op, ": Found dtype ", dtype_name(out_dtype), " but expected ", dtype_name(result_dtype),
                " (the out= tensor of a unary op must have its input's dtype)");
    YATEN_CHECK(can_cast(result_dtype, out_dtype), RuntimeError, op, ": result type ", dtype_name(result_dtype),
                " can't be cast to the desired output type ", dtype_name(out_dtype));
    if (!config.output_is_input && config.output.sizes() != shape) {
      // torch does not resize an out= that is also an input (`mul(a, b, out=a)` with a smaller `a`)
      for (const Tensor& t : config.inputs) {
        YATEN_CHECK(!t.is_same(config.output), RuntimeError, op, ": output with shape ",
                    shape_str(config.output.sizes()), " doesn't match the broadcast shape ", shape_str(shape),
                    " (an out= that is also an input is not resized)");
      }
      if (config.output.numel() != 0) {  // torch resizes it too, with this warning
        detail::warn(detail::str_cat(op, ": an output with one or more elements was resized since it had shape ",
                                     shape_str(config.output.sizes()), ", which does not match the required output "
                                     "shape ", shape_str(shape), ". This behavior is deprecated; pass an empty "
                                     "tensor (it is resized silently) or one of the result's shape."));
      }
      config.output.impl()->resize_(shape);
      autograd::view_geometry_changed(config.output);  // a view of a tensor with history: as_strided from now on
    }
    if (out_dtype == result_dtype) {
      out.tensor = config.output;
    } else {
      out.tensor = detail::empty_tensor(shape, result_dtype, device_);
      out.original_output = config.output;
    }
  } else {
    out.tensor = allocate_like_inputs(shape, result_dtype, device_, config.inputs);
  }
  YATEN_CHECK(shape.size() <= kMaxDims, RuntimeError, op, ": tensors of more than ", kMaxDims,
              " dims are not supported (got ", shape.size(), ")");

  // Note [CUDA operands]: on a CUDA device, inputs keep their dtypes (gpu_kernel converts as it loads) and CPU
  // scalars stay on the host (gpu_kernel passes their values as kernel arguments): no copy, no host round trip.
  const bool on_cuda = device_.is_cuda();
  for (const Tensor& t : config.inputs) {
    if (t.defined() && t.impl()->is_wrapped_number()) {
      const int i = static_cast<int>(input_dtypes_.size());
      number_inputs_ |= 1u << i;
      const ScalarType d = t.dtype();
      numbers_[i] = d == ScalarType::Bool   ? Scalar(*t.data<bool>())
                    : d == ScalarType::Long ? Scalar(*t.data<int64_t>())
                    : d == ScalarType::UInt64 ? Scalar::from_uint64(*t.data<uint64_t>())
                                            : Scalar(*t.data<double>());
    }
    input_dtypes_.push_back(t.dtype());
    input_dims_.push_back(static_cast<int8_t>(t.dim()));
    const bool cast = !config.keep_dtypes && !on_cuda && t.dtype() != compute_dtype_;
    const bool move = t.device() != device_ && !(on_cuda && is_cpu_scalar(t));
    Tensor operand = cast || move
                         ? yaten::_to_copy(t, config.keep_dtypes || on_cuda ? t.dtype() : compute_dtype_, device_)
                         : t;
    operands_.emplace_back().tensor = std::move(operand);
  }

  // Byte strides over the broadcast shape, innermost first; broadcast dims get stride 0.
  const int64_t dims = static_cast<int64_t>(shape.size());
  shape_.assign(shape.rbegin(), shape.rend());
  numel_ = 1;
  for (int64_t s : shape) numel_ *= s;
  for (Operand& operand : operands_) {
    const Tensor& t = operand.tensor;
    const int64_t offset = dims - t.dim();
    const int64_t itemsize = element_size(t.dtype());
    operand.strides.assign(dims, 0);
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (t.sizes()[d] != 1) operand.strides[dims - 1 - (d + offset)] = t.strides()[d] * itemsize;
    }
    operand.data = static_cast<char*>(t.data_ptr());
  }
  reorder_dimensions();
  coalesce_dimensions();
}

int TensorIterator::transposed_operand() const {
  if (shape_.size() != 2 || shape_[0] < kTile || shape_[1] < kTile) return -1;
  if (operands_[0].strides[0] != element_size(operands_[0].tensor.dtype())) return -1;
  for (int i = 1; i < noperands(); ++i) {
    const Operand& op = operands_[i];
    const int64_t itemsize = element_size(op.tensor.dtype());
    if (itemsize <= 8 && op.strides[1] == itemsize && op.strides[0] != itemsize && op.strides[0] != 0) return i;
  }
  return -1;
}

namespace detail {
namespace {
#ifdef __AVX2__
// Rows r[0..7] of an 8x8 float block become its columns.
inline void transpose8x8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}
// Rows r[0..3] of a 4x4 block of 8-byte elements become its columns.
inline void transpose4x4(__m256d r[4]) {
  const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
  const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
  r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}
#endif

template <typename T>
void transpose_typed(const char* src, int64_t stride_i, int64_t ni, int64_t nj, T* dst, int64_t dst_stride) {
  int64_t i = 0;
#ifdef __AVX2__
  if constexpr (sizeof(T) == 4) {
    const int64_t nj8 = nj / 8 * 8;
    for (; i + 8 <= ni; i += 8) {
      for (int64_t j = 0; j < nj8; j += 8) {
        __m256 r[8];
        for (int k = 0; k < 8; ++k) {
          r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + (i + k) * stride_i) + j);
        }
        transpose8x8(r);
        for (int k = 0; k < 8; ++k) _mm256_storeu_ps(reinterpret_cast<float*>(dst + (j + k) * dst_stride + i), r[k]);
      }
      for (int64_t j = nj8; j < nj; ++j) {
        for (int k = 0; k < 8; ++k) {
          dst[j * dst_stride + i + k] = reinterpret_cast<const T*>(src + (i + k) * stride_i)[j];
        }
      }
    }
  }
  if constexpr (sizeof(T) == 8) {  // 4x4 blocks of any 8-byte element (unpacks and permutes move bits only)
    const int64_t nj4 = nj / 4 * 4;
    for (; i + 4 <= ni; i += 4) {
      for (int64_t j = 0; j < nj4; j += 4) {
        __m256d r[4];
        for (int k = 0; k < 4; ++k) {
          r[k] = _mm256_loadu_pd(reinterpret_cast<const double*>(src + (i + k) * stride_i) + j);
        }
        transpose4x4(r);
        for (int k = 0; k < 4; ++k) {
          _mm256_storeu_pd(reinterpret_cast<double*>(dst + (j + k) * dst_stride + i), r[k]);
        }
      }
      for (int64_t j = nj4; j < nj; ++j) {
        for (int k = 0; k < 4; ++k) {
          dst[j * dst_stride + i + k] = reinterpret_cast<const T*>(src + (i + k) * stride_i)[j];
        }
      }
    }
  }
#endif
  for (; i < ni; ++i) {
    const T* row = reinterpret_cast<const T*>(src + i * stride_i);
    for (int64_t j = 0; j < nj; ++j) dst[j * dst_stride + i] = row[j];
  }
}
}  // namespace

void transpose_tile(const char* src, int64_t stride_i, int64_t ni, int64_t nj, int64_t itemsize, char* dst,
                    int64_t dst_stride) {
  switch (itemsize) {
    case 1: return transpose_typed(src, stride_i, ni, nj, reinterpret_cast<uint8_t*>(dst), dst_stride);
    case 2: return transpose_typed(src, stride_i, ni, nj, reinterpret_cast<uint16_t*>(dst), dst_stride);
    case 4: return transpose_typed(src, stride_i, ni, nj, reinterpret_cast<uint32_t*>(dst), dst_stride);
    case 8: return transpose_typed(src, stride_i, ni, nj, reinterpret_cast<uint64_t*>(dst), dst_stride);
    default:  // complex128: element by element
      for (int64_t i = 0; i < ni; ++i) {
        for (int64_t j = 0; j < nj; ++j) {
          std::memcpy(dst + (j * dst_stride + i) * itemsize, src + i * stride_i + j * itemsize, size_t(itemsize));
        }
      }
  }
}

void gather_tile(const char* src, int64_t stride_i, int64_t ni, int64_t nj, int64_t itemsize, char* dst) {
  transpose_tile(src, stride_i, ni, nj, itemsize, dst, ni);
}
}  // namespace detail

// Orders the dims so that the output's smallest stride is innermost (then the inputs', for dims the output does
// not tell apart), as torch does: `a.T + b` writes its output in a.T's layout, walking it and a.T contiguously.
void TensorIterator::reorder_dimensions() {
  const size_t n = shape_.size();
  if (n <= 1) return;
  // Whether dim `a` should be outside dim `b`: decided by the first operand whose strides tell them apart.
  auto outer = [&](size_t a, size_t b) {
    for (const Operand& op : operands_) {
      const int64_t sa = op.strides[a], sb = op.strides[b];
      if (sa == 0 || sb == 0 || sa == sb) continue;  // broadcast or undecided: ask the next operand
      return sa > sb;
    }
    return false;
  };
  std::vector<size_t> perm(n);
  for (size_t d = 0; d < n; ++d) perm[d] = d;
  // Insertion sort (stable, few dims): innermost first.
  for (size_t i = 1; i < n; ++i) {
    for (size_t j = i; j > 0 && outer(perm[j - 1], perm[j]); --j) std::swap(perm[j - 1], perm[j]);
  }
  bool identity = true;
  for (size_t d = 0; d < n; ++d) identity = identity && perm[d] == d;
  if (identity) return;
  auto apply = [&](DimArray& v) {
    const DimArray old = v;
    for (size_t d = 0; d < n; ++d) v[d] = old[perm[d]];
  };
  apply(shape_);
  for (Operand& op : operands_) apply(op.strides);
}

void TensorIterator::coalesce_dimensions() {
  if (shape_.size() <= 1) return;
  // Merge dim d into the running dim when every operand steps over both as over one.
  size_t current = 0;
  for (size_t d = 1; d < shape_.size(); ++d) {
    bool mergeable = true;
    for (const Operand& op : operands_) {
      if (shape_[current] != 1 && shape_[d] != 1 && op.strides[current] * shape_[current] != op.strides[d]) {
        mergeable = false;
        break;
      }
    }
    if (mergeable) {
      for (Operand& op : operands_) {
        if (shape_[current] == 1) op.strides[current] = op.strides[d];
      }
      shape_[current] *= shape_[d];
    } else {
      ++current;
      shape_[current] = shape_[d];
      for (Operand& op : operands_) op.strides[current] = op.strides[d];
    }
  }
  shape_.resize(current + 1);
  for (Operand& op : operands_) op.strides.resize(current + 1);
}

bool TensorIterator::is_contiguous() const {
  if (ndim() > 1) return false;
  for (const Operand& op : operands_) {
    if (ndim() == 1 && shape_[0] > 1 && op.strides[0] != element_size(op.tensor.dtype())) return false;
  }
  return true;
}

Tensor TensorIterator::finish() {
  Operand& out = operands_[0];
  if (out.original_output.defined()) {
    yaten::copy_(out.original_output, out.tensor);
    return out.original_output;
  }
  return out.tensor;
}

// Note [One walk for every row loop] (tensor_iterator.h).
void TensorIterator::rows(RowLoop loop, int64_t begin, int64_t end) const {
  const int n_ops = noperands();
  const int dims = ndim();
  char* base[kMaxOperands] = {};
  int64_t inner_strides[kMaxOperands] = {};
  for (int i = 0; i < n_ops; ++i) {
    base[i] = operands_[i].data;
    inner_strides[i] = operands_[i].strides.empty() ? 0 : operands_[i].strides[0];
  }
  if (dims <= 1) {  // one row, split along its length
    for (int i = 0; i < n_ops; ++i) base[i] += begin * inner_strides[i];
    loop.call(loop.loop, base, inner_strides, end - begin, 1, inner_strides);
    return;
  }
  // Start the counter of the outer dims at row `begin`, then walk it a block of rows along dim 1 at a time,
  // advancing each operand by its strides.
  int64_t counter[kMaxDims] = {0};
  int64_t r = begin;
  for (int d = 1; d < dims; ++d) {
    counter[d] = r % shape_[d];
    r /= shape_[d];
    for (int i = 0; i < n_ops; ++i) base[i] += counter[d] * operands_[i].strides[d];
  }
  int64_t row_strides[kMaxOperands] = {};
  for (int i = 0; i < n_ops; ++i) row_strides[i] = operands_[i].strides[1];
  const int64_t inner = shape_[0];
  for (int64_t row = begin; row < end;) {
    const int64_t block = std::min(shape_[1] - counter[1], end - row);
    loop.call(loop.loop, base, inner_strides, inner, block, row_strides);
    row += block;
    counter[1] += block;
    for (int i = 0; i < n_ops; ++i) base[i] += block * row_strides[i];
    if (counter[1] < shape_[1]) continue;
    counter[1] = 0;  // dim 1 wrapped: back to its start, and carry into the outer dims
    for (int i = 0; i < n_ops; ++i) base[i] -= shape_[1] * row_strides[i];
    for (int d = 2; d < dims; ++d) {
      if (++counter[d] < shape_[d]) {
        for (int i = 0; i < n_ops; ++i) base[i] += operands_[i].strides[d];
        break;
      }
      counter[d] = 0;
      for (int i = 0; i < n_ops; ++i) base[i] -= operands_[i].strides[d] * (shape_[d] - 1);
    }
  }
}

void TensorIterator::walk_rows(RowLoop loop, bool parallel) const {
  if (numel_ == 0) return;
  detail::ScopedGilRelease release_gil(numel_ >= detail::kGilReleaseElements);
  const int64_t inner = ndim() == 0 ? 1 : shape_[0];
  const int64_t nrows = ndim() <= 1 ? inner : numel_ / inner;  // with one dim, ranges of elements
  const int64_t grain = ndim() <= 1 ? kGrainSize : std::max<int64_t>(1, kGrainSize / inner);
  if (const int t = transposed_operand(); t >= 0) {
    // Tiles of kTile x kTile elements. The transposed input's tile is first gathered into a contiguous buffer
    // (8x8 register transposes for 4-byte types), so the kernel runs its contiguous, vectorized loop on it and
    // each of its cache lines and pages is touched once per tile instead of once per element.
    const int64_t n0 = shape_[0], n1 = shape_[1];
    const int64_t blocks1 = (n1 + kTile - 1) / kTile;
    const int64_t itemsize = element_size(operands_[t].tensor.dtype());
    auto tiles = [&](int64_t b, int64_t e) {
      thread_local std::vector<char> tile_buffer;
      tile_buffer.resize(kTile * kTile * 8);
      char* buffer = tile_buffer.data();
      char* ptrs[kMaxOperands] = {};
      int64_t inner_strides[kMaxOperands] = {}, row_strides[kMaxOperands] = {};
      for (int i = 0; i < noperands(); ++i) {
        inner_strides[i] = operands_[i].strides[0];
        row_strides[i] = operands_[i].strides[1];
      }
      inner_strides[t] = itemsize;
      for (int64_t jb = b; jb < e; ++jb) {
        const int64_t j0 = jb * kTile, nj = std::min(kTile, n1 - j0);
        for (int64_t i0 = 0; i0 < n0; i0 += kTile) {
          const int64_t ni = std::min(kTile, n0 - i0);
          const Operand& src = operands_[t];
          detail::gather_tile(src.data + i0 * src.strides[0] + j0 * src.strides[1], src.strides[0], ni, nj,
                              itemsize, buffer);
          for (int i = 0; i < noperands(); ++i) {
            ptrs[i] = operands_[i].data + i0 * operands_[i].strides[0] + j0 * operands_[i].strides[1];
          }
          ptrs[t] = buffer;
          row_strides[t] = ni * itemsize;  // the tile's columns, one after another in the buffer
          loop.call(loop.loop, ptrs, inner_strides, ni, nj, row_strides);
        }
      }
    };
    if (!parallel || numel_ < 2 * kGrainSize) {
      tiles(0, blocks1);
    } else {
      parallel_for(blocks1, std::max<int64_t>(1, kGrainSize / (kTile * n0)), tiles);
    }
    return;
  }
  if (!parallel || numel_ < 2 * kGrainSize) {
    rows(loop, 0, nrows);
    return;
  }
  parallel_for(nrows, grain, [&](int64_t begin, int64_t end) { rows(loop, begin, end); });
}

}  // namespace yaten
