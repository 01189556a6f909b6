"""`python -m yaten`: a short tour of this build."""

from __future__ import annotations

import yaten
from yaten import _C


def main() -> None:
    config = _C._build_config
    ops = yaten.ops.list()
    cuda = "built" if config["cuda"] else "not built"
    if config["cuda"]:
        # "90" (machine code for sm_90 and its PTX) or "90-virtual" (the PTX alone, where the build saw no GPU:
        # Note [PTX where no GPU is visible] in CMakeLists.txt)
        arch = config["cuda_architectures"]
        code = f"compute_{arch[:-8]} PTX" if arch.endswith("-virtual") else f"sm_{arch}"
        cuda += f" ({code}), {yaten.cuda.device_count()} device(s) visible"
    print(f"yaten {yaten.__version__}")
    print(f"  compiler       {config['compiler']} ({config['build_type']})")
    print(f"  CUDA           {cuda}")
    # the BLAS is opened at import from the scipy-openblas32 wheel (yaten/_blas.py), not linked at build time
    blas = _C._blas_config() or "none loaded (pip install scipy-openblas32 for float32/float64 matmul)"
    print(f"  BLAS           {blas}")
    print(f"  operators      {len(ops)} overloads registered with the dispatcher")
    print(f"  generated code {yaten.generated_dir()}")
    print("  inspect an op  python -m yaten.codegen show add")
    print()
    a = yaten.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = yaten.arange(2)
    print(">>> a = yaten.tensor([[1., 2.], [3., 4.]]); b = yaten.arange(2)")
    print(">>> a + b * 2")
    print(a + b * 2)


if __name__ == "__main__":
    main()
