// Reverse-mode autograd: the graph the generated Autograd kernels record, and the engine that runs it backwards.
//
// A tensor takes part when it carries an AutogradMeta (it requires grad, or an op that recorded it made it); only
// then does its key set hold the Autograd key, so tensors without one never pay for autograd. An op's Autograd
// kernel (generated from the `derivatives:` of its ops.yaml entry) makes a Node holding what the formulas need,
// redispatches below Autograd, and points its outputs at the node. Node inputs are the gradients of the op's
// outputs; its outputs are the gradients of the op's inputs, flowing along next_edges. Leaves end in AccumulateGrad.
#pragma once

#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

typedef struct _object PyObject;

namespace yaten::autograd {

struct Node;
using variable_list = std::vector<Tensor>;

struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

using TensorHook = std::function<Tensor(const Tensor&)>;  // returns a replacement gradient, or undefined

// What a view made by a view op remembers: the tensor the chain of views started from, and how to make the view
// from it again. After an in-place change to the memory (through the base, this view or another view), the view's
// grad_fn is made again by replaying the view ops on the base with the base's current history (torch regenerates
// an AsStridedBackward; replaying keeps every view's own formula, expanded views included).
struct ViewInfo {
  Tensor base;                                  // never itself a view
  std::function<Tensor(const Tensor&)> replay;  // base -> this view, through the dispatcher
  bool made_in_no_grad = false;                 // such a view never gets a history (in-place on it is an error)
};

struct AutogradMeta {
  bool requires_grad = false;
  Tensor grad;
  std::shared_ptr<Node> grad_fn;      // null for leaves
  std::weak_ptr<Node> grad_accumulator;
  uint32_t output_nr = 0;
  bool retains_grad = false;
  std::shared_ptr<ViewInfo> view;     // made by a view op from a tensor that has an AutogradMeta
  uint32_t attr_version = 0;          // a view's storage version when its grad_fn was last set
  std::vector<TensorHook> leaf_hooks;  // Tensor.register_hook on a leaf: run before accumulating
  // Tensor.register_post_accumulate_grad_hook on a leaf: run with the tensor after its .grad was accumulated (what
  // DistributedDataParallel's buckets wait on); each with the id that removes it.
  std::vector<std::pair<int64_t, std::function<void(const Tensor&)>>> post_accumulate_hooks;
  // Tensor.grad_dtype on a leaf: kGradDtypeOwn (torch's default: the tensor's dtype), a dtype that AccumulateGrad
  // casts incoming gradients to, or kGradDtypeAny (None: gradients keep theirs).
  ScalarType grad_dtype = kGradDtypeOwn;
  static constexpr ScalarType kGradDtypeOwn = ScalarType::Undefined;
  static constexpr ScalarType kGradDtypeAny = static_cast<ScalarType>(-1);
};

AutogradMeta* meta(const Tensor& t);          // null when t has none

// Variable._execution_engine.queue_callback: fn runs when the backward pass that is running on this thread has
// finished every node (in the order queued; a callback may queue more). Outside a backward pass: RuntimeError.
void queue_callback(std::function<void()> fn);
AutogradMeta& materialize_meta(const Tensor& t);
bool requires_grad(const Tensor& t);           // requires_grad flag or grad_fn
bool is_leaf(const Tensor& t);
std::shared_ptr<Node> grad_fn(const Tensor& t);  // for a view, made again when the memory changed since
void set_requires_grad(const Tensor& t, bool value);
// A tensor over the same memory with no autograd history.
Tensor detach(const Tensor& t);

// Grad mode (thread-local): no_grad, enable_grad, set_grad_enabled.
bool grad_mode_enabled();
void set_grad_mode(bool enabled);
struct GradModeGuard {
  explicit GradModeGuard(bool enabled) : previous(grad_mode_enabled()) { set_grad_mode(enabled); }
  ~GradModeGuard() { set_grad_mode(previous); }
  bool previous;
};

struct OutputInfo {  // what a zero gradient of one forward output looks like
  std::vector<int64_t> sizes;
  ScalarType dtype = ScalarType::Float;
  Device device;
};

struct Node : std::enable_shared_from_this<Node> {
  Node();
  virtual ~Node() = default;
  virtual std::string name() const = 0;
  // grads[i]: the gradient of forward output i (zeros where none flowed); returns one gradient per next edge.
  virtual variable_list apply(variable_list&& grads) = 0;
  // Frees saved tensors once the graph has been run without retain_graph.
  virtual void release_variables() {}
  // _saved_<name> for Python: a new reference, or nullptr when this node saves nothing by that name.
  virtual PyObject* saved_attribute(const std::string& name) const { return nullptr; }
  virtual std::vector<std::string> saved_names() const { return {}; }

  std::vector<Edge> next_edges;
  std::vector<OutputInfo> outputs;  // one per forward output
  uint64_t sequence_nr;
  bool released = false;
  std::vector<std::pair<uint32_t, TensorHook>> tensor_pre_hooks;  // (input_nr, hook): Tensor.register_hook
  std::vector<PyObject*> python_hooks;     // Node.register_hook(fn(grad_inputs, grad_outputs))
  std::vector<PyObject*> python_prehooks;  // Node.register_prehook(fn(grad_outputs))
};

// Accumulates into a leaf's .grad.
struct AccumulateGrad : Node {
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "AccumulateGrad"; }
  variable_list apply(variable_list&& grads) override;
  Tensor variable;
};

// An op without a derivative formula: fine until a gradient must flow through it.
struct NotImplementedBackward : Node {
  explicit NotImplementedBackward(std::string op) : op(std::move(op)) {}
  std::string name() const override { return "NotImplemented"; }
  variable_list apply(variable_list&& grads) override;
  std::string op;
};

// The edge a gradient for `t` flows into: its grad_fn, or its leaf accumulator; invalid when t needs no grad.
Edge gradient_edge(const Tensor& t);
// Whether an op with these inputs must record a node (grad mode on and some input requires grad).
bool compute_requires_grad(std::initializer_list<const Tensor*> inputs);
bool compute_requires_grad(const std::vector<Tensor>& inputs);
// Points output `t` (output number `nr` of `node`) at the node, and records its shape for zero gradients.
void set_history(const Tensor& t, const std::shared_ptr<Node>& node, uint32_t nr);
// An in-place op on a leaf that requires grad (in grad mode) is an error, as in torch.
void check_inplace(const char* op, const Tensor& self);
// An in-place op that would give part of a larger tensor a history when that tensor is not a tracked view (its
// base has no AutogradMeta, so nothing would tell the base): an error naming the way out.
void check_inplace_into_part(const char* op, const Tensor& self);
// Records `result` of a view op as a view of `self` (of self's base when self is a view), `replay` making it from
// self. Only tensors over self's memory become views (reshape may copy).
void make_view(const Tensor& result, const Tensor& self, std::function<Tensor(const Tensor&)> replay);
// The history of `self` after in-place op `node` wrote it: set_history for a plain tensor; for a view, the base
// gets a CopySlices node (the base's gradient with the view's part sent through `node`), and the view's own grad_fn
// is made again from the base when next used.
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& node);
// Lets views of `t` be tracked (gives it an AutogradMeta): `buf[i] = x` with x requiring grad.
void track_views(const Tensor& t);

// The base's gradient after an in-place op on one of its views: the view's part of the incoming gradient goes
// through the op's node `fn` (whose first output is the gradient of the view's old values); fn's other outputs are
// this node's outputs 1.., for the op's other inputs.
struct CopySlices : Node {
  CopySlices(std::function<Tensor(const Tensor&)> replay, std::shared_ptr<Node> fn);
  std::string name() const override { return "CopySlices"; }
  variable_list apply(variable_list&& grads) override;
  void release_variables() override { fn->release_variables(); }
  // How the view is made from the base (not the base itself: the base's grad_fn is this node, so holding the base
  // would be a reference cycle).
  std::function<Tensor(const Tensor&)> replay;
  std::shared_ptr<Node> fn;
};

// A tensor saved for backward, with the version it had; unpacking after an in-place change is torch's error.
class SavedVariable {
 public:
  SavedVariable() = default;
  // An in-place op's output is saved before the op's C++ API bumps the version once more (inplace_output).
  SavedVariable(const Tensor& t, bool is_output, bool inplace_output = false);
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  void reset() {
    data_ = Tensor();
    grad_fn_.reset();
    released_ = true;
  }
  bool defined() const { return data_.defined(); }
  const Tensor& data() const { return data_; }

 private:
  Tensor data_;  // an output is saved as a detached alias (its grad_fn is the owner: no cycle)
  uint32_t version_ = 0;
  bool is_output_ = false;
  bool released_ = false;
  bool was_defined_ = false;
  bool requires_grad_ = false;
  uint32_t output_nr_ = 0;
  // For inputs with history, re-attached for create_graph. Held: a copy saved for an in-place op (clone_self) is
  // the only owner of its CloneBackward. No cycle: a node saves inputs made by earlier nodes, never its own outputs.
  std::shared_ptr<Node> grad_fn_;
  Edge leaf_edge_;
};

// Engine: runs the graph from `roots` (with `grad_roots`, ones for scalars when undefined). With `inputs`, returns
// their gradients instead of accumulating (autograd.grad); otherwise accumulates into leaves and returns nothing.
variable_list run_backward(const variable_list& roots, const variable_list& grad_roots, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool allow_unused);

// Used by the generated Autograd kernels and nodes.
OutputInfo info_of(const Tensor& t);
inline bool any_valid(const std::vector<Edge>& edges, size_t offset, size_t count) {
  for (size_t i = offset; i < offset + count && i < edges.size(); ++i) {
    if (edges[i].valid()) return true;
  }
  return false;
}
// A gradient as the input needs it: broadcast dims summed away, in the input's dtype.
Tensor finish_grad(const Tensor& grad, const OutputInfo& input);
// set_history for a differentiable output. As in torch, an integer or bool result of an op whose inputs require
// grad (`x.sum(dtype=int64)`) is a RuntimeError, except for conversions (`converts`: _to_copy, copy_), whose such
// results stay plain tensors.
void set_differentiable_history(const Tensor& t, const std::shared_ptr<Node>& node, uint32_t nr,
                                bool converts = false);
// Python values of saved fields (Node._saved_*), defined with the Python bindings.
PyObject* saved_to_python(const Tensor& t);
PyObject* saved_to_python(const Scalar& v);
PyObject* saved_to_python(int64_t v);
PyObject* saved_to_python(double v);
PyObject* saved_to_python(bool v);
PyObject* saved_to_python(const std::vector<int64_t>& v);
PyObject* saved_to_python(ScalarType v);
PyObject* saved_to_python(const std::string& v);
PyObject* saved_none();
template <typename T>
PyObject* saved_to_python(const std::optional<T>& v) {
  return v ? saved_to_python(*v) : saved_none();
}

// Formula helpers.
Tensor sum_to(const Tensor& grad, const std::vector<int64_t>& sizes);  // undoes broadcasting
Tensor sum_backward(const Tensor& grad, const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims,
                    bool keepdim);  // grad of a sum over dims (all when empty), expanded back to `sizes`
Tensor unsqueeze_dims(const Tensor& grad, const std::vector<int64_t>& dims, int64_t ndim);
int64_t numel_of(const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims);
Tensor mean_backward(const Tensor& grad, const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims,
                     bool keepdim);
Tensor var_mean_backward(const Tensor& grad_var, const Tensor& grad_mean, const Tensor& self,
                         const std::optional<std::vector<int64_t>>& dim, const std::optional<Scalar>& correction,
                         bool keepdim);
Tensor tanh_backward(const Tensor& grad, const Tensor& result);
Tensor sigmoid_backward(const Tensor& grad, const Tensor& result);
// 1 / (self^2 + other^2) for atan2's gradients, 0 where that sum is 0 (torch's: the gradient at the origin is 0)
Tensor atan2_recip(const Tensor& self, const Tensor& other);
Tensor threshold_backward(const Tensor& grad, const Tensor& result);  // relu: 0 where result <= 0 (NaN passes)
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result);
Tensor softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim);
Tensor log_softmax_backward(const Tensor& grad, const Tensor& result, int64_t dim);
// zeros of `sizes` with grad added at `index` along dim (the adjoint of gather / index_select / max.dim).
Tensor gather_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim, const Tensor& index);
Tensor index_select_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim, const Tensor& index);
Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                const std::vector<int64_t>& sizes, bool keepdim);
// Views: the gradient of the base, zero outside the viewed elements.
Tensor slice_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step);
Tensor select_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim, int64_t index);
Tensor diagonal_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t offset, int64_t dim1,
                         int64_t dim2);
Tensor permute_backward(const Tensor& grad, const std::vector<int64_t>& dims);
Tensor zeros_like_grad(const Tensor& grad);
// Complex numbers (torch's convention: the gradient of a real loss L with respect to z = x + iy is dL/dx + i dL/dy,
// so the chain rule through a product multiplies by the other factor's conjugate). A real tensor is its own.
Tensor conj_if_complex(const Tensor& t);
Tensor acosh_backward(const Tensor& grad, const Tensor& self);
// abs: grad * sign(self) for real self; grad * self / |self| (0 at 0) for complex self.
Tensor abs_backward(const Tensor& grad, const Tensor& self);
// The FFTs' adjoints (torch's fft_r2c_backward and fft_c2r_backward).
Tensor fft_r2c_backward(const Tensor& grad, const std::vector<int64_t>& dim, int64_t normalization, bool onesided,
                        const std::vector<int64_t>& self_sizes);
Tensor fft_c2r_backward(const Tensor& grad, const std::vector<int64_t>& dim, int64_t normalization);
// amax/amin (and max()/min()): the gradient shared evenly among the elements equal to the result.
Tensor amax_backward(const Tensor& grad, const Tensor& self, const Tensor& result, const std::vector<int64_t>& dims,
                     bool keepdim);
// maximum/minimum/fmax/fmin: for `self` (for_self) or `other`; ties split the gradient in half; the f- forms send
// it to the operand that is not NaN.
Tensor extreme_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool is_max, bool for_self,
                        bool nan_ignoring);
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, std::optional<int64_t> dim,
                     bool keepdim);
Tensor reverse_cumsum(const Tensor& grad, int64_t dim);
Tensor cumprod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim);
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max, int which);
Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                            const std::string& approximate);
Tensor elu_backward(const Tensor& grad, const Tensor& self, const Scalar& alpha, const Scalar& scale,
                    const Scalar& input_scale);
Tensor softplus_backward(const Tensor& grad, const Tensor& self, const Scalar& beta, const Scalar& threshold);
Tensor silu_backward(const Tensor& grad, const Tensor& self);
Tensor silu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& x);
Tensor mish_backward(const Tensor& grad, const Tensor& self);
Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps);
// Special functions (special_math.h): the limits at 0 where the closed forms divide by x (i1, sinc), sgn's
// rotation for complex numbers (zero for real ones), copysign's +-1.
Tensor i1_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor i1e_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
// A formula for an input whose derivative is not implemented (igamma's and zeta's first argument, as in torch):
// raises NotImplementedError naming it when a gradient for that input is asked for.
Tensor not_implemented_grad(const char* what);
Tensor sinc_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor sgn_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor copysign_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor hardswish_backward(const Tensor& grad, const Tensor& self);
// _scatter_reduce_ with amax or amin: the gradient of each result shared by the values equal to it (self's when
// for_self, else src's); prod raises NotImplementedError.
Tensor scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index,
                               const Tensor& src, const std::string& reduce, const Tensor& result, bool for_self);
// max()/min() of all elements: grad shared evenly by the elements equal to the result (NaN to a NaN result).
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor hardsigmoid_backward(const Tensor& grad, const Tensor& self);
Tensor hardtanh_backward(const Tensor& grad, const Tensor& self, const Scalar& min_val, const Scalar& max_val);
Tensor leaky_relu_backward(const Tensor& grad, const Tensor& self, const Scalar& negative_slope);
Tensor threshold_backward(const Tensor& grad, const Tensor& self, const Scalar& threshold);
Tensor glu_halves_backward(const Tensor& grad, const Tensor& a, const Tensor& b, int64_t which);
Tensor shrink_backward(const Tensor& grad, const Tensor& self, const Scalar& lambd);
// grad where `keep` is true, zero elsewhere (keep: a bool tensor broadcastable to grad).
Tensor grad_where(const Tensor& grad, const Tensor& keep);
// Tensor[idx]: zeros of `sizes` with grad added where _index_front read (repeated indices accumulate).
Tensor index_front_backward(const Tensor& grad, const std::vector<int64_t>& sizes, const std::vector<Tensor>& indices,
                            const std::vector<int64_t>& dims);
// Tensor[idx] = v: the incoming gradient with zeros where values were written.
Tensor index_put_front_backward(const Tensor& grad, const std::vector<Tensor>& indices,
                                const std::vector<int64_t>& dims);
// cat: the incoming gradient cut along dim into the inputs' sizes (1-D empty inputs get empty gradients).
variable_list cat_backward(const Tensor& grad, const std::vector<OutputInfo>& inputs, int64_t dim);
std::vector<int64_t> negated(const std::vector<int64_t>& v);
Tensor one_minus(const Tensor& t);  // 1 - t
// index_copy_: the incoming gradient with zeros in the slices at `index` along dim.
Tensor index_fill_zero(const Tensor& grad, int64_t dim, const Tensor& index);  // pad's backward pads by the negated amounts

}  // namespace yaten::autograd
