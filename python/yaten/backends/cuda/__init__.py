"""yaten.backends.cuda: `matmul.allow_tf32`, as torch.backends.cuda.

`allow_tf32` and `yaten.set_float32_matmul_precision` are one setting: True is precision "high" (float32 matmul on
CUDA may round its inputs to TF32 for tensor cores), False is "highest" (the default: full float32 products).
"""

from __future__ import annotations

from ... import _C


def is_built() -> bool:
    """Whether this build of yaten includes the CUDA backend."""
    return bool(_C._build_config["cuda"])


class _MatmulSettings:
    @property
    def allow_tf32(self) -> bool:
        return bool(_C._get_float32_matmul_precision() != 0)

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        _C._set_float32_matmul_precision(1 if value else 0)

    def __repr__(self) -> str:
        return f"<yaten.backends.cuda.matmul allow_tf32={self.allow_tf32}>"


matmul = _MatmulSettings()
