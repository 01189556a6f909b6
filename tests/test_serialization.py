"""yaten.save/load in torch's checkpoint format (read by torch.load, reading torch.save's files), the allow-list
that refuses a malicious pickle, corrupt files, and safetensors against the `safetensors` package."""

from __future__ import annotations

import io
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import yaten
import yaten.nn as ynn

torch = pytest.importorskip("torch")


def assert_same(y, t):
    if isinstance(t, torch.Tensor):
        assert isinstance(y, yaten.Tensor), type(y)
        assert str(y.dtype).split(".")[1] == str(t.dtype).split(".")[1]
        assert tuple(y.shape) == tuple(t.shape)
        if t.dtype == torch.bfloat16:
            np.testing.assert_array_equal(y.float().numpy(), t.float().numpy())
        else:
            np.testing.assert_array_equal(y.numpy(), t.numpy())
        assert y.requires_grad == t.requires_grad
    elif isinstance(t, dict):
        assert list(y.keys()) == list(t.keys())
        for k in t:
            assert_same(y[k], t[k])
    elif isinstance(t, (list, tuple)):
        assert type(y) is type(t) and len(y) == len(t)
        for a, b in zip(y, t):
            assert_same(a, b)
    else:
        assert y == t


def optimizer_like(lib):
    """What an optimizer's state_dict looks like: per-parameter state with tensors and numbers, and param_groups."""
    return {"state": {0: {"step": lib.tensor(3.0), "exp_avg": lib.ones(2, 3) * 0.5, "exp_avg_sq": lib.zeros(2, 3)},
                      1: {"step": lib.tensor(3.0), "momentum_buffer": lib.arange(4, dtype=lib.float64)}},
            "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "weight_decay": 0.0, "params": [0, 1],
                              "name": "default", "amsgrad": False}]}


def mixed(lib):
    base = lib.arange(12, dtype=lib.float32).reshape(3, 4)
    return OrderedDict([("base", base), ("row", base[1]), ("col", base[:, 2]), ("bf16", lib.ones(3, dtype=lib.bfloat16)),
                        ("c64", lib.tensor([1 + 2j, 3 - 1j], dtype=lib.complex64)), ("i8", lib.tensor([-3, 4],
                                                                                                      dtype=lib.int8)),
                        ("flag", lib.tensor([True, False])), ("half", lib.tensor([1.5], dtype=lib.float16)),
                        ("scalar", lib.tensor(7, dtype=lib.int64)), ("n", 3), ("s", "text"), ("nested",
                                                                                              [1, (2.5, None)])])


def test_torch_loads_what_yaten_saved(tmp_path):
    path = tmp_path / "y.pt"
    model = ynn.Sequential(ynn.Linear(3, 4), ynn.BatchNorm1d(4))
    yaten.save({"model": model.state_dict(), "optim": optimizer_like(yaten), "mixed": mixed(yaten)}, path)
    loaded = torch.load(path)  # weights_only=True: only torch's allowed globals are in the file
    assert_same_t = lambda t, y: assert_same(y, t)  # noqa: E731
    reference = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    reference.load_state_dict(loaded["model"])
    assert_same_t(loaded["optim"], optimizer_like(yaten))
    assert_same_t(loaded["mixed"], mixed(yaten))
    # views share one storage: a write through one shows in the others, as in the saved program
    loaded["mixed"]["row"][2] = -1
    assert loaded["mixed"]["base"][1, 2].item() == -1 and loaded["mixed"]["col"][1].item() == -1


def test_yaten_loads_what_torch_saved(tmp_path):
    path = tmp_path / "t.pt"
    reference = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.LayerNorm(4))
    torch.save({"model": reference.state_dict(), "optim": optimizer_like(torch), "mixed": mixed(torch),
                "param": torch.nn.Parameter(torch.ones(2))}, path)
    loaded = yaten.load(path)
    assert_same(loaded["optim"], optimizer_like(torch))
    assert_same(loaded["mixed"], mixed(torch))
    assert isinstance(loaded["param"], ynn.Parameter) and loaded["param"].requires_grad
    model = ynn.Sequential(ynn.Linear(3, 4), ynn.LayerNorm(4))
    model.load_state_dict(loaded["model"])
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(model(yaten.tensor(x)).detach().numpy(), reference(torch.tensor(x)).detach().numpy(),
                               rtol=1e-6, atol=1e-6)
    loaded["mixed"]["row"][0] = 100
    assert loaded["mixed"]["base"][1, 0].item() == 100


def test_round_trip_through_a_file_object_keeps_parameters():
    buffer = io.BytesIO()
    p = ynn.Parameter(yaten.randn(3))
    yaten.save([p, {"k": p}], buffer)
    buffer.seek(0)
    a, d = yaten.load(buffer)
    assert isinstance(a, ynn.Parameter) and d["k"] is a
    np.testing.assert_array_equal(a.detach().numpy(), p.detach().numpy())


def test_load_refuses_a_malicious_pickle(tmp_path):
    class Exploit:
        def __reduce__(self):
            import os

            return (os.system, ("echo pwned > " + str(tmp_path / "pwned"),))

    path = tmp_path / "evil.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("evil/data.pkl", pickle.dumps({"w": Exploit()}, protocol=2))
        archive.writestr("evil/version", "3\n")
    with pytest.raises(pickle.UnpicklingError, match="posix.system|os.system|refused"):
        yaten.load(path)
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("damage", ["truncate", "not_zip", "bad_record"])
def test_corrupt_checkpoints_raise_clear_errors(tmp_path, damage):
    good = io.BytesIO()
    yaten.save({"w": yaten.arange(1000.0)}, good)
    data = good.getvalue()
    path = tmp_path / "bad.pt"
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "not_zip":
        path.write_bytes(b"this is not a checkpoint")
    else:
        with zipfile.ZipFile(path, "w") as archive, zipfile.ZipFile(io.BytesIO(data)) as source:
            for name in source.namelist():
                payload = source.read(name)
                archive.writestr(name, payload[:100] if "/data/" in name else payload)
    with pytest.raises(RuntimeError, match="load:"):
        yaten.load(path)


def test_map_location_and_cuda_records(tmp_path):
    path = tmp_path / "cuda.pt"
    with zipfile.ZipFile(path, "w") as archive:  # a checkpoint written on a GPU: its storage's location is cuda:0
        buffer = io.BytesIO()
        torch.save({"w": torch.arange(3.0)}, buffer)
        with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as source:
            for name in source.namelist():
                payload = source.read(name)
                if name.endswith("data.pkl"):
                    payload = payload.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
                archive.writestr(name, payload)
    if not yaten.cuda.is_available():
        with pytest.raises(RuntimeError, match="map_location='cpu'"):
            yaten.load(path)
    assert yaten.load(path, map_location="cpu")["w"].tolist() == [0.0, 1.0, 2.0]
    assert yaten.load(path, map_location=lambda storage, location: storage)["w"].tolist() == [0.0, 1.0, 2.0]


# ------------------------------------------------------------------------------------------------ safetensors

safetensors = pytest.importorskip("safetensors")


def test_safetensors_written_by_yaten_read_by_the_package(tmp_path):
    from safetensors.torch import load_file as torch_load

    tensors = {"f32": yaten.randn(3, 4), "f64": yaten.randn(2, dtype=yaten.float64), "i64": yaten.arange(5),
               "i32": yaten.arange(3, dtype=yaten.int32), "i16": yaten.arange(3, dtype=yaten.int16),
               "i8": yaten.arange(3, dtype=yaten.int8), "u8": yaten.arange(3, dtype=yaten.uint8),
               "b": yaten.tensor([True, False]), "f16": yaten.randn(4, dtype=yaten.float16),
               "bf16": yaten.randn(4).to(yaten.bfloat16), "view": yaten.arange(12.0).reshape(3, 4)[:, 1]}
    path = tmp_path / "y.safetensors"
    yaten.safetensors.save_file(tensors, path, metadata={"format": "pt"})
    theirs = torch_load(path)
    assert set(theirs) == set(tensors)
    for name, t in tensors.items():
        assert_same(t, theirs[name])
    assert theirs["view"].tolist() == [1.0, 5.0, 9.0]
    assert yaten.safetensors.load_metadata(path) == {"format": "pt"}


def test_safetensors_written_by_the_package_read_by_yaten(tmp_path):
    from safetensors.torch import save, save_file

    theirs = {"w": torch.randn(3, 2), "bf": torch.randn(5).to(torch.bfloat16), "i": torch.arange(4),
              "h": torch.randn(2, 2).half(), "b": torch.tensor([True])}
    path = tmp_path / "t.safetensors"
    save_file(theirs, path)
    ours = yaten.safetensors.load_file(path)
    for name, t in theirs.items():
        assert_same(ours[name], t)
    from_bytes = yaten.safetensors.load(save(theirs))
    assert_same(from_bytes["w"], theirs["w"])
    model = ynn.Linear(2, 3)
    model.load_state_dict(yaten.safetensors.load(save(torch.nn.Linear(2, 3).state_dict())))


@pytest.mark.parametrize("cut", [4, 20, -3])
def test_safetensors_truncated_is_a_clear_error(cut):
    data = yaten.safetensors.save({"w": yaten.randn(10)})
    with pytest.raises(ValueError, match="safetensors:"):
        yaten.safetensors.load(data[:cut])


def test_a_whole_module_saves_and_loads_without_weights_only():
    buffer = io.BytesIO()
    model = ynn.Sequential(ynn.Linear(2, 3), ynn.ReLU())
    yaten.save(model, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="yaten.nn.modules.container.Sequential"):
        yaten.load(buffer)
    buffer.seek(0)
    loaded = yaten.load(buffer, weights_only=False)
    x = yaten.randn(4, 2)
    np.testing.assert_array_equal(loaded(x).detach().numpy(), model(x).detach().numpy())
    assert isinstance(loaded[0].weight, ynn.Parameter)
