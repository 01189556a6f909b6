"""Backend switches and libraries opened at run time, on any machine (no GPU needed)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import yaten


def test_float32_matmul_precision_and_allow_tf32_are_one_setting():
    assert yaten.get_float32_matmul_precision() == "highest"  # torch's default
    assert yaten.backends.cuda.matmul.allow_tf32 is False
    try:
        yaten.set_float32_matmul_precision("medium")
        assert yaten.backends.cuda.matmul.allow_tf32 is True
        yaten.backends.cuda.matmul.allow_tf32 = False
        assert yaten.get_float32_matmul_precision() == "highest"
        yaten.backends.cuda.matmul.allow_tf32 = True
        assert yaten.get_float32_matmul_precision() == "high"
        a = yaten.ones(3, 4)
        assert (a @ a.t()).tolist() == [[4.0] * 3] * 3  # the CPU's BLAS is untouched by the setting
    finally:
        yaten.set_float32_matmul_precision("highest")
    with pytest.raises(ValueError, match="set_float32_matmul_precision.*'low'"):
        yaten.set_float32_matmul_precision("low")


@pytest.mark.skipif(not yaten.cuda.is_built(), reason="built without CUDA")
@pytest.mark.parametrize("library,variable,soname", [("cublas", "YATEN_CUBLAS", "libcublas.so.13"),
                                                     ("cufft", "YATEN_CUFFT", "libcufft.so.12"),
                                                     ("cusolver", "YATEN_CUSOLVER", "libcusolver.so.12")])
def test_cuda_libraries_are_found_or_named_with_what_to_install(library, variable, soname):
    # Opening libcublas, libcufft or libcusolver needs no GPU. In a fresh process, so that whether one is installed is what is
    # tested.
    code = (f"import yaten\ntry:\n    print('path', yaten.cuda._{library}_path())\n"
            "except RuntimeError as e:\n    print('error', e)\n")
    env = dict(os.environ, **{variable: f"/nonexistent/{soname}"})
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120).stdout
    if out.startswith("path"):
        assert f"lib{library}.so" in out
    else:
        assert out.startswith("error") and f"pip install nvidia-{library}" in out and soname in out, out

