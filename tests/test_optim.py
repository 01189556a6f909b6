"""yaten.optim against torch.optim: 100 steps on the same parameters and gradients give torch's parameters (float64,
1e-12 relative; float32 to rounding), state_dicts move between the two, and the schedulers give torch's rates."""

from __future__ import annotations

import math

import numpy as np
import pytest

import yaten
import yaten.nn as ynn
import yaten.optim as yoptim

torch = pytest.importorskip("torch")

SHAPES = [(4, 3), (5,), (2, 2, 2)]

OPTIMIZERS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "dampening": 0.3, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.99), "maximize": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.3, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1}),
    ("Adamax", {"lr": 0.01, "weight_decay": 0.05}),
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
]


def gradients(step: int, shapes, dtype):
    gen = np.random.default_rng(1000 + step)
    return [gen.standard_normal(s).astype(dtype) for s in shapes]


def run_pair(name, options, steps=100, dtype="float64", groups=False):
    gen = np.random.default_rng(0)
    initial = [gen.standard_normal(s).astype(dtype) for s in SHAPES]
    tparams = [torch.nn.Parameter(torch.tensor(a)) for a in initial]
    yparams = [ynn.Parameter(yaten.tensor(a)) for a in initial]
    if groups:
        t_opt = getattr(torch.optim, name)([{"params": tparams[:1], "lr": 0.002}, {"params": tparams[1:]}], **options)
        y_opt = getattr(yoptim, name)([{"params": yparams[:1], "lr": 0.002}, {"params": yparams[1:]}], **options)
    else:
        t_opt = getattr(torch.optim, name)(tparams, **options)
        y_opt = getattr(yoptim, name)(yparams, **options)
    for step in range(steps):
        for tp, yp, g in zip(tparams, yparams, gradients(step, SHAPES, dtype)):
            tp.grad = torch.tensor(g)
            yp.grad = yaten.tensor(g)
        t_opt.step()
        y_opt.step()
    return tparams, yparams, t_opt, y_opt


@pytest.mark.parametrize("name,options", OPTIMIZERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIMIZERS)])
def test_optimizer_follows_torch_for_100_steps_float64(name, options):
    tparams, yparams, t_opt, y_opt = run_pair(name, options)
    for tp, yp in zip(tparams, yparams):
        np.testing.assert_allclose(yp.detach().numpy(), tp.detach().numpy(), rtol=1e-12, atol=1e-12)
    t_state, y_state = t_opt.state_dict(), y_opt.state_dict()
    assert y_state["param_groups"] == [{k: v for k, v in g.items()} for g in t_state["param_groups"]]
    assert sorted(y_state["state"]) == sorted(t_state["state"])
    for index, state in t_state["state"].items():
        assert list(y_state["state"][index]) == list(state), name
        for key, value in state.items():
            np.testing.assert_allclose(np.asarray(y_state["state"][index][key].numpy()), value.numpy(), rtol=1e-12,
                                       atol=1e-12, err_msg=key)


# The multi-tensor (_foreach ops) and fused (_fused_*_ kernels) paths, against torch's own on the same path.
PATH_CASES = [(n, dict(o, **path)) for n, o in OPTIMIZERS if n in ("SGD", "Adam", "AdamW")
              for path in ({"foreach": True}, {"fused": True})]


@pytest.mark.parametrize("name,options", PATH_CASES, ids=[f"{n}-{'fused' if o.get('fused') else 'foreach'}-{i}"
                                                          for i, (n, o) in enumerate(PATH_CASES)])
def test_foreach_and_fused_paths_follow_torch(name, options):
    test_optimizer_follows_torch_for_100_steps_float64(name, options)
    tparams, yparams, _, _ = run_pair(name, options, steps=50, dtype="float32", groups=True)
    for tp, yp in zip(tparams, yparams):
        np.testing.assert_allclose(yp.detach().numpy(), tp.detach().numpy(), rtol=2e-5, atol=2e-6)


def test_paths_are_checked_as_torch():
    params = [ynn.Parameter(yaten.ones(2))]
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together"):
        yoptim.Adam(params, foreach=True, fused=True)
    with pytest.raises(NotImplementedError, match="fused=True is available for SGD, Adam and AdamW"):
        yoptim.Adagrad(params, fused=True)
    ints = [ynn.Parameter(yaten.ones(2, dtype=yaten.int64), requires_grad=False)]
    ints[0].grad = yaten.ones(2, dtype=yaten.int64)
    with pytest.raises(RuntimeError, match="requires all the params to be floating point"):
        yoptim.SGD(ints, lr=0.1, fused=True).step()


@pytest.mark.parametrize("name,options", [OPTIMIZERS[1], OPTIMIZERS[4], OPTIMIZERS[7], OPTIMIZERS[10]])
def test_optimizer_follows_torch_float32_and_param_groups(name, options):
    tparams, yparams, _, _ = run_pair(name, options, steps=50, dtype="float32", groups=True)
    for tp, yp in zip(tparams, yparams):
        np.testing.assert_allclose(yp.detach().numpy(), tp.detach().numpy(), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name,options", [OPTIMIZERS[2], OPTIMIZERS[5], OPTIMIZERS[10], OPTIMIZERS[13]])
def test_state_dict_moves_between_torch_and_yaten(name, options, tmp_path):
    tparams, yparams, t_opt, y_opt = run_pair(name, options, steps=10)
    # torch's checkpoint into a fresh yaten optimizer (through a file, as a training script resumes) and back
    torch.save(t_opt.state_dict(), tmp_path / "t.pt")
    fresh = getattr(yoptim, name)([ynn.Parameter(yaten.tensor(tp.detach().numpy())) for tp in tparams], **options)
    fresh.load_state_dict(yaten.load(tmp_path / "t.pt"))
    yaten.save(fresh.state_dict(), tmp_path / "y.pt")
    back = getattr(torch.optim, name)([torch.nn.Parameter(tp.detach().clone()) for tp in tparams], **options)
    back.load_state_dict(torch.load(tmp_path / "y.pt"))
    for params, opt in ((fresh.param_groups[0]["params"], fresh), (back.param_groups[0]["params"], back)):
        for p, g in zip(params, gradients(99, SHAPES, "float64")):
            p.grad = yaten.tensor(g) if isinstance(p, yaten.Tensor) else torch.tensor(g)
        opt.step()
    for yp, tp in zip(fresh.param_groups[0]["params"], back.param_groups[0]["params"]):
        np.testing.assert_allclose(yp.detach().numpy(), tp.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_optimizer_api_and_errors():
    model = ynn.Linear(2, 2)
    opt = yoptim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        yoptim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        yoptim.Adam(model.parameters(), lr=-1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [model.weight]})
    with pytest.raises(NotImplementedError, match="fused=True"):
        yoptim.Adagrad(model.parameters(), fused=True)
    model(yaten.ones(1, 2)).sum().backward()
    calls = []
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append(1))
    before = model.weight.detach().clone()
    assert opt.step(lambda: 3.0) == 3.0
    assert calls == [1] and not yaten.equal(before, model.weight.detach())
    opt.zero_grad()
    assert model.weight.grad is None
    assert "SGD (" in repr(opt) and "lr: 0.1" in repr(opt)


# ------------------------------------------------------------------------------------------------ schedulers

SCHEDULERS = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 7, "eta_min": 0.001}),
    ("CosineAnnealingWarmRestarts", {"T_0": 4, "T_mult": 2, "eta_min": 0.01}),
    ("LinearLR", {"start_factor": 0.2, "total_iters": 6}),
    ("ConstantLR", {"factor": 0.5, "total_iters": 4}),
    ("PolynomialLR", {"total_iters": 8, "power": 2.0}),
    ("LambdaLR", {"lr_lambda": lambda epoch: 0.95 ** epoch}),
    ("MultiplicativeLR", {"lr_lambda": lambda epoch: 0.9}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 120}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 120, "three_phase": True, "anneal_strategy": "linear"}),
]


@pytest.mark.parametrize("name,options", SCHEDULERS, ids=[s[0] + str(i) for i, s in enumerate(SCHEDULERS)])
@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_scheduler_gives_torchs_rates(name, options, optimizer):
    """100 steps with gradients: the rates (and OneCycle's momenta) and the parameters they move stay torch's."""
    extra = {"momentum": 0.9} if optimizer == "SGD" else {}
    t_param = torch.nn.Parameter(torch.ones(2, dtype=torch.float64))
    y_param = ynn.Parameter(yaten.ones(2, dtype=yaten.float64))
    t_opt = getattr(torch.optim, optimizer)([t_param], lr=0.1, **extra)
    y_opt = getattr(yoptim, optimizer)([y_param], lr=0.1, **extra)
    t_sched = getattr(torch.optim.lr_scheduler, name)(t_opt, **options)
    y_sched = getattr(yoptim.lr_scheduler, name)(y_opt, **options)
    for step in range(100):
        assert y_sched.get_last_lr() == pytest.approx(t_sched.get_last_lr(), rel=1e-13, abs=1e-15)
        assert y_opt.param_groups[0].get("momentum") == pytest.approx(t_opt.param_groups[0].get("momentum"))
        assert y_opt.param_groups[0].get("betas") == pytest.approx(t_opt.param_groups[0].get("betas"))
        g = gradients(step, [(2,)], "float64")[0]
        t_param.grad, y_param.grad = torch.tensor(g), yaten.tensor(g)
        t_opt.step()
        y_opt.step()
        t_sched.step()
        y_sched.step()
    np.testing.assert_allclose(y_param.detach().numpy(), t_param.detach().numpy(), rtol=1e-12, atol=1e-12)
    state = y_sched.state_dict()
    assert state["last_epoch"] == t_sched.state_dict()["last_epoch"] == 100


def test_sequential_and_plateau_schedulers():
    t_opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    y_opt = yoptim.SGD([ynn.Parameter(yaten.ones(1))], lr=1.0)
    t_seq = torch.optim.lr_scheduler.SequentialLR(t_opt, [
        torch.optim.lr_scheduler.LinearLR(t_opt, start_factor=0.1, total_iters=3),
        torch.optim.lr_scheduler.CosineAnnealingLR(t_opt, T_max=6)], milestones=[3])
    y_seq = yoptim.lr_scheduler.SequentialLR(y_opt, [
        yoptim.lr_scheduler.LinearLR(y_opt, start_factor=0.1, total_iters=3),
        yoptim.lr_scheduler.CosineAnnealingLR(y_opt, T_max=6)], milestones=[3])
    for _ in range(10):
        assert y_seq.get_last_lr() == pytest.approx(t_seq.get_last_lr(), rel=1e-12)
        t_opt.step()
        y_opt.step()
        t_seq.step()
        y_seq.step()
    t_plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(t_opt, patience=2, factor=0.5, cooldown=1)
    y_plateau = yoptim.lr_scheduler.ReduceLROnPlateau(y_opt, patience=2, factor=0.5, cooldown=1)
    for metric in [5, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 2]:
        t_plateau.step(metric)
        y_plateau.step(metric)
        assert y_opt.param_groups[0]["lr"] == pytest.approx(t_opt.param_groups[0]["lr"], rel=1e-12)


def test_training_a_module_with_adamw_and_a_schedule_learns():
    yaten.manual_seed(0)
    model = ynn.Sequential(ynn.Linear(4, 16), ynn.ReLU(), ynn.Linear(16, 1))
    opt = yoptim.AdamW(model.parameters(), lr=0.05)
    sched = yoptim.lr_scheduler.CosineAnnealingLR(opt, T_max=100)
    x = yaten.randn(64, 4)
    y = (x * yaten.tensor([1.0, -2.0, 0.5, 3.0])).sum(1, keepdim=True)
    losses = []
    for _ in range(100):
        loss = ynn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        ynn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(loss.item())
    assert losses[-1] < 0.05 * losses[0] and math.isfinite(losses[-1])


# ------------------------------------------------------------------------------------------------ GradScaler

@pytest.mark.parametrize("name,options", [("SGD", {"lr": 0.1}), ("SGD", {"lr": 0.1, "momentum": 0.9, "fused": True}),
                                          ("AdamW", {"lr": 0.1, "fused": True}), ("Adam", {"lr": 0.1, "foreach": True})])
def test_grad_scaler_skips_and_rescales_as_torch(name, options):
    """Injected infinities: the step is skipped and the scale backs off; clean steps grow it every interval. A fused
    optimizer gets the scale and the flag in its kernel (its skipped steps not counted), as torch's."""
    t_param, y_param = torch.nn.Parameter(torch.ones(3)), ynn.Parameter(yaten.ones(3))
    t_opt, y_opt = getattr(torch.optim, name)([t_param], **options), getattr(yoptim, name)([y_param], **options)
    t_scaler = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=3)
    y_scaler = yaten.amp.GradScaler("cpu", init_scale=8.0, growth_interval=3)
    x = np.array([1.0, -2.0, 0.5], dtype=np.float32)
    for step in range(12):
        bad = step in (2, 3, 7)
        for param, lib, scaler, opt in ((t_param, torch, t_scaler, t_opt), (y_param, yaten, y_scaler, y_opt)):
            opt.zero_grad()
            loss = (param * lib.tensor(x)).sum() * (float("inf") if bad else 1.0)
            scaler.scale(loss).backward()
            if step % 2:
                scaler.unscale_(opt)
            scaler.step(opt)
            scaler.update()
        assert y_scaler.get_scale() == t_scaler.get_scale(), step
        np.testing.assert_allclose(y_param.detach().numpy(), t_param.detach().numpy(), rtol=1e-6)
    assert y_scaler.state_dict() == t_scaler.state_dict()
    for key, value in t_opt.state_dict()["state"].get(0, {}).items():
        np.testing.assert_allclose(np.asarray(y_opt.state_dict()["state"][0][key].numpy()), value.numpy(), rtol=1e-6,
                                   err_msg=key)


def test_disabled_grad_scaler_and_autocast_pass_through():
    scaler = yaten.cuda.amp.GradScaler(enabled=False)
    loss = yaten.tensor(2.0)
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    with yaten.autocast("cpu", enabled=False):
        pass
    with yaten.autocast("cpu", dtype=yaten.bfloat16):  # enabled: matmuls in bfloat16 (tests/test_autocast.py)
        assert yaten.mm(yaten.ones(2, 2), yaten.ones(2, 2)).dtype == yaten.bfloat16


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3.0])
@pytest.mark.parametrize("foreach", [None, False, True])
def test_clip_grad_norm_follows_torch(norm_type, foreach):
    gen = np.random.default_rng(5)
    arrays = [gen.standard_normal(s) * 3 for s in [(4, 3), (7,), (), (2, 5)]]
    dtypes = [np.float32, np.float64, np.float32, np.float32]
    tparams = [torch.nn.Parameter(torch.zeros(a.shape, dtype=getattr(torch, np.dtype(d).name)))
               for a, d in zip(arrays, dtypes)]
    yparams = [ynn.Parameter(yaten.zeros(list(a.shape), dtype=getattr(yaten, np.dtype(d).name)))
               for a, d in zip(arrays, dtypes)]
    for tp, yp, a, d in zip(tparams, yparams, arrays, dtypes):
        tp.grad = torch.tensor(a.astype(d))
        yp.grad = yaten.tensor(a.astype(d))
    t_total = torch.nn.utils.clip_grad_norm_(tparams, 1.5, norm_type, foreach=False if foreach is False else None)
    y_total = ynn.utils.clip_grad_norm_(yparams, 1.5, norm_type, foreach=foreach)
    assert y_total.item() == pytest.approx(t_total.item(), rel=1e-6)
    for tp, yp in zip(tparams, yparams):
        np.testing.assert_allclose(yp.grad.numpy(), tp.grad.numpy(), rtol=1e-6, atol=1e-7)
    yparams[0].grad[0, 0] = float("nan")
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        ynn.utils.clip_grad_norm_(yparams, 1.0, norm_type, error_if_nonfinite=True, foreach=foreach)
