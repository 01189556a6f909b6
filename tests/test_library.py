"""The dispatcher's registration API: yaten.library from Python, YATEN_LIBRARY from C++, yaten.ops by name,
overrides and their removal, thread-local key exclusion, errors, and registration racing calls."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import yaten
import yaten._test_library  # noqa: F401  (the tests' operators, namespace yaten_test)

HERE = Path(__file__).name
_counter = iter(range(10**6))


def fresh_namespace() -> str:
    """Each test defines its ops in a namespace of its own (definitions live as long as the process)."""
    return f"lib{next(_counter)}"


def test_define_impl_and_call_by_name():
    ns = fresh_namespace()
    yaten.library.define(f"{ns}::scale(Tensor x, float s=2.0) -> Tensor")

    @yaten.library.impl(f"{ns}::scale", "CPU")
    def scale(x, s):
        return x * s

    x = yaten.tensor([1.0, 2.0])
    assert getattr(yaten.ops, ns).scale(x, 3.0).tolist() == [3.0, 6.0]
    assert getattr(yaten.ops, ns).scale(x).tolist() == [2.0, 4.0]
    assert getattr(yaten.ops, ns).scale.default(x, s=0.5).tolist() == [0.5, 1.0]
    dump = yaten._C._dispatch_dump(f"{ns}::scale")
    assert f"schema: scale(Tensor x, float s=2.0) -> Tensor" in dump
    assert f"defined at: {Path(__file__)}" in dump and f"CPU: {Path(__file__)}" in dump
    assert f"{ns}::scale" in yaten.ops.list()


def test_python_kernel_overrides_a_builtin_and_can_be_removed():
    calls = []
    registration = yaten.library.impl("yaten::add.Tensor", "CPU")

    @registration
    def fake_add(x, y, alpha):
        calls.append(alpha)
        return yaten.sub(x, y)

    try:
        a, b = yaten.tensor([5.0, 7.0]), yaten.tensor([1.0, 2.0])
        assert (a + b).tolist() == [4.0, 5.0]  # the operator reaches it through the generated C++ API
        assert yaten.add(a, b, alpha=3).tolist() == [4.0, 5.0]
        assert calls == [1, 3]
        assert "(overrides ops.yaml:" in yaten._C._dispatch_dump("add.Tensor")
    finally:
        registration.remove()
    assert (a + b).tolist() == [6.0, 9.0]
    assert "overrides" not in yaten._C._dispatch_dump("add.Tensor")
    with pytest.raises(RuntimeError, match="nothing registered"):
        registration.remove()


def test_registering_twice_warns_and_the_newer_wins():
    ns = fresh_namespace()
    yaten.library.define(f"{ns}::f(Tensor x) -> Tensor")
    first = yaten.library.impl(f"{ns}::f", "CPU")
    first(lambda x: x + 1)
    second = yaten.library.impl(f"{ns}::f", "CPU")
    with pytest.warns(UserWarning, match=rf"{ns}::f already has a CPU kernel \(.*test_library.py:\d+\); .* replaces it"):
        second(lambda x: x + 2)
    x = yaten.zeros(1)
    assert getattr(yaten.ops, ns).f(x).tolist() == [2.0]
    second.remove()
    assert getattr(yaten.ops, ns).f(x).tolist() == [1.0]
    first.remove()
    with pytest.raises(NotImplementedError, match=rf"{ns}::f has no kernel for CPU. Registered: nothing"):
        getattr(yaten.ops, ns).f(x)


def test_redefining_with_another_schema_raises():
    ns = fresh_namespace()
    yaten.library.define(f"{ns}::g(Tensor x) -> Tensor")
    yaten.library.define(f"{ns}::g(Tensor x) -> Tensor")  # the same schema again is fine
    with pytest.raises(RuntimeError, match=rf"{ns}::g is already defined with a different schema"):
        yaten.library.define(f"{ns}::g(Tensor x, int n) -> Tensor")


def test_python_key_kernel_wraps_every_call_and_reaches_the_kernel_below():
    seen = []
    with yaten.library.impl("yaten::mul.Tensor", "Python") as registration:

        @registration
        def logged_mul(x, y):
            seen.append(tuple(x.shape))
            return yaten.mul(x, y)  # the Python key is excluded while this runs: this is the CPU kernel

        x = yaten.ones(2, 3)
        assert (x * x).tolist() == [[1.0] * 3] * 2
        assert seen == [(2, 3)]
        with yaten.library.exclude_key("Python"):
            x * x
        assert seen == [(2, 3)]
    x * x
    assert seen == [(2, 3)]


def test_cpp_registered_ops_are_callable_by_name_with_their_sites():
    x = yaten.tensor([1.0, 2.0])
    assert yaten.ops.yaten_test.twice(x).tolist() == [2.0, 4.0]
    assert yaten.ops.yaten_test.scale_and_shift(x, 3.0).tolist() == [3.0, 6.0]
    assert yaten.ops.yaten_test.scale_and_shift(x, 3.0, shift=1).tolist() == [4.0, 7.0]
    dump = yaten._C._dispatch_dump("yaten_test::twice")
    assert "defined at: tests/cpp/test_library.cpp:" in dump and "CPU: tests/cpp/test_library.cpp:" in dump


def test_missing_kernel_names_op_key_registrations_and_fix():
    with pytest.raises(NotImplementedError) as info:
        yaten.ops.yaten_test.cuda_only(yaten.ones(1))
    message = str(info.value)
    assert message.startswith("yaten_test::cuda_only has no kernel for CPU. Registered: CUDA "
                              "(tests/cpp/test_library.cpp:")
    assert "register one with yaten.library.impl" in message


def test_builtin_ops_by_name():
    a = yaten.tensor([1.0, 2.0])
    assert yaten.ops.yaten.add.Tensor(a, a, alpha=2).tolist() == [3.0, 6.0]
    assert yaten.ops.yaten.add(a, 1).tolist() == [2.0, 3.0]  # picks add.Scalar
    assert yaten.ops.yaten.zeros((2,), dtype=yaten.int32).tolist() == [0, 0]
    assert sorted(yaten.ops.yaten.add.overloads()) == ["Scalar", "Scalar_out", "Tensor", "out"]
    with pytest.raises(AttributeError, match="has no overload 'nope'"):
        yaten.ops.yaten.add.nope
    with pytest.raises(TypeError, match="arguments did not match any overload"):
        yaten.ops.yaten.add(a, "x")
    with pytest.raises(AttributeError, match="has no operator 'nope'"):
        yaten.ops.yaten.nope


@pytest.mark.parametrize("call", ["select({x}, True, 0)", "sum({x}, dim=True)", "zeros((True, 2))",
                                  "narrow({x}, 0, False, 1)", "select({x}, 0, 1)", "sum({x}, dim=[0])"])
def test_calls_by_name_accept_what_the_bindings_accept(call):
    # Both call paths take the same arguments: a bool is no int on either (as in torch).
    x = yaten.ones(2, 3)
    outcomes = []
    for prefix in ("yaten.", "yaten.ops.yaten."):
        try:
            outcomes.append(eval(prefix + call.format(x="x")).tolist())
        except TypeError:
            outcomes.append(TypeError)
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("call, message", [
    ("yaten.zeros((True, 2))", "argument 'size' (position 1) must be tuple of ints, but found element of type bool at pos 0"),
    ("yaten.zeros(size=(2, 'a'))", "argument 'size' must be tuple of ints, but found element of type str at pos 1"),
    ("yaten.cat([yaten.ones(2), 3])", "must be tuple of Tensors, but found element of type int at pos 1"),
    ("yaten.ops.yaten.cat([yaten.ones(2), 3])", "arguments did not match any overload"),
])
def test_a_list_of_the_wrong_things_names_the_element(call, message):
    # torch's wording; the bindings (arg_parser.cpp) and calls by name (_ops.py) refuse the same lists.
    with pytest.raises(TypeError) as info:
        eval(call)
    assert message in str(info.value)


def test_library_bad_input():
    with pytest.raises(ValueError, match="expected 'namespace::name"):
        yaten.library.define("scale(Tensor x) -> Tensor")
    with pytest.raises(ValueError, match="unknown type 'Tensr'"):
        yaten.library.define("mylib::bad(Tensr x) -> Tensor")
    with pytest.raises(ValueError, match="the yaten namespace belongs to ops.yaml"):
        yaten.library.define("yaten::mine(Tensor x) -> Tensor")
    with pytest.raises(ValueError, match="no operator named 'yaten::add.Tensr' \\(did you mean 'yaten::add.Tensor'"):
        yaten.library.impl("add.Tensr", "CPU")
    with pytest.raises(ValueError, match="unknown dispatch key 'CPUU' \\(did you mean 'CPU'"):
        yaten.library.impl("add.Tensor", "CPUU")


def test_python_kernel_errors_propagate_and_bad_results_are_type_errors():
    ns = fresh_namespace()
    yaten.library.define(f"{ns}::h(Tensor x) -> Tensor")
    with yaten.library.impl(f"{ns}::h", "CPU") as registration:
        registration(lambda x: 3)
        with pytest.raises(TypeError, match=rf"{ns}::h: the kernel returned int, expected a Tensor"):
            getattr(yaten.ops, ns).h(yaten.ones(1))
    with yaten.library.impl("yaten::neg", "CPU") as registration:

        @registration
        def broken(x):
            raise KeyError("from the kernel")

        with pytest.raises(KeyError, match="from the kernel"):
            -yaten.ones(1)
        registration.remove()
        registration(lambda x: "not a tensor")
        with pytest.raises(TypeError, match="yaten::neg: the Python kernel returned str, expected a Tensor"):
            yaten.neg(yaten.ones(1))
    assert (-yaten.ones(1)).tolist() == [-1.0]


def test_registration_racing_calls_from_threads():
    """Calls on several threads (large inputs release the GIL inside the kernel) while the main thread keeps
    registering and removing a Python kernel for the same op: every result is one of the two kernels', and
    nothing crashes."""
    big = yaten.ones(1 << 17)
    errors = []
    stop = threading.Event()

    def caller():
        try:
            while not stop.is_set():
                value = (big + big).tolist()[0]
                if value not in (2.0, 0.0):
                    errors.append(value)
        except Exception as e:  # noqa: BLE001  (any failure is the test's failure)
            errors.append(e)

    threads = [threading.Thread(target=caller) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        for _ in range(200):
            with yaten.library.impl("yaten::add.Tensor", "CPU") as registration:
                registration(lambda x, y, alpha: yaten.sub(x, y))
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert errors == []
    assert (big + big).tolist()[0] == 2.0
