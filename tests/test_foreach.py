"""The multi-tensor ops (_foreach_*, _fused_*, the scaler's _amp_* ops) against torch's CPU build, and against
yaten's own per-tensor ops: the fast path (one pass over the list) must give the per-tensor ops' very bits
(Note [Multi-tensor fast path])."""

from __future__ import annotations

import numpy as np
import pytest

import yaten

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5,), (), (0, 3), (70000,)]  # a 0-dim, an empty and one of several pieces (kGrainSize 32768)
DTYPES = ["float32", "float64", "float16", "bfloat16"]


def pair(dtype, seed=0, positive=False, shapes=SHAPES):
    """A list of tensors of SHAPES as (yaten list, torch list) holding the same values."""
    gen = np.random.default_rng(seed)
    arrays = [gen.standard_normal(s) for s in shapes]
    if positive:
        arrays = [np.abs(a) + 0.5 for a in arrays]
    t = [torch.tensor(a).to(getattr(torch, dtype)) for a in arrays]
    y = [yaten.from_dlpack(x.clone()) if dtype == "bfloat16" else yaten.tensor(x.numpy()) for x in t]
    return y, t


def as_torch(ts):
    return [torch.from_dlpack(t) if t.dtype == yaten.bfloat16 else torch.tensor(t.numpy()) for t in ts]


# float16 and bfloat16: one unit in the last place of torch's, whose add rounds alpha * other differently
REDUCED_TOLERANCE = {torch.float16: dict(rtol=1e-3, atol=1e-3), torch.bfloat16: dict(rtol=1.6e-2, atol=1e-2)}


def assert_lists_equal(ys, ts, exact=False):
    assert len(ys) == len(ts)
    for y, t in zip(as_torch(ys), ts):
        assert y.shape == t.shape and y.dtype == t.dtype
        if exact:
            assert torch.equal(y, t) or (y.isnan() == t.isnan()).all(), (y, t)
        else:
            torch.testing.assert_close(y, t, equal_nan=True, **REDUCED_TOLERANCE.get(t.dtype, {}))


# (name, overload's extra arguments as a function of the lists, whether the op reads 3 lists)
INPLACE = [
    ("_foreach_add_", lambda a, b, c: (1.5,)),
    ("_foreach_add_", lambda a, b, c: (b,)),
    ("_foreach_add_", lambda a, b, c: (b, {"alpha": -0.75})),
    ("_foreach_add_", lambda a, b, c: ([0.5, -1.25, 2, 3, 0.1],)),
    ("_foreach_add_", lambda a, b, c: ("tensor", 0.5, {"alpha": 2})),
    ("_foreach_sub_", lambda a, b, c: (0.25,)),
    ("_foreach_sub_", lambda a, b, c: (b, {"alpha": 0.5})),
    ("_foreach_sub_", lambda a, b, c: ([1, 2, 3, 4, 5],)),
    ("_foreach_mul_", lambda a, b, c: (3.0,)),
    ("_foreach_mul_", lambda a, b, c: (b,)),
    ("_foreach_mul_", lambda a, b, c: ([0.5, 2, -1, 4, 0.125],)),
    ("_foreach_mul_", lambda a, b, c: ("tensor", 0.3)),
    ("_foreach_div_", lambda a, b, c: (7.0,)),
    ("_foreach_div_", lambda a, b, c: (c,)),
    ("_foreach_div_", lambda a, b, c: ([0.5, 2, -1, 4, 3],)),
    ("_foreach_div_", lambda a, b, c: ("tensor", 1.7)),
    ("_foreach_maximum_", lambda a, b, c: (b,)),
    ("_foreach_addcmul_", lambda a, b, c: (b, c)),
    ("_foreach_addcmul_", lambda a, b, c: (b, c, 0.3)),
    ("_foreach_addcmul_", lambda a, b, c: (b, c, [0.1, 0.2, 0.3, 0.4, 0.5])),
    ("_foreach_addcdiv_", lambda a, b, c: (b, c, -0.7)),
    ("_foreach_addcdiv_", lambda a, b, c: (b, c, [0.1, 0.2, 0.3, 0.4, 0.5])),
    ("_foreach_lerp_", lambda a, b, c: (b, 0.3)),
    ("_foreach_lerp_", lambda a, b, c: (b, 0.8)),
    ("_foreach_lerp_", lambda a, b, c: (b, c)),
    ("_foreach_sqrt_", lambda a, b, c: ()),
    ("_foreach_neg_", lambda a, b, c: ()),
    ("_foreach_abs_", lambda a, b, c: ()),
    ("_foreach_exp_", lambda a, b, c: ()),
    ("_foreach_zero_", lambda a, b, c: ()),
]


def call(module, name, self_list, extra, convert):
    args, kwargs = [], {}
    extra = list(extra)
    if extra and extra[0] == "tensor":  # the .Tensor overload: a 0-dim tensor
        value = extra[1]
        args.append(module.tensor(value))
        extra = extra[2:]
    for e in extra:
        if isinstance(e, dict):
            kwargs = e
        else:
            args.append(convert(e))
    return getattr(module, name)(self_list, *args, **kwargs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(INPLACE)), ids=lambda i: f"{INPLACE[i][0]}{i}")
def test_inplace_foreach_matches_torch_and_the_per_tensor_ops(case, dtype):
    name, make = INPLACE[case]
    positive = name in ("_foreach_sqrt_",)
    # the third list divides: kept away from zero
    (ya, ta), (yb, tb), (yc, tc) = pair(dtype, positive=positive), pair(dtype, seed=1), pair(dtype, 2, positive=True)
    extra_y = make(ya, yb, yc)
    extra_t = make(ta, tb, tc)
    assert call(yaten, name, ya, extra_y, lambda e: e) is ya  # the very list, as torch's binding returns it
    call(torch, name, ta, extra_t, lambda e: e)
    assert_lists_equal(ya, ta)
    # the per-tensor ops, one call each, give the same bits as the one pass
    (y2, _), (yb2, _), (yc2, _) = pair(dtype, positive=positive), pair(dtype, seed=1), pair(dtype, 2, positive=True)
    extra2 = make(y2, yb2, yc2)
    for i, t in enumerate(y2):
        per_tensor = [[e[i]] if isinstance(e, list) and isinstance(e[i], yaten.Tensor) else
                      [e[i]] if isinstance(e, list) else e for e in extra2]
        call(yaten, name, [t], per_tensor, lambda e: e)
    assert_lists_equal(ya, as_torch(y2), exact=True)


FUNCTIONAL = [
    ("_foreach_add", lambda b, c: (2.5,)),
    ("_foreach_add", lambda b, c: (b, {"alpha": 3})),
    ("_foreach_sub", lambda b, c: ([1, 2, 3, 4, 5],)),
    ("_foreach_mul", lambda b, c: (b,)),
    ("_foreach_div", lambda b, c: (c,)),
    ("_foreach_maximum", lambda b, c: (b,)),
    ("_foreach_addcmul", lambda b, c: (b, c, 0.5)),
    ("_foreach_addcdiv", lambda b, c: (b, c, [0.1, 0.2, 0.3, 0.4, 0.5])),
    ("_foreach_lerp", lambda b, c: (b, 0.25)),
    ("_foreach_sqrt", lambda b, c: ()),
    ("_foreach_neg", lambda b, c: ()),
    ("_foreach_abs", lambda b, c: ()),
    ("_foreach_exp", lambda b, c: ()),
    ("_foreach_norm", lambda b, c: ()),
    ("_foreach_norm", lambda b, c: (1,)),
]


@pytest.mark.parametrize("case", range(len(FUNCTIONAL)), ids=lambda i: f"{FUNCTIONAL[i][0]}{i}")
def test_functional_foreach_matches_torch(case):
    name, make = FUNCTIONAL[case]
    (ya, ta), (yb, tb), (yc, tc) = pair("float64", positive=True), pair("float64", 1), pair("float64", 2, True)
    out_y = call(yaten, name, ya, make(yb, yc), lambda e: e)
    out_t = call(torch, name, ta, make(tb, tc), lambda e: e)
    assert isinstance(out_y, tuple)
    assert_lists_equal(list(out_y), list(out_t))


def test_functional_foreach_differentiates():
    a = [yaten.tensor([1.0, 2.0], requires_grad=True), yaten.tensor([[3.0]], requires_grad=True)]
    b = [yaten.tensor([0.5, -1.0]), yaten.tensor([[2.0]])]
    out = yaten._foreach_mul(yaten._foreach_add(a, b, alpha=2), 3.0)
    sum(o.sum() for o in out).backward()
    assert a[0].grad.tolist() == [3.0, 3.0] and a[1].grad.tolist() == [[3.0]]
    norms = yaten._foreach_norm(a)
    norms[0].backward()
    assert a[0].grad.tolist() == pytest.approx([3.0 + 1 / 5 ** 0.5, 3.0 + 2 / 5 ** 0.5])


def test_slow_path_indices_and_mixed_lists():
    """Indices off the fast path (a transposed tensor, another dtype, a broadcast operand) run the per-tensor op."""
    base = torch.arange(12.0).reshape(3, 4)
    t = [base.t().contiguous().t(), torch.arange(5.0, dtype=torch.float64), torch.ones(2, 3)]
    o = [torch.full((4, 3), 2.0).t(), torch.arange(5.0), torch.tensor([1.0, 2.0, 3.0])]
    y = [yaten.tensor(x.numpy()) for x in t]
    y[0] = y[0].t().contiguous().t()
    yo = [yaten.tensor(x.contiguous().numpy()) for x in o]
    yo[0] = yaten.full((4, 3), 2.0).t()
    yaten._foreach_add_(y, yo, alpha=0.5)
    torch._foreach_add_(t, o, alpha=0.5)
    assert_lists_equal(y, t)
    ints = [yaten.tensor([1, 2, 3])]
    yaten._foreach_mul_(ints, 3)
    assert ints[0].tolist() == [3, 6, 9]


def test_foreach_errors_are_torchs():
    x = [yaten.ones(2)]
    with pytest.raises(RuntimeError, match="Tensor lists must have the same number of tensors, got 1 and 2"):
        yaten._foreach_add_(x, [yaten.ones(2), yaten.ones(2)])
    with pytest.raises(RuntimeError, match="same number of elements as scalar list"):
        yaten._foreach_add_(x, [1, 2])
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        yaten._foreach_add_([yaten.tensor([1, 2])], 1.5)
    with pytest.raises(RuntimeError, match="scalar tensor expected to be 0 dim"):
        yaten._foreach_mul_(x, yaten.ones(2))
    with pytest.raises(RuntimeError, match="no tensor argument|at least one tensor"):
        yaten._foreach_add_([], 1)
    leaf = yaten.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="does not record gradients.*no_grad"):
        yaten._foreach_mul_([leaf], 2.0)
    with yaten.no_grad():
        yaten._foreach_mul_([leaf], 2.0)
    assert leaf.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(TypeError):
        yaten._foreach_add_(x, "a")


def test_boxed_calls_and_version_counters():
    x = [yaten.ones(3), yaten.ones(2)]
    assert yaten.ops.yaten._foreach_add_.ScalarList(x, [1, 2.5]) is None
    assert x[0].tolist() == [2.0] * 3 and x[1].tolist() == [3.5] * 2
    # a tensor saved for backward goes stale when a multi-tensor op writes it
    a = yaten.tensor([1.0, 2.0], requires_grad=True)
    w = yaten.tensor([3.0, 4.0])
    out = (a * w).sum()
    with yaten.no_grad():
        yaten._foreach_add_([w], 1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()
    frozen = yaten.from_numpy(np.ones(3, dtype=np.float32))
    frozen_array = np.ones(3, dtype=np.float32)
    frozen_array.flags.writeable = False
    frozen = yaten.from_numpy(frozen_array)
    with pytest.raises(RuntimeError, match="read-only|not writable|non-writable"):
        yaten._foreach_add_([frozen], 1.0)


# ------------------------------------------------------------------------------------------------ fused steps

def adam_state(dtype, seed=0, amsgrad=False):
    (p, tp), (g, tg), (m, tm) = pair(dtype, seed), pair(dtype, seed + 1), pair(dtype, seed + 2)
    (v, tv), (vmax, tvmax) = pair(dtype, seed + 3, positive=True), pair(dtype, seed + 4, positive=True)
    steps_t = [torch.tensor(float(3 + i)) for i in range(len(SHAPES))]
    steps_y = [yaten.tensor(float(3 + i)) for i in range(len(SHAPES))]
    if not amsgrad:  # torch wants the list empty then
        vmax, tvmax = [], []
    return [p, g, m, v, vmax, steps_y], [tp, tg, tm, tv, tvmax, steps_t]


@pytest.mark.parametrize("name", ["_fused_adam_", "_fused_adamw_"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("options", [
    dict(lr=0.01, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False),
    dict(lr=0.003, beta1=0.8, beta2=0.99, weight_decay=0.1, eps=1e-6, amsgrad=True, maximize=True),
])
def test_fused_adam_matches_torch(name, dtype, options):
    y, t = adam_state(dtype, amsgrad=options["amsgrad"])
    assert getattr(yaten, name)(*y, **options) is None
    getattr(torch, name)(*t, **options)
    tol = dict(rtol=2e-2, atol=2e-2) if dtype in ("float16", "bfloat16") else dict(rtol=1e-5, atol=1e-6)
    if dtype == "float64":
        tol = dict(rtol=1e-12, atol=1e-14)
    for ys, ts in zip(y[:5], t[:5]):
        for a, b in zip(as_torch(ys), ts):
            torch.testing.assert_close(a, b, **tol)


def test_fused_adam_scaling_and_skipping():
    y, t = adam_state("float32")
    scale_y, scale_t = yaten.tensor([4.0]), torch.tensor([4.0])
    yaten._fused_adamw_(*y, lr=0.01, beta1=0.9, beta2=0.99, weight_decay=0.01, eps=1e-8, amsgrad=False,
                        maximize=False, grad_scale=scale_y, found_inf=yaten.tensor([0.0]))
    torch._fused_adamw_(*t, lr=0.01, beta1=0.9, beta2=0.99, weight_decay=0.01, eps=1e-8, amsgrad=False,
                        maximize=False, grad_scale=scale_t, found_inf=torch.tensor([0.0]))
    for ys, ts in zip(y[:4], t[:4]):  # the gradients are stored unscaled, as torch's
        for a, b in zip(as_torch(ys), ts):
            torch.testing.assert_close(a, b)
    with pytest.raises(RuntimeError, match="max_exp_avg_sqs must be empty when amsgrad is False"):
        yaten._fused_adam_(*y[:4], [yaten.ones(1)] * len(y[0]), y[5], lr=0.01, beta1=0.9, beta2=0.99,
                           weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)
    before = [x.clone() for x in y[0]]
    yaten._fused_adam_(*y, lr=0.01, beta1=0.9, beta2=0.99, weight_decay=0.0, eps=1e-8, amsgrad=False,
                       maximize=False, found_inf=yaten.tensor([1.0]))
    assert all(yaten.equal(a, b) for a, b in zip(before, y[0]))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("options", [
    dict(weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0, nesterov=False, maximize=False, is_first_step=False),
    dict(weight_decay=0.01, momentum=0.9, lr=0.05, dampening=0.0, nesterov=True, maximize=False, is_first_step=True),
    dict(weight_decay=0.0, momentum=0.5, lr=0.05, dampening=0.3, nesterov=False, maximize=True, is_first_step=False),
])
def test_fused_sgd_matches_torch(dtype, options):
    (p, tp), (g, tg), (b, tb) = pair(dtype, 4), pair(dtype, 5), pair(dtype, 6)
    buffers_y = b if options["momentum"] else []
    buffers_t = tb if options["momentum"] else []
    yaten._fused_sgd_(p, g, buffers_y, **options)
    torch._fused_sgd_(tp, tg, buffers_t, **options)
    assert_lists_equal(p, tp)
    if options["momentum"]:
        assert_lists_equal(buffers_y, buffers_t)


def test_fused_step_on_non_contiguous_and_mixed_tensors():
    """Indices off the fast path run on contiguous copies, written back."""
    y, t = adam_state("float32", amsgrad=True)
    y[0][0] = y[0][0].t().contiguous().t() if y[0][0].dim() == 2 else y[0][0]
    options = dict(lr=0.01, beta1=0.9, beta2=0.99, weight_decay=0.0, eps=1e-8, amsgrad=True, maximize=False)
    yaten._fused_adam_(*y, **options)
    torch._fused_adam_(*t, **options)
    for a, b in zip(as_torch(y[0]), t[0]):
        torch.testing.assert_close(a, b)


def test_amp_ops_match_torch():
    grads_y = [yaten.tensor([1.0, 2.0, 3.0]), yaten.tensor([[4.0, 5.0]])]
    grads_t = [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([[4.0, 5.0]])]
    found_y, found_t = yaten.tensor([0.0]), torch.tensor([0.0])
    yaten._amp_foreach_non_finite_check_and_unscale_(grads_y, found_y, yaten.tensor([0.25]))
    torch._amp_foreach_non_finite_check_and_unscale_(grads_t, found_t, torch.tensor([0.25]))
    assert_lists_equal(grads_y, grads_t, exact=True)
    assert found_y.item() == found_t.item() == 0.0
    grads_y[1][0, 1] = float("inf")
    grads_t[1][0, 1] = float("inf")
    yaten._amp_foreach_non_finite_check_and_unscale_(grads_y, found_y, yaten.tensor([0.5]))
    torch._amp_foreach_non_finite_check_and_unscale_(grads_t, found_t, torch.tensor([0.5]))
    assert found_y.item() == found_t.item() == 1.0
    scale_y, scale_t = yaten.tensor([1024.0]), torch.tensor([1024.0])
    tracker_y, tracker_t = yaten.tensor([0], dtype=yaten.int32), torch.tensor([0], dtype=torch.int32)
    for found in [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]:
        out = yaten._amp_update_scale_(scale_y, tracker_y, yaten.tensor([found]), 2.0, 0.5, 2)
        torch._amp_update_scale_(scale_t, tracker_t, torch.tensor([found]), 2.0, 0.5, 2)
        assert out is scale_y
        assert scale_y.item() == scale_t.item() and tracker_y.item() == tracker_t.item()


# ------------------------------------------------------------------------------------------------ CUDA

needs_cuda = pytest.mark.skipif(not yaten.cuda.is_available(), reason="no CUDA GPU")
# enough tensors and elements for several launches: more tensors than a launch's table holds, and tensors of several
# 65536-element chunks (Note [Multi-tensor launches])
MANY = [(3, 4), (70000,), ()] * 30 + [(300000,), (5,)]


def cuda_copy(ys):
    return [y.cuda() for y in ys]


@needs_cuda
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", range(len(INPLACE)), ids=lambda i: f"{INPLACE[i][0]}{i}")
def test_cuda_inplace_foreach_matches_the_cpu(case, dtype):
    name, make = INPLACE[case]
    positive = name in ("_foreach_sqrt_",)
    lists_ = [pair(dtype, seed, positive=positive or seed == 2, shapes=MANY)[0] for seed in range(3)]
    cpu = [list(lst) for lst in lists_]
    gpu = [cuda_copy(lst) for lst in lists_]
    scalars = [0.5, -1.25, 2, 3, 0.1] * 20
    extra_cpu = [e if not (isinstance(e, list) and not isinstance(e[0], yaten.Tensor)) else scalars[:len(MANY)]
                 for e in make(*cpu)]
    extra_gpu = [e if not (isinstance(e, list) and not isinstance(e[0], yaten.Tensor)) else scalars[:len(MANY)]
                 for e in make(*gpu)]
    call(yaten, name, cpu[0], extra_cpu, lambda e: e)
    call(yaten, name, gpu[0], [e.cuda() if isinstance(e, yaten.Tensor) else e for e in extra_gpu], lambda e: e)
    for c, g in zip(cpu[0], gpu[0]):
        assert g.device.type == "cuda"
        tol = REDUCED_TOLERANCE.get(getattr(torch, dtype), dict(rtol=1e-6, atol=1e-6))
        torch.testing.assert_close(as_torch([g.cpu()])[0], as_torch([c])[0], equal_nan=True, **tol)


@needs_cuda
@pytest.mark.parametrize("name", ["_fused_adam_", "_fused_adamw_"])
@pytest.mark.parametrize("amsgrad", [False, True])
def test_cuda_fused_adam_matches_the_cpu(name, amsgrad):
    cpu = [pair("float32", seed, positive=seed >= 3, shapes=MANY)[0] for seed in range(5)]
    if not amsgrad:
        cpu[4] = []
    steps_cpu = [yaten.tensor(float(3 + i % 7)) for i in range(len(MANY))]
    gpu = [cuda_copy(lst) for lst in cpu]
    steps_gpu = cuda_copy(steps_cpu)  # float32 on the device: read there
    options = dict(lr=0.01, beta1=0.9, beta2=0.99, weight_decay=0.1, eps=1e-8, amsgrad=amsgrad, maximize=False)
    getattr(yaten, name)(*cpu, steps_cpu, **options, grad_scale=yaten.tensor(2.0), found_inf=yaten.tensor(0.0))
    getattr(yaten, name)(*gpu, steps_gpu, **options, grad_scale=yaten.tensor(2.0).cuda(),
                         found_inf=yaten.tensor(0.0).cuda())
    for lc, lg in zip(cpu, gpu):
        for c, g in zip(lc, lg):
            np.testing.assert_allclose(g.cpu().numpy(), c.numpy(), rtol=1e-5, atol=1e-6)
    before = [g.clone() for g in gpu[0]]
    getattr(yaten, name)(*gpu, steps_gpu, **options, found_inf=yaten.tensor(1.0).cuda())  # skipped on the device
    assert all(yaten.equal(a, b) for a, b in zip(before, gpu[0]))


@needs_cuda
def test_cuda_fused_sgd_and_amp_ops_match_the_cpu():
    cpu = [pair("float32", seed, shapes=MANY)[0] for seed in range(3)]
    gpu = [cuda_copy(lst) for lst in cpu]
    options = dict(weight_decay=0.01, momentum=0.9, lr=0.05, dampening=0.1, nesterov=False, maximize=True,
                   is_first_step=False)
    yaten._fused_sgd_(*cpu, **options)
    yaten._fused_sgd_(*gpu, **options)
    for lc, lg in zip(cpu, gpu):
        for c, g in zip(lc, lg):
            np.testing.assert_allclose(g.cpu().numpy(), c.numpy(), rtol=1e-5, atol=1e-6)
    grads = cuda_copy(pair("float32", 7, shapes=MANY)[0])
    found = yaten.zeros(1).cuda()
    yaten._amp_foreach_non_finite_check_and_unscale_(grads, found, yaten.tensor([0.5]).cuda())
    assert found.item() == 0.0
    grads[40][7] = float("nan")
    yaten._amp_foreach_non_finite_check_and_unscale_(grads, found, yaten.tensor([0.5]).cuda())
    assert found.item() == 1.0
    scale, tracker = yaten.tensor([1024.0]).cuda(), yaten.tensor([0], dtype=yaten.int32).cuda()
    yaten._amp_update_scale_(scale, tracker, found, 2.0, 0.5, 2)
    assert scale.item() == 512.0 and tracker.item() == 0


@needs_cuda
@pytest.mark.parametrize("path", [{}, {"foreach": True}, {"fused": True}])
def test_cuda_adamw_paths_follow_the_cpu(path):
    params_cpu = [yaten.nn.Parameter(t) for t in pair("float32", 0, shapes=MANY)[0]]
    params_gpu = [yaten.nn.Parameter(p.detach().cuda()) for p in params_cpu]
    opt_cpu = yaten.optim.AdamW(params_cpu, lr=0.01)
    opt_gpu = yaten.optim.AdamW(params_gpu, lr=0.01, **path)
    for step in range(5):
        grads = pair("float32", 100 + step, shapes=MANY)[0]
        for pc, pg, g in zip(params_cpu, params_gpu, grads):
            pc.grad, pg.grad = g, g.cuda()
        opt_cpu.step()
        opt_gpu.step()
    for pc, pg in zip(params_cpu, params_gpu):
        np.testing.assert_allclose(pg.detach().cpu().numpy(), pc.detach().numpy(), rtol=1e-5, atol=1e-6)
