"""yaten: a compact tensor library in the image of PyTorch's ATen, whose operators are declared once in ops.yaml.

`import yaten` loads the compiled core (`yaten._C`), which holds the Tensor type, the dtypes and every generated
op, and adds the few Python-level pieces (printing, conversions, devices); yaten/_namespace.py does it.
"""

import sys as _sys

# Note [The generator needs no build]
# `python -m yaten.codegen check|show|list|explain` reads ops.yaml and the kernel headers, nothing compiled. Python
# imports this package first, and in the fast developer loop (an editable install with editable.rebuild) the first
# import of a compiled module (`yaten._C`) reruns CMake and Ninja: 15 s or more after an edit, and a check of a
# broken ops.yaml would end in a failed build instead of the check's own located messages. So when the command line
# is the generator's, the package stops here, empty but for its subpackages (yaten.codegen is plain Python).


def _generator_command(argv: list) -> bool:
    """Whether the interpreter was started as `python [options] -m yaten.codegen ...`."""
    args = iter(argv[1:])
    for arg in args:
        if arg in ("-X", "-W"):  # options with a value: `-X importtime`
            next(args, None)
        elif arg == "-m":
            return next(args, None) == "yaten.codegen"
        elif arg.startswith("-m"):
            return arg == "-myaten.codegen"
        elif arg == "-c" or not arg.startswith("-"):  # a command or a script
            return False
    return False


_GENERATOR_ONLY = _generator_command(_sys.orig_argv)

if not _GENERATOR_ONLY:
    try:
        from ._namespace import *  # noqa: F401,F403
        from ._namespace import __version__, _tensor_from_ndarray  # noqa: F401  (the C++ tensor() calls the latter)
        from ._namespace import _PUBLIC_UNDERSCORE_OPS

        globals().update(_PUBLIC_UNDERSCORE_OPS)  # yaten._foreach_add_, ... (`import *` skips them)
    except Exception as _e:  # noqa: BLE001
        import subprocess as _subprocess

        if not isinstance(_e, _subprocess.CalledProcessError):
            raise
        # The editable install's rebuild failed (scikit-build-core's import hook ran `cmake --build`): the
        # generator's located `ops.yaml:LINE:COL: error:` lines, or the compiler's, are printed above. Say so in one
        # line instead of the hook's traceback.
        raise ImportError(
            "yaten: the rebuild started by this import failed (its errors are printed above); fix them and import "
            "again, or run `python -m yaten.codegen check` to see ops.yaml's errors alone") from None
