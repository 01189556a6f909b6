"""yaten: a compact tensor library in the image of PyTorch's ATen, whose operators are declared once in ops.yaml.

`import yaten` loads the compiled core (`yaten._C`), which holds the Tensor type, the dtypes and every generated
op, and adds the few Python-level pieces (printing, conversions, devices).
"""

from __future__ import annotations

from pathlib import Path

from . import _C
from ._C import *  # noqa: F401,F403  (every generated op, the dtypes, Tensor)
from ._C import Tensor, dtype, get_default_dtype, promote_types, set_default_dtype, tensor  # noqa: F401
from ._device import device
from . import _tensor  # noqa: F401  (installs Python-level Tensor methods)
from . import cuda, fft, library, linalg, nn, special  # noqa: F401
from ._C import return_types  # noqa: F401
from ._ops import Ops

ops = Ops()  # yaten.ops.list(), yaten.ops.yaten.add.Tensor(...), yaten.ops.mylib.scale(...)

__version__ = "0.1.0"

# Aliases torch users reach for.
float = _C.float32  # noqa: A001
double = _C.float64
half = _C.float16
long = _C.int64
int = _C.int32  # noqa: A001
short = _C.int16
bool = _C.bool  # noqa: A001


def generated_dir() -> Path:
    """Where the generated sources that this build compiled are installed."""
    return Path(_C.__file__).resolve().parent / "generated"
