#include "autograd/autograd.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/view_geometry.h"
#include "core/error.h"
#include "profiler/profiler.h"
#include "yaten/ops/_to_copy.h"
#include "yaten/ops/add.h"
#include "yaten/ops/any.h"
#include "yaten/ops/isnan.h"
#include "yaten/ops/as_strided.h"
#include "yaten/ops/clone.h"
#include "yaten/ops/contiguous.h"
#include "yaten/ops/real.h"
#include "yaten/ops/copy.h"
#include "yaten/ops/expand.h"
#include "yaten/ops/fill.h"
#include "yaten/ops/full.h"
#include "yaten/ops/reshape.h"
#include "yaten/ops/sum.h"
#include "yaten/ops/unsqueeze.h"
#include "yaten/ops/zeros.h"

namespace yaten::autograd {

namespace {

// An autograd node's run as a profiler event ("MulBackward0"), when a profile is running, and as a span of the
// dispatch trace (YATEN_SHOW_DISPATCH_TRACE=1), so both show the ops a backward runs under its node.
struct ProfiledNode {
  bool on;
  explicit ProfiledNode(const Node& n)
      : on(profiler::is_profiling() && profiler::push_range(n.name(), profiler::EventKind::Backward)) {
    detail::trace_enter_span("backward", n.name());
  }
  ~ProfiledNode() {
    detail::trace_leave_span();
    if (on) profiler::pop_range();
  }
};
thread_local bool t_grad_mode = true;
std::atomic<uint64_t> g_sequence{0};
}  // namespace

bool grad_mode_enabled() { return t_grad_mode; }
void set_grad_mode(bool enabled) { t_grad_mode = enabled; }

Node::Node() : sequence_nr(g_sequence.fetch_add(1, std::memory_order_relaxed)) {}

AutogradMeta* meta(const Tensor& t) { return t.defined() ? t.impl()->autograd_meta() : nullptr; }
AutogradMeta& materialize_meta(const Tensor& t) {
  if (!t.impl()->autograd_meta()) t.impl()->set_autograd_meta(std::make_shared<AutogradMeta>());
  return *t.impl()->autograd_meta();
}
namespace {
uint32_t version_of(const Tensor& t) { return t.impl()->storage()->version(); }

// A view whose memory changed since its grad_fn was set gets a new one: the view ops replayed on the base.
void refresh_view(const Tensor& t, AutogradMeta& m) {
  if (!m.view || m.attr_version == version_of(t)) return;
  m.attr_version = version_of(t);
  if (m.view->made_in_no_grad) return;
  const Tensor& base = m.view->base;
  const AutogradMeta* bm = meta(base);
  if (!bm || !(bm->requires_grad || bm->grad_fn)) {
    m.grad_fn = nullptr;
    return;
  }
  GradModeGuard on(true);
  const Tensor fresh = m.view->replay(base);
  const AutogradMeta* fm = meta(fresh);
  m.grad_fn = fm ? fm->grad_fn : nullptr;
  m.output_nr = fm ? fm->output_nr : 0;
}
}  // namespace

void view_geometry_changed(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (m == nullptr || !m->view) return;
  auto info = std::make_shared<ViewInfo>(*m->view);
  info->replay = [size = t.sizes(), stride = t.strides(), offset = t.storage_offset()](const Tensor& base) {
    return yaten::as_strided(base, size, stride, offset);
  };
  m->view = std::move(info);
  m->attr_version = version_of(t) - 1;  // its grad_fn is made again when next read
}

bool requires_grad(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return false;
  if (m->requires_grad) return true;
  refresh_view(t, *m);
  return m->grad_fn != nullptr;
}
bool is_leaf(const Tensor& t) { return grad_fn(t) == nullptr; }
std::shared_ptr<Node> grad_fn(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return nullptr;
  refresh_view(t, *m);
  return m->grad_fn;
}
void set_requires_grad(const Tensor& t, bool value) {
  if (!value) {
    YATEN_CHECK(is_leaf(t), RuntimeError, "you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = "
                "var.detach().");
    if (meta(t)) meta(t)->requires_grad = false;
    return;
  }
  YATEN_CHECK(is_differentiable_dtype(t.dtype()), RuntimeError, "only Tensors of floating point and complex dtype "
              "can require gradients (got ", dtype_name(t.dtype()), ")");
  materialize_meta(t).requires_grad = true;
}
Tensor detach(const Tensor& t) {
  const TensorImpl* impl = t.impl();
  return Tensor(std::make_shared<TensorImpl>(impl->storage(), impl->dtype(), impl->sizes(), impl->strides(),
                                             impl->storage_offset()));
}

AccumulateGrad::AccumulateGrad(Tensor v) : variable(std::move(v)) { outputs.push_back({variable.sizes(),
                                                                                     variable.dtype(),
                                                                                     variable.device()}); }

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor g = grads[0];
  if (!g.defined()) return {};
  AutogradMeta& m = materialize_meta(variable);
  if (m.grad_dtype != AutogradMeta::kGradDtypeOwn && m.grad_dtype != AutogradMeta::kGradDtypeAny &&
      g.dtype() != m.grad_dtype) {  // Tensor.grad_dtype set: incoming gradients become that dtype, as torch's engine
    g = yaten::_to_copy(g, m.grad_dtype, std::nullopt);
  }
  for (const TensorHook& hook : m.leaf_hooks) {
    Tensor replaced = hook(g);
    if (replaced.defined()) g = replaced;
  }
  if (!m.grad.defined()) {
    // torch's layout contract: .grad is dense as its tensor is. A gradient with overlapping elements (a sum's
    // backward hands on an expanded view) is copied, so that in-place updates of .grad (an optimizer's, clipping's)
    // work; a contiguous one, or one laid out as the tensor is, is kept as it is.
    if (!g.is_contiguous() && g.strides() != variable.strides()) g = yaten::contiguous(g);
    m.grad = grad_mode_enabled() ? g : detach(g);
  } else if (grad_mode_enabled()) {
    m.grad = yaten::add(m.grad, g, Scalar(int64_t(1)));  // create_graph: keep the sum differentiable
  } else {
    m.grad = yaten::add(m.grad, g, Scalar(int64_t(1)));
  }
  if (!m.post_accumulate_hooks.empty()) {
    // A copy: a hook may register or remove hooks (DDP's rebuild of its buckets does).
    const auto hooks = m.post_accumulate_hooks;
    for (const auto& [id, hook] : hooks) hook(variable);
  }
  return {};
}

variable_list NotImplementedBackward::apply(variable_list&&) {
  YATEN_FAIL(RuntimeError, "derivative for ", op, " is not implemented");
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return {};
  refresh_view(t, *m);
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  if (!m->requires_grad) return {};
  std::shared_ptr<Node> acc = m->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    m->grad_accumulator = acc;
  }
  return {acc, 0};
}

bool compute_requires_grad(std::initializer_list<const Tensor*> inputs) {
  if (!grad_mode_enabled()) return false;
  for (const Tensor* t : inputs) {
    if (requires_grad(*t)) return true;
  }
  return false;
}
bool compute_requires_grad(const std::vector<Tensor>& inputs) {
  if (!grad_mode_enabled()) return false;
  for (const Tensor& t : inputs) {
    if (requires_grad(t)) return true;
  }
  return false;
}

extern std::atomic<int> g_anomaly;  // anomaly mode, defined with the engine below
extern std::function<void(Node&)> g_anomaly_record;

void set_history(const Tensor& t, const std::shared_ptr<Node>& node, uint32_t nr) {
  if (!t.defined()) return;
  if (g_anomaly.load(std::memory_order_relaxed) != 0 && g_anomaly_record) g_anomaly_record(*node);
  AutogradMeta& m = materialize_meta(t);
  m.grad_fn = node;
  m.output_nr = nr;
  m.attr_version = version_of(t);
  if (node->outputs.size() <= nr) node->outputs.resize(nr + 1);
  node->outputs[nr] = {t.sizes(), t.dtype(), t.device()};
}

void check_inplace(const char* op, const Tensor& self) {
  if (!grad_mode_enabled()) return;
  const AutogradMeta* m = meta(self);
  if (!m) return;
  YATEN_CHECK(!(m->requires_grad && !m->grad_fn), RuntimeError, op, ": a leaf Variable that requires grad is "
              "being used in an in-place operation.");
  if (m->view) {
    const AutogradMeta* bm = meta(m->view->base);
    YATEN_CHECK(!(bm && bm->requires_grad && !bm->grad_fn), RuntimeError, op, ": a view of a leaf Variable that "
                "requires grad is being used in an in-place operation.");
    YATEN_CHECK(!(m->view->made_in_no_grad && requires_grad(m->view->base)), RuntimeError, op, ": a view was created "
                "in no_grad mode and is being modified inplace with grad mode enabled. Given that this use case is "
                "ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the "
                "inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both "
                "outside (if you want the inplace to be tracked).");
  }
}

void check_inplace_into_part(const char* op, const Tensor& self) {
  if (requires_grad(self)) return;
  const AutogradMeta* m = meta(self);
  if (m && m->view) return;  // a tracked view: its base gets a CopySlices node
  const auto& storage = self.impl()->storage();
  const bool whole = self.storage_offset() == 0 && self.is_contiguous() &&
                     size_t(self.numel()) * element_size(self.dtype()) == storage->nbytes();
  YATEN_CHECK(whole, NotImplementedError, op, ": writing a tensor that requires grad into part of a tensor that "
              "autograd does not track (a view made from a tensor outside autograd) is not supported; build the "
              "result out of place (cat, where, pad), or index the whole tensor with buf[...] = value");
}

void track_views(const Tensor& t) {
  if (is_differentiable_dtype(t.dtype())) materialize_meta(t);
}

void make_view(const Tensor& result, const Tensor& self, std::function<Tensor(const Tensor&)> replay) {
  if (!result.defined() || !is_differentiable_dtype(result.dtype()) || result.impl() == self.impl() ||
      result.impl()->storage() != self.impl()->storage()) {
    return;
  }
  const AutogradMeta* sm = meta(self);
  auto info = std::make_shared<ViewInfo>();
  info->made_in_no_grad = !grad_mode_enabled() || (sm && sm->view && sm->view->made_in_no_grad);
  if (sm && sm->view) {
    info->base = sm->view->base;
    info->replay = [outer = std::move(replay), inner = sm->view->replay](const Tensor& b) { return outer(inner(b)); };
  } else {
    info->base = self;
    info->replay = std::move(replay);
  }
  AutogradMeta& m = materialize_meta(result);
  m.view = std::move(info);
  m.attr_version = version_of(result);
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& node) {
  AutogradMeta* m = meta(self);
  if (!m || !m->view) {
    set_differentiable_history(self, node, 0, /*converts=*/true);  // copy_ into an integer tensor stays plain
    return;
  }
  for (int64_t d = 0; d < self.dim(); ++d) {
    YATEN_CHECK(!(self.strides()[d] == 0 && self.sizes()[d] > 1), RuntimeError, "unsupported operation: more than "
                "one element of the written-to tensor refers to a single memory location. Please clone() the tensor "
                "before performing the operation.");
  }
  const Tensor& base = m->view->base;
  auto copy_slices = std::make_shared<CopySlices>(m->view->replay, node);
  copy_slices->next_edges.push_back(gradient_edge(base));
  for (size_t i = 1; i < node->next_edges.size(); ++i) copy_slices->next_edges.push_back(node->next_edges[i]);
  set_history(base, copy_slices, 0);
  // The view's grad_fn is made from the base's new history when next asked for (the op bumps the version next).
  m->grad_fn = nullptr;
  m->attr_version = version_of(self);
}

CopySlices::CopySlices(std::function<Tensor(const Tensor&)> r, std::shared_ptr<Node> f)
    : replay(std::move(r)), fn(std::move(f)) {}

variable_list CopySlices::apply(variable_list&& grads) {
  // A fresh copy of the base's gradient; the view ops replayed on it find the part the in-place op wrote.
  Tensor result = yaten::clone(grads[0]);
  Tensor part = replay(result);
  YATEN_CHECK(part.impl()->storage() == result.impl()->storage(), RuntimeError, "CopySlices: the view could not be "
              "made again as a view of the gradient");
  variable_list through = fn->apply({yaten::clone(part)});
  variable_list out(next_edges.size());
  if (through.size() > 0 && through[0].defined()) {
    yaten::copy_(part, through[0]);
  } else {
    yaten::fill_(part, Scalar(0.0));  // the op overwrote the view: its old values get no gradient
  }
  out[0] = result;
  for (size_t i = 1; i < out.size() && i < through.size(); ++i) out[i] = through[i];
  return out;
}

SavedVariable::SavedVariable(const Tensor& t, bool is_output, bool inplace_output) {
  if (!t.defined()) return;
  was_defined_ = true;
  is_output_ = is_output;
  version_ = t.impl()->storage()->version() + (inplace_output ? 1 : 0);
  const AutogradMeta* m = meta(t);
  requires_grad_ = m && (m->requires_grad || m->grad_fn);
  if (is_output || !m) {
    data_ = is_output ? detach(t) : t;  // an output's grad_fn is the node saving it: keep no reference back
    if (m) output_nr_ = m->output_nr;
  } else {
    data_ = detach(t);
    grad_fn_ = m->grad_fn;
    output_nr_ = m->output_nr;
    if (!m->grad_fn && m->requires_grad) leaf_edge_ = gradient_edge(t);
  }
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& owner) const {
  if (!was_defined_) return Tensor();
  YATEN_CHECK(!released_, RuntimeError, "Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Saved intermediate values of the graph are freed when you "
              "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
              "graph a second time or if you need to access saved tensors after calling backward.");
  const uint32_t now = data_.impl()->storage()->version();
  YATEN_CHECK(now == version_, RuntimeError, "one of the variables needed for gradient computation has been modified "
              "by an inplace operation: [", dtype_name(data_.dtype()), " tensor] is at version ", now,
              "; expected version ", version_, " instead.");
  if (!requires_grad_ || !grad_mode_enabled()) return data_;
  // create_graph: the saved value takes part in the new graph with its original history.
  Tensor out = detach(data_);
  AutogradMeta& m = materialize_meta(out);
  if (is_output_) {
    m.grad_fn = owner;
    m.output_nr = output_nr_;
  } else if (grad_fn_) {
    m.grad_fn = grad_fn_;
    m.output_nr = output_nr_;
  } else if (leaf_edge_.valid()) {
    m.grad_fn = nullptr;
    m.requires_grad = true;
    m.grad_accumulator = leaf_edge_.fn;
    // the accumulator writes into the original leaf
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ engine

namespace {
Tensor zeros_for(const OutputInfo& info) { return yaten::zeros(info.sizes, info.dtype, info.device); }

void call_tensor_hooks(Node& node, variable_list& grads) {
  for (auto& [nr, hook] : node.tensor_pre_hooks) {
    if (nr < grads.size() && grads[nr].defined()) {
      Tensor replaced = hook(grads[nr]);
      if (replaced.defined()) grads[nr] = replaced;
    }
  }
}
}  // namespace

// Python-side node hooks are run through these (set by the Python module; null without it).
std::function<void(Node&, variable_list&)> g_run_prehooks;
std::function<void(Node&, variable_list&, const variable_list&)> g_run_posthooks;

// Anomaly mode (torch.autograd.set_detect_anomaly / detect_anomaly): 0 off, 1 on, 2 on with NaN checks. The Python
// layer records each node's forward traceback as the node gets its outputs (g_anomaly_record, from set_history) and
// shows it when that node's backward fails (g_anomaly_report); with NaN checks a NaN in a node's output fails it.
std::atomic<int> g_anomaly{0};
std::function<void(Node&)> g_anomaly_record;
std::function<void(Node&)> g_anomaly_report;

namespace {
// The callbacks of the backward pass running on this thread (null outside one); a nested backward (a hook that
// calls backward) has its own list.
thread_local std::vector<std::function<void()>>* t_final_callbacks = nullptr;
}  // namespace

static variable_list run_graph(const variable_list& roots, const variable_list& grad_roots, bool keep_graph,
                               bool create_graph, const variable_list& inputs, bool allow_unused);

void queue_callback(std::function<void()> fn) {
  YATEN_CHECK(t_final_callbacks != nullptr, RuntimeError, "queue_callback(): no backward pass is running on this "
              "thread; a final callback can only be queued from a hook during backward");
  t_final_callbacks->push_back(std::move(fn));
}

variable_list run_backward(const variable_list& roots, const variable_list& grad_roots, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool allow_unused) {
  std::vector<std::function<void()>> callbacks;
  std::vector<std::function<void()>>* const outer_callbacks = t_final_callbacks;
  t_final_callbacks = &callbacks;
  struct Restore {
    std::vector<std::function<void()>>* outer;
    ~Restore() { t_final_callbacks = outer; }
  } restore{outer_callbacks};
  variable_list captured = run_graph(roots, grad_roots, keep_graph, create_graph, inputs, allow_unused);
  // Index, not iterator: a callback may queue another.
  for (size_t i = 0; i < callbacks.size(); ++i) {
    std::function<void()> fn = std::move(callbacks[i]);
    fn();
  }
  return captured;
}

// The graph's execution: run_backward without its final callbacks.
static variable_list run_graph(const variable_list& roots, const variable_list& grad_roots, bool keep_graph,
                               bool create_graph, const variable_list& inputs, bool allow_unused) {
  GradModeGuard grad_mode(create_graph);
  std::vector<Edge> root_edges;
  variable_list root_grads;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    Edge e = gradient_edge(r);
    YATEN_CHECK(e.valid(), RuntimeError, "element ", i, " of tensors does not require grad and does not have a "
                "grad_fn");
    Tensor g = i < grad_roots.size() ? grad_roots[i] : Tensor();
    if (!g.defined()) {
      YATEN_CHECK(r.numel() == 1, RuntimeError, "grad can be implicitly created only for scalar outputs");
      YATEN_CHECK(!is_complex(r.dtype()), RuntimeError, "grad can be implicitly created only for real scalar outputs "
                  "but got ", dtype_name(r.dtype()));
      g = yaten::full(r.sizes(), Scalar(1.0), r.dtype(), r.device());
    } else {
      YATEN_CHECK(g.sizes() == r.sizes(), RuntimeError, "Mismatch in shape: grad_output[", i, "] has a shape of ",
                  g.dim(), "-D that does not match the output's shape");
    }
    root_edges.push_back(e);
    root_grads.push_back(g);
  }
  // autograd.grad: where the inputs' gradients arrive, captured instead of accumulated.
  std::vector<Edge> capture_edges;
  for (const Tensor& t : inputs) {
    Edge e = gradient_edge(t);
    YATEN_CHECK(e.valid(), RuntimeError, "One of the differentiated Tensors does not require grad");
    capture_edges.push_back(e);
  }
  const bool capturing = !inputs.empty();
  // Dependencies: how many edges point at each node from the part of the graph reachable from the roots.
  std::unordered_map<Node*, int> deps;
  std::unordered_map<Node*, std::shared_ptr<Node>> keep;
  std::vector<Node*> stack;
  for (const Edge& e : root_edges) {
    if (!keep.count(e.fn.get())) {
      keep[e.fn.get()] = e.fn;
      stack.push_back(e.fn.get());
    }
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges) {
      if (!e.valid()) continue;
      ++deps[e.fn.get()];
      if (!keep.count(e.fn.get())) {
        keep[e.fn.get()] = e.fn;
        stack.push_back(e.fn.get());
      }
    }
  }
  // With captures, only nodes that lead to a captured edge need to run.
  std::unordered_set<Node*> needed;
  if (capturing) {
    std::unordered_set<Node*> targets;
    for (const Edge& e : capture_edges) targets.insert(e.fn.get());
    std::unordered_map<Node*, int> memo;  // 0 unknown, 1 needed, 2 not
    std::function<bool(Node*)> leads = [&](Node* n) -> bool {
      int& state = memo[n];
      if (state) return state == 1;
      state = 2;
      bool any = false;
      for (const Edge& e : n->next_edges) {
        if (e.valid() && (targets.count(e.fn.get()) || leads(e.fn.get()))) any = true;
      }
      if (any) state = 1;
      return any;
    };
    for (auto& [n, ptr] : keep) {
      if (leads(n)) needed.insert(n);
    }
  }
  variable_list captured(inputs.size());
  std::unordered_map<Node*, variable_list> buffers;
  // A gradient's memory handed to two leaves (add's backward returns its grad for both inputs; a view's backward a
  // view of it) would become two .grads sharing memory, and an in-place update of one (an optimizer's,
  // clip_grad_norm_'s) would change the other: the second leaf gets a copy, as torch's AccumulateGrad copies a
  // gradient whose memory something else still holds.
  std::unordered_set<const StorageImpl*> handed_to_leaves;
  const auto accumulate = [&](const Edge& e, const Tensor& g) {
    variable_list& buf = buffers[e.fn.get()];
    if (buf.size() < std::max<size_t>(e.fn->outputs.size(), e.input_nr + 1)) {
      buf.resize(std::max<size_t>(e.fn->outputs.size(), e.input_nr + 1));
    }
    if (!g.defined()) return;
    Tensor& slot = buf[e.input_nr];
    if (slot.defined()) {
      slot = yaten::add(slot, g, Scalar(int64_t(1)));
    } else if (dynamic_cast<AccumulateGrad*>(e.fn.get()) != nullptr &&
               !handed_to_leaves.insert(g.impl()->storage().get()).second) {
      slot = yaten::clone(g);
    } else {
      slot = g;
    }
  };
  for (size_t i = 0; i < root_edges.size(); ++i) accumulate(root_edges[i], root_grads[i]);
  auto later = [](Node* a, Node* b) { return a->sequence_nr < b->sequence_nr; };  // newest node first
  std::priority_queue<Node*, std::vector<Node*>, decltype(later)> ready(later);
  std::unordered_set<Node*> queued;
  for (const Edge& e : root_edges) {
    if (deps[e.fn.get()] == 0 && queued.insert(e.fn.get()).second) ready.push(e.fn.get());
  }
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    variable_list grads = std::move(buffers[n]);
    buffers.erase(n);
    grads.resize(std::max<size_t>(grads.size(), n->outputs.size()));
    call_tensor_hooks(*n, grads);
    for (size_t k = 0; k < capture_edges.size(); ++k) {
      const Edge& e = capture_edges[k];
      if (e.fn.get() == n && e.input_nr < grads.size() && grads[e.input_nr].defined()) {
        captured[k] = captured[k].defined() ? yaten::add(captured[k], grads[e.input_nr], Scalar(int64_t(1)))
                                            : grads[e.input_nr];
      }
    }
    const bool run = capturing ? needed.count(n) > 0 : true;
    variable_list outs;
    if (run) {
      const bool any = std::any_of(grads.begin(), grads.end(), [](const Tensor& g) { return g.defined(); });
      if (any) {
        for (size_t k = 0; k < grads.size(); ++k) {
          if (!grads[k].defined() && k < n->outputs.size()) grads[k] = zeros_for(n->outputs[k]);
        }
        YATEN_CHECK(!n->released, RuntimeError, "Trying to backward through the graph a second time (or directly "
                    "access saved tensors after they have already been freed). Saved intermediate values of the graph "
                    "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
                    "backward through the graph a second time or if you need to access saved tensors after calling "
                    "backward.");
        if (g_run_prehooks && !n->python_prehooks.empty()) g_run_prehooks(*n, grads);
        const int anomaly = g_anomaly.load(std::memory_order_relaxed);
        if (anomaly == 0) {
          ProfiledNode profiled(*n);
          outs = n->apply(variable_list(grads));
        } else {
          try {
            ProfiledNode profiled(*n);
            outs = n->apply(variable_list(grads));
          } catch (...) {
            if (g_anomaly_report) g_anomaly_report(*n);
            throw;
          }
          for (size_t k = 0; anomaly == 2 && k < outs.size(); ++k) {
            const Tensor& o = outs[k];
            if (!o.defined() || !is_differentiable_dtype(o.dtype()) || o.numel() == 0) continue;
            const Tensor nan = yaten::_to_copy(yaten::any(yaten::isnan(o)), ScalarType::Bool, Device(DeviceType::CPU));
            if (*nan.data<bool>()) {
              if (g_anomaly_report) g_anomaly_report(*n);
              YATEN_CHECK(false, RuntimeError, "Function '", n->name(), "' returned nan values in its ", k,
                          "th output.");
            }
          }
        }
        if (g_run_posthooks && !n->python_hooks.empty()) g_run_posthooks(*n, outs, grads);
      }
      if (!keep_graph) {
        n->release_variables();
        if (dynamic_cast<AccumulateGrad*>(n) == nullptr) n->released = true;
      }
    }
    for (size_t k = 0; k < n->next_edges.size(); ++k) {
      const Edge& e = n->next_edges[k];
      if (!e.valid()) continue;
      accumulate(e, k < outs.size() ? outs[k] : Tensor());
      if (--deps[e.fn.get()] == 0 && queued.insert(e.fn.get()).second) ready.push(e.fn.get());
    }
  }
  if (capturing) {
    for (size_t k = 0; k < captured.size(); ++k) {
      YATEN_CHECK(captured[k].defined() || allow_unused, RuntimeError, "One of the differentiated Tensors appears to "
                  "not have been used in the graph. Set allow_unused=True if this is the desired behavior.");
    }
  }
  return captured;
}

// ------------------------------------------------------------------------------------------------ helpers

OutputInfo info_of(const Tensor& t) {
  if (!t.defined()) return {};
  return {t.sizes(), t.dtype(), t.device()};
}

Tensor finish_grad(const Tensor& grad, const OutputInfo& input) {
  if (!grad.defined()) return grad;
  Tensor g = grad.sizes() == input.sizes ? grad : sum_to(grad, input.sizes);
  // A copy across dtypes or devices (x.to("cuda"), whose backward is copy_'s "grad") sends the gradient back in the
  // input's own dtype and device, as torch's copy_ backward does.
  // A complex gradient of a real input is its real part (torch's validate_outputs).
  if (is_complex(g.dtype()) && !is_complex(input.dtype)) g = yaten::real(g);
  if (g.dtype() != input.dtype || g.device() != input.device) g = yaten::_to_copy(g, input.dtype, input.device);
  return g;
}

void set_differentiable_history(const Tensor& t, const std::shared_ptr<Node>& node, uint32_t nr, bool converts) {
  if (!t.defined()) return;
  if (!is_differentiable_dtype(t.dtype())) {
    YATEN_CHECK(converts, RuntimeError, node->name(), ": autograd does not support dtype ", dtype_name(t.dtype()),
                " for a result computed from tensors that require grad; ask for a floating dtype, or detach the "
                "inputs (torch's \"Autograd not support dtype\")");
    return;
  }
  set_history(t, node, nr);
}

Tensor sum_to(const Tensor& grad, const std::vector<int64_t>& sizes) {
  if (grad.sizes() == sizes) return grad;
  const int64_t lead = grad.dim() - int64_t(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (sizes[d - lead] == 1 && grad.sizes()[d] != 1)) dims.push_back(d);
  }
  Tensor r = dims.empty() ? grad : yaten::sum(grad, dims, true, std::nullopt);
  return yaten::reshape(r, sizes);
}

Tensor unsqueeze_dims(const Tensor& grad, const std::vector<int64_t>& dims, int64_t ndim) {
  std::vector<int64_t> sorted;
  for (int64_t d : dims) sorted.push_back(d < 0 ? d + ndim : d);
  std::sort(sorted.begin(), sorted.end());
  Tensor r = grad;
  for (int64_t d : sorted) r = yaten::unsqueeze(r, d);
  return r;
}

Tensor sum_backward(const Tensor& grad, const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims,
                    bool keepdim) {
  const int64_t ndim = sizes.size();
  // A 0-d input (dims 0 and -1 name its one element) or a sum over all dims.
  if (ndim == 0 || dims.empty()) return yaten::expand(yaten::reshape(grad, std::vector<int64_t>(ndim, 1)), sizes);
  const Tensor g = keepdim ? grad : unsqueeze_dims(grad, dims, ndim);
  return yaten::expand(g, sizes);
}

int64_t numel_of(const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  if (sizes.empty()) return 1;  // a 0-d input: dims 0 and -1 name its one element
  if (dims.empty()) {
    for (int64_t s : sizes) n *= s;
    return n;
  }
  for (int64_t d : dims) n *= sizes[d < 0 ? d + int64_t(sizes.size()) : d];
  return n;
}

}  // namespace yaten::autograd
