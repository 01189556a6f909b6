"""The reliability issue's crash classes, each as a regression test: every call here once killed the process
(segfault, heap corruption, C stack overflow) or left a corrupt tensor. Now each is a Python exception of the right
kind. The calls run in a child process, so a crash fails the test instead of ending the test run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

CASES = {
    # size arithmetic overflows (Note [Checked size arithmetic] in csrc/core/core.cpp)
    "zeros_2_62": ("yaten.zeros(2**62)", "RuntimeError"),
    "empty_numel_overflow": ("yaten.empty(2**40, 2**40)", "RuntimeError"),
    "as_strided_extent_overflow": ("yaten.ones(6).as_strided([2**31, 2**31], [2**62, 1]).sum()", "RuntimeError"),
    "as_strided_past_storage": ("yaten.ones(6).as_strided([2, 4], [4, 1])", "RuntimeError"),
    # view ops on 0-d tensors
    "unbind_0d": ("yaten.unbind(yaten.tensor(1.0))", "IndexError"),
    "unbind_0d_method": ("yaten.tensor(3).unbind(0)", "IndexError"),
    "chunk_0d": ("yaten.chunk(yaten.tensor(1.0), 2)", "IndexError"),
    "unflatten_0d": ("yaten.tensor(1.0).unflatten(0, (1,))", "IndexError"),
    "split_0d": ("yaten.split(yaten.tensor(1.0), 1)", "RuntimeError"),
    # internal ops trusting their caller
    "index_front_no_indices": ("yaten._C._index_front(yaten.ones(3), [], [0])", "RuntimeError"),
    "index_front_0d": ("yaten._C._index_front(yaten.tensor(1.0), [yaten.tensor([0])], [0])", "IndexError"),
    # ints past int64 (were SystemError)
    "size_past_int64": ("yaten.ones(3).size(2**70)", "IndexError"),
    "int_arg_past_int64": ("yaten.ones(3).sum(2**70)", "RuntimeError"),
    # ragged lists, deep nesting
    "ragged_number_then_list": ("yaten.tensor([1, [2, 3]])", "ValueError"),
    "ragged_list_then_number": ("yaten.tensor([[2, 3], 1])", "ValueError"),
    "deep_nesting": ("d = 1\nfor _ in range(200_000):\n    d = [d]\nyaten.tensor(d)", "ValueError"),
    # a list that an element's __float__ empties while yaten.tensor reads it
    "list_mutated_while_read": (
        "class Evil:\n"
        "    def __float__(self):\n"
        "        data.clear()\n"
        "        return 1.0\n"
        "data = [Evil(), 2.0, 3.0, 4.0] * 100\n"
        "yaten.tensor(data, dtype=yaten.float32)", "RuntimeError"),
    "threads_beyond_limit": ("yaten.set_num_threads(10**6)", "ValueError"),
}


def run_cases(names):
    body = "import yaten\nresults = {}\n"
    for name in names:
        code, _ = CASES[name]
        body += (f"try:\n{textwrap.indent(code, '    ')}\n    results[{name!r}] = 'no error'\n"
                 f"except Exception as e:\n    results[{name!r}] = type(e).__name__\n")
    body += "print(repr(results))\n"
    done = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True, timeout=300)
    return done


@pytest.mark.parametrize("name", sorted(CASES))
def test_former_crash_is_a_python_exception(name):
    done = run_cases([name])
    assert done.returncode == 0, f"the child process died ({done.returncode}): {done.stderr[-2000:]}"
    results = eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 (our own repr)
    assert results[name] == CASES[name][1], (name, results[name], done.stderr[-1000:])


def test_threads_still_work_after_a_refused_thread_count():
    done = subprocess.run([sys.executable, "-c", "import yaten\ntry:\n    yaten.set_num_threads(10**6)\n"
                           "except ValueError:\n    pass\nprint(yaten.ones(10**6).sum().item())"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "1000000.0", done.stderr


def test_valid_edge_cases_still_work():
    import yaten

    assert yaten.tensor([[], []]).shape == (2, 0)
    assert yaten.tensor(((1, 2), [3, 4])).tolist() == [[1, 2], [3, 4]]
    assert yaten.gather(yaten.tensor(1.0), 0, yaten.tensor([0])).tolist() == [1.0]
    assert yaten.ones(6).as_strided([2, 3], [3, 1]).sum().item() == 6.0
    assert yaten.empty(0, 2**62).numel() == 0
