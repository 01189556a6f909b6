// TensorIterator: the shared machinery of every pointwise op.
//
// Given outputs (possibly absent) and inputs, it computes the broadcast shape, the dtype to compute in (from the
// op's dtype rule in ops.yaml), checks devices and out=/in-place rules, allocates missing outputs, casts inputs
// whose dtype differs from the compute dtype, and folds the shape into as few dimensions as the strides allow. A
// kernel then only writes the element loop (see cpu_loops.h and cuda_loops.cuh).
//
// Internally dimensions are stored innermost first (dim 0 is the fastest-moving), and strides are in bytes, so a
// loop never multiplies by the element size.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/gil.h"
#include "core/parallel.h"
#include "core/tensor.h"

namespace yaten {

// How an op's dtypes follow from its inputs: `dtype_rule:` in ops.yaml. See Note [Type promotion].
enum class DtypeRule : uint8_t {
  Promote,       // compute and return in result_type(inputs)
  PromoteFloat,  // like Promote, but integral and bool results become the default float dtype (div, sqrt)
  Compare,       // compute in result_type(inputs), return bool (eq, lt)
  ToReal,        // compute in result_type(inputs), return its real dtype (abs of complex64 is float32)
};

// The iterator's per-dim values (shape, byte strides), innermost first, held inline: a pointwise op on small
// tensors spends its time in allocation otherwise.
class DimArray {
 public:
  static constexpr size_t kCapacity = 64;
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  void resize(size_t n) { n_ = checked(n); }
  void assign(size_t n, int64_t value) {
    n_ = checked(n);
    for (size_t i = 0; i < n; ++i) v_[i] = value;
  }
  template <typename It>
  void assign(It first, It last) {
    n_ = 0;
    for (; first != last; ++first) v_[checked(n_ + 1) - 1] = *first, ++n_;
  }
  DimArray() = default;
  DimArray(const DimArray& other) : n_(other.n_) { std::copy(other.v_, other.v_ + n_, v_); }
  DimArray& operator=(const DimArray& other) {
    n_ = other.n_;
    std::copy(other.v_, other.v_ + n_, v_);
    return *this;
  }
  int64_t& operator[](size_t i) { return v_[i]; }
  int64_t operator[](size_t i) const { return v_[i]; }
  const int64_t* begin() const { return v_; }
  const int64_t* end() const { return v_ + n_; }

 private:
  static size_t checked(size_t n) {
    YATEN_CHECK(n <= kCapacity, RuntimeError, "TensorIterator: tensors of more than ", kCapacity,
                " dims are not supported (got ", n, ")");
    return n;
  }
  int64_t v_[kCapacity];
  size_t n_ = 0;
};

// A vector of at most N elements held inline (no allocation).
template <typename T, size_t N>
class InlineVector {
 public:
  size_t size() const { return n_; }
  void reserve(size_t) {}
  T& emplace_back() {
    YATEN_CHECK(n_ < N, RuntimeError, "TensorIterator: too many operands (at most ", N, ")");
    return v_[n_++];
  }
  void push_back(T value) { emplace_back() = std::move(value); }
  T& operator[](size_t i) { return v_[i]; }
  const T& operator[](size_t i) const { return v_[i]; }
  T* begin() { return v_; }
  T* end() { return v_ + n_; }
  const T* begin() const { return v_; }
  const T* end() const { return v_ + n_; }

 private:
  T v_[N];
  size_t n_ = 0;
};

struct TensorIteratorConfig {
  const char* op_name = "op";
  DtypeRule rule = DtypeRule::Promote;
  Tensor output;                // undefined: allocate
  bool output_is_input = false; // in-place: the output is also the first input, so it may not be resized
  bool keep_dtypes = false;      // for copies: no promotion, no casting; the loop sees each operand's own dtype
  std::vector<Tensor> inputs;
  // Out of line (tensor_iterator.cpp), as ~TensorIterator: every pointwise wrapper destroys both, and the inline
  // destructors were compiled again in each unit.
  TensorIteratorConfig();
  TensorIteratorConfig(TensorIteratorConfig&&) noexcept;
  ~TensorIteratorConfig();
};

class TensorIterator {
 public:
  static constexpr int kMaxOperands = 8;
  static constexpr int kMaxDims = static_cast<int>(DimArray::kCapacity);
  static constexpr int64_t kTile = 128;

  explicit TensorIterator(TensorIteratorConfig config);
  ~TensorIterator();

  int ninputs() const { return static_cast<int>(operands_.size()) - 1; }
  int noperands() const { return static_cast<int>(operands_.size()); }
  ScalarType compute_dtype() const { return compute_dtype_; }
  // The dtype input `i` had before it was cast to the compute dtype (for checks such as sub's on bool).
  ScalarType input_dtype(int i) const { return input_dtypes_[i]; }
  // The number of dims input `i` had before broadcasting (lerp takes a 0-dim weight of any dtype).
  int input_dim(int i) const { return input_dims_[i]; }
  // Input `i`'s value when it is a Python number (a wrapped-number tensor, detail::wrapped_scalar_tensor), read
  // before any cast; nullopt for a tensor. pow reads it: an integer base to a negative number is torch's error.
  std::optional<Scalar> input_number(int i) const {
    return (number_inputs_ >> i) & 1u ? std::optional<Scalar>(numbers_[i]) : std::nullopt;
  }
  Device device() const { return device_; }
  // The dtype of the tensor the result goes into: the user's out= (before any copy back), else the result's.
  ScalarType output_dtype() const {
    return operands_[0].original_output.defined() ? operands_[0].original_output.dtype() : operands_[0].tensor.dtype();
  }
  int64_t numel() const { return numel_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  const DimArray& shape() const { return shape_; }
  // Byte strides of operand `i` (0 is the output), innermost dim first.
  const DimArray& strides(int i) const { return operands_[i].strides; }
  char* data(int i) const { return operands_[i].data; }
  // The dtype operand `i` is stored in. On the CPU every input has the compute dtype; on CUDA inputs keep their
  // own and gpu_kernel converts them as it loads (see Note [CUDA operands]).
  ScalarType dtype(int i) const { return operands_[i].tensor.dtype(); }
  // Whether input operand `i` is a 0-dim CPU tensor joining an op on another device (a Python number, say).
  bool is_host_scalar(int i) const { return operands_[i].tensor.device() != device_; }
  // True when every operand is contiguous over the whole (coalesced, one-dimensional) shape.
  bool is_contiguous() const;

  // Calls loop(char** data, const int64_t* strides, int64_t n) once per innermost row (or piece of one), with
  // `strides` holding each operand's byte stride along that row. Pieces run on parallel_for's threads unless
  // `parallel` is false, so `loop` must only touch its own elements. See Note [One walk for every row loop].
  template <typename Loop>
  void for_each_row(Loop&& loop, bool parallel = true) const {
    using L = std::remove_reference_t<Loop>;
    walk_rows(RowLoop{const_cast<void*>(static_cast<const void*>(&loop)), &row_block<L>}, parallel);
  }

  // The result: the output tensor after any copy back into a user's out= of another dtype.
  Tensor finish();

 private:
  struct Operand {
    Tensor tensor;           // what the kernel writes or reads (maybe a cast copy, maybe a temporary)
    Tensor original_output;  // for the output, when `tensor` is a temporary of the compute dtype
    DimArray strides;
    char* data = nullptr;
  };
  void coalesce_dimensions();
  void reorder_dimensions();
  // The input read across its rows (contiguous along the outer of two dims, both at least kTile long, while the
  // output is contiguous along the inner one), or -1: then for_each_row walks tiles.
  int transposed_operand() const;
  // Note [One walk for every row loop]: the walk over rows, tiles and threads is compiled once, in
  // tensor_iterator.cpp, and reaches a kernel's row loop through one pointer per block of rows (the rows along the
  // second dim, or the columns of a tile), which row_block<Loop> below runs. As a template the walk was compiled
  // again for every kernel and dtype: 144 times in copy.cpp, which took 26 s to compile (5.6 s now; add.cpp 5.2 ->
  // 3.3 s). Runs of short rows got faster too (x[:, :2] + 1 of 500000 rows: 1.72 -> 1.30 ms), since the kernel's
  // loop now walks a block of rows itself. A tile's column is kTile long, a length a loop can compile its hot case
  // for separately (with_tile_length below): the template version knew it, and unrolled the loop; without it a
  // transposed add was 40% slower. Only that case: row_block compiled every case of cpu_kernel's loop twice, once
  // for kTile, about a tenth of a pointwise op unit's compile time.
  struct RowLoop {
    void* loop;
    // `rows` rows of n elements; operand i's row r starts at data[i] + r * row_strides[i]. data and row_strides
    // hold kMaxOperands entries, those past the iterator's operands null and 0, so that the pointers advance by a
    // loop of fixed length: two vector additions (a loop to the operand count was vectorized, with a prologue and
    // a tail, in each of row_block's ~800 instantiations).
    void (*call)(void* loop, char** data, const int64_t* strides, int64_t n, int64_t rows, const int64_t* row_strides);
  };
  template <typename Loop>
  static void row_block(void* loop, char** data, const int64_t* strides, int64_t n, int64_t rows,
                        const int64_t* row_strides) {
    Loop& body = *static_cast<Loop*>(loop);
    char* ptrs[kMaxOperands];
    std::copy(data, data + kMaxOperands, ptrs);
    for (int64_t r = 0; r < rows; ++r) {
      body(ptrs, strides, n);
      for (int i = 0; i < kMaxOperands; ++i) ptrs[i] += row_strides[i];
    }
  }
  void walk_rows(RowLoop loop, bool parallel) const;
  void rows(RowLoop loop, int64_t begin, int64_t end) const;

  const char* op_name_;
  InlineVector<Operand, kMaxOperands> operands_;  // output first
  DimArray shape_;                 // innermost first
  InlineVector<ScalarType, kMaxOperands> input_dtypes_;
  InlineVector<int8_t, kMaxOperands> input_dims_;
  uint32_t number_inputs_ = 0;     // bit i: input i is a Python number, whose value is numbers_[i]
  Scalar numbers_[kMaxOperands];
  ScalarType compute_dtype_ = ScalarType::Undefined;
  Device device_;
  int64_t numel_ = 0;
};

// Runs f(n), with n a compile-time constant when the row is a whole tile's column (TensorIterator::kTile elements,
// the length for_each_row gives a transposed operand's tiles), so that the loop f inlines is compiled for that
// length too: unrolled, without a tail. A row loop applies it to the case the tiles run (cpu_kernel: the contiguous
// one), not to all of its cases, each of which would be compiled twice (Note [One walk for every row loop]).
template <typename F>
inline void with_tile_length(int64_t n, F&& f) {
  if (n == TensorIterator::kTile) {
    f(std::integral_constant<int64_t, TensorIterator::kTile>{});
  } else {
    f(n);
  }
}

namespace detail {
// Copies the ni x nj tile at `src` (element (i, j) at src + i * stride_i + j * itemsize) into `dst` as nj
// contiguous rows of ni elements: dst[j][i].
void gather_tile(const char* src, int64_t stride_i, int64_t ni, int64_t nj, int64_t itemsize, char* dst);
// The same with dst's rows dst_stride elements apart: dst[j * dst_stride + i] (8x8 and 4x4 register transposes).
void transpose_tile(const char* src, int64_t stride_i, int64_t ni, int64_t nj, int64_t itemsize, char* dst,
                    int64_t dst_stride);
}  // namespace detail

// RuntimeError (torch's) when `output` and `input` are dense, share memory, and overlap without being the same
// elements: writing one while reading the other would read results. Strided cases are left alone (torch's "too
// hard" case).
void check_no_partial_overlap(const char* op, const Tensor& output, const Tensor& input);

// The broadcast shape of `a` and `b`; RuntimeError naming `op` when they do not broadcast.
std::vector<int64_t> broadcast_shapes(const char* op, IntArrayRef a, IntArrayRef b);

}  // namespace yaten
