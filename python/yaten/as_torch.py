"""Run an unmodified torch program on yaten: `python -m yaten.as_torch script.py ARGS` (or `-m module ARGS`).

For that run only, `import torch` and every `import torch.X.Y` resolve to yaten and yaten.X.Y (torch.utils.data to
yaten.utils.data, torch.nn.functional to yaten.nn.functional, ...). An installed torch is never touched: the mapping
lives in this process's import system, and a torch submodule that yaten lacks is an ImportError naming it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import runpy
import sys
from types import ModuleType
from typing import Any, Sequence

# torch module name -> yaten module name, where they differ
_RENAMES = {"torch": "yaten"}


def yaten_name(torch_name: str) -> str:
    """The yaten module that stands for a torch module name."""
    head, _, rest = torch_name.partition(".")
    return "yaten" + ("." + rest if rest else "") if head == "torch" else torch_name


class _Loader(importlib.abc.Loader):
    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def create_module(self, spec: Any) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        pass


class TorchToYaten(importlib.abc.MetaPathFinder):
    """Finds `torch` and `torch.*` as the yaten modules of the same path."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        target_name = yaten_name(fullname)
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and (exc.name == target_name or target_name.startswith(exc.name + ".")):
                raise ModuleNotFoundError(f"No module named '{fullname}': yaten has no {target_name} (running "
                                          "under yaten.as_torch)", name=fullname) from None
            raise
        return importlib.machinery.ModuleSpec(fullname, _Loader(module), is_package=hasattr(module, "__path__"))


def install() -> None:
    """Makes `import torch` mean yaten in this process (removing any torch modules already imported)."""
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        del sys.modules[name]
    if not any(isinstance(f, TorchToYaten) for f in sys.meta_path):
        sys.meta_path.insert(0, TorchToYaten())


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        raise SystemExit(0 if args else 2)
    install()
    if args[0] == "-m":
        if len(args) < 2:
            raise SystemExit("yaten.as_torch: -m needs a module name")
        sys.argv = args[1:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = args
        sys.path.insert(0, str(__import__("pathlib").Path(args[0]).resolve().parent))
        runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    main()
