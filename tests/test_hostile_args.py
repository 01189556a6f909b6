"""A list argument whose element's __index__ changes the list while yaten reads it (the reliability issue's second
crash class, a segfault before): the parser reads a snapshot that owns its items. In a child process, so a crash
fails the test instead of the run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import yaten


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not yaten.cuda.is_available(), reason="no CUDA GPU"))])
def test_list_emptied_by_an_elements_index_is_read_safely(device):
    code = textwrap.dedent(f"""
        import gc, yaten
        device = {device!r}

        class Evil:
            def __init__(self, owner, value):
                self.owner, self.value = owner, value

            def __index__(self):
                self.owner.clear()  # drops every element, this one included
                gc.collect()
                return self.value

        sizes = []
        sizes.extend([Evil(sizes, 2), Evil(sizes, 3), 4])
        print(tuple(yaten.zeros(sizes, device=device).shape))
        dims = []
        dims.extend([Evil(dims, 0), Evil(dims, 2)])
        print(tuple(yaten.ones(2, 3, 4, device=device).sum(dims).shape))
        view = []
        view.extend([Evil(view, 6), Evil(view, 4)])
        print(tuple(yaten.arange(24, device=device).view(view).shape))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "SKBUILD_EDITABLE_VERBOSE": "0"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:3] == ["(2, 3, 4)", "(3,)", "(6, 4)"]
