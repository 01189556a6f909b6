"""Extensions: a user's own ops.yaml and C++/CUDA kernels, built into a Python module that registers its ops into
yaten's dispatcher (docs/extensions.md).

Ahead of time, a package builds with CMake (``find_package(yaten CONFIG)``, ``yaten_add_extension``; see
``cmake_prefix_path()``). Just in time, from a script::

    ext = yaten.utils.cpp_extension.load("myext", sources=["kernels/cpu.h", "extra.cpp"], ops_yaml="ops.yaml")
    ext.myop(x)                       # also yaten.ops.myext.myop(x)

``load`` runs yaten's generator on the extension's ops.yaml, writes a Ninja file (no CMake on this path), and
builds in a cache directory keyed by everything that goes into the module: a second call with the same inputs
loads the built module without compiling (or importing the generator). Builds of one extension are serialized by
an OS file lock, which the kernel releases when its process dies, so a killed build never blocks a later one, and
a module is published by an atomic rename, so no one loads half a file.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.machinery
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from types import ModuleType
from typing import Sequence

__all__ = ["load", "load_inline", "include_paths", "library_paths", "cmake_prefix_path", "BuildError",
           "extensions_dir"]

HEADER_SUFFIXES = (".h", ".hpp", ".cuh")
CXX_SUFFIXES = (".cpp", ".cc", ".cxx")
CUDA_SUFFIXES = (".cu",)


class BuildError(RuntimeError):
    """An extension failed to build: the message quotes the compiler's errors (file:line:col) or the ops.yaml
    diagnostics (ops.yaml:line:col), and names the full log."""


def _package_dir() -> Path:
    """Where the compiled yaten lives (libyaten, _C, the installed headers); with an editable install it differs
    from the directory of the Python sources."""
    from .. import _C

    return Path(_C.__file__).resolve().parent


def include_paths(cuda: bool = False) -> list[str]:
    """The directories an extension compiles against: yaten's headers (csrc/ as installed) and its generated op
    headers (yaten/ops/*.h); with cuda=True, also the CUDA toolkit's."""
    root = _package_dir()
    include, generated = root / "include", root / "generated"
    if not (include / "dispatch" / "library.h").is_file():
        raise RuntimeError(f"yaten at {root} was installed without its C++ headers (no {include}); reinstall it "
                           "with `pip install` from a source tree that has csrc/")
    paths = [str(include), str(generated), sysconfig.get_paths()["include"]]
    if cuda:
        home = _cuda_home()
        if home:
            paths.append(str(home / "include"))
    return paths


def library_paths() -> list[str]:
    """The directory of libyaten.so, which extensions link (never yaten._C)."""
    return [str(_package_dir())]


def cmake_prefix_path() -> str:
    """The prefix under which CMake finds yaten's package: ``cmake -DCMAKE_PREFIX_PATH=$(python -c ...)``; the
    package's config also sets YATEN_INCLUDE_DIRS and the imported target yaten::yaten."""
    return str(_package_dir() / "share" / "cmake")


def extensions_dir() -> Path:
    """The cache of built extensions: $YATEN_EXTENSIONS_DIR, else $XDG_CACHE_HOME/yaten_extensions (~/.cache)."""
    if os.environ.get("YATEN_EXTENSIONS_DIR"):
        return Path(os.environ["YATEN_EXTENSIONS_DIR"]).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "yaten_extensions"


def _cuda_home() -> Path | None:
    """The CUDA toolkit: $CUDA_HOME, $CUDA_PATH, the one nvcc on PATH belongs to, or /usr/local/cuda; the first
    that has both nvcc and the runtime's headers."""
    nvcc = shutil.which("nvcc")
    candidates = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"),
                  str(Path(nvcc).resolve().parent.parent) if nvcc else None, "/usr/local/cuda"]
    for c in candidates:
        if c and (Path(c) / "bin" / "nvcc").exists() and (Path(c) / "include" / "cuda_runtime.h").exists():
            return Path(c)
    return None


def _ninja() -> str:
    found = shutil.which("ninja")
    if found:
        return found
    try:
        import ninja  # the PyPI package carries the binary

        return str(Path(ninja.BIN_DIR) / "ninja")
    except ImportError:
        raise RuntimeError("yaten.utils.cpp_extension needs Ninja to build extensions: `pip install ninja`") from None


def _compiler() -> str:
    return os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or "c++"


def _valid_name(name: str) -> None:
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"load(): the extension's name must be a Python identifier (it names the module and its "
                         f"PyInit_ function), got {name!r}")


class _Steps:
    """verbose=True: each step and its time."""

    def __init__(self, name: str, verbose: bool) -> None:
        self.name, self.verbose = name, verbose
        self.start = time.perf_counter()
        self.last = self.start

    def __call__(self, what: str) -> None:
        now = time.perf_counter()
        if self.verbose:
            print(f"[yaten.cpp_extension {self.name}] {what} ({now - self.last:.2f} s, {now - self.start:.2f} s in all)",
                  file=sys.stderr, flush=True)
        self.last = now


def load(name: str, sources: Sequence[str | os.PathLike] = (), ops_yaml: str | os.PathLike | None = None,
         extra_cflags: Sequence[str] = (), extra_cuda_cflags: Sequence[str] = (), extra_ldflags: Sequence[str] = (),
         extra_include_paths: Sequence[str] = (), build_directory: str | os.PathLike | None = None,
         verbose: bool = False) -> ModuleType:
    """Builds (or finds built) and imports the extension `name`.

    sources: the extension's files. Headers (.h for CPU and composite kernels, .cuh for CUDA kernels) hold the
    kernels its ops.yaml names, found there as yaten finds its own under csrc/kernels/; .cpp and .cu files are
    compiled too (for instance YATEN_LIBRARY_IMPL blocks that add a kernel to an existing op). ops_yaml: the
    extension's ops file, starting with `- namespace: NAME`; without one, the module has no generated functions
    and the sources register what they define themselves. The module gets one Python function per op, and the ops
    are also `yaten.ops.NAMESPACE.op`.
    """
    _valid_name(name)
    steps = _Steps(name, verbose)
    files = [Path(s).resolve() for s in sources]
    for f in files:
        if not f.is_file():
            raise FileNotFoundError(f"load({name}): no source file {f}")
        if f.suffix not in HEADER_SUFFIXES + CXX_SUFFIXES + CUDA_SUFFIXES:
            raise ValueError(f"load({name}): {f.name}: expected .h/.cuh headers or .cpp/.cu sources")
    yaml_path = Path(ops_yaml).resolve() if ops_yaml is not None else None
    if yaml_path is not None and not yaml_path.is_file():
        raise FileNotFoundError(f"load({name}): no ops file {yaml_path}")
    with_cuda = any(f.suffix in CUDA_SUFFIXES + (".cuh",) for f in files)
    if with_cuda and _cuda_home() is None:
        raise RuntimeError(f"load({name}): CUDA sources need nvcc; set CUDA_HOME or put nvcc on PATH")
    from .. import _C

    if with_cuda and not _C._build_config["cuda"]:
        raise RuntimeError(f"load({name}): this yaten was built without CUDA, so its CUDA kernels cannot be linked; "
                           "leave the .cu/.cuh sources out, or reinstall yaten with nvcc available")

    flags = {"cflags": list(extra_cflags), "cuda_cflags": list(extra_cuda_cflags), "ldflags": list(extra_ldflags),
             "include": [str(Path(p).resolve()) for p in extra_include_paths]}
    key = _cache_key(name, files, yaml_path, flags, with_cuda, Path(_C.__file__))
    build = Path(build_directory).resolve() if build_directory is not None else extensions_dir() / name
    published = build / f"{name}-{key}.so"
    steps(f"hashed the inputs: {key}")
    if published.exists():  # built before: no lock, no generator, no compiler
        module = _import(name, published)
        steps(f"loaded {published}")
        return module

    build.mkdir(parents=True, exist_ok=True)
    with open(build / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released by the kernel if this process dies
        steps("holding the build lock")
        if not published.exists():  # another process may have built it while this one waited
            _build(name, build, files, yaml_path, flags, with_cuda, steps)
            tmp = build / f".{name}-{key}.so.{os.getpid()}"
            shutil.copyfile(build / f"{name}.so", tmp)
            os.replace(tmp, published)  # atomic: a reader sees the old state or the whole module
            for old in build.glob(f"{name}-*.so"):  # earlier versions of this extension
                if old != published:
                    old.unlink(missing_ok=True)
            steps(f"published {published.name}")
    module = _import(name, published)
    steps("imported")
    return module


def load_inline(name: str, ops_yaml: str, cpp_sources: str | Sequence[str] = (),
                cuda_sources: str | Sequence[str] = (), **kwargs) -> ModuleType:
    """load() from strings: `ops_yaml` is the text of the ops file; `cpp_sources` are headers holding the CPU and
    composite kernels it names; `cuda_sources`, the CUDA kernels. They are written to files under the build
    directory (a file is rewritten only when its text changes), then built as load() does. A source holding
    YATEN_LIBRARY/YATEN_LIBRARY_IMPL blocks is also compiled on its own, so its registrations run; keep those in a
    string apart from the kernels, which the generated wrappers include."""
    _valid_name(name)
    cpp = [cpp_sources] if isinstance(cpp_sources, str) else list(cpp_sources)
    cuda = [cuda_sources] if isinstance(cuda_sources, str) else list(cuda_sources)
    build = Path(kwargs.pop("build_directory", None) or extensions_dir() / name).resolve()
    src = build / "inline"
    src.mkdir(parents=True, exist_ok=True)
    files = []

    def put(filename: str, text: str) -> Path:
        path = src / filename
        if not path.exists() or path.read_text() != text:
            tmp = path.with_name(path.name + f".{os.getpid()}")
            tmp.write_text(text)
            os.replace(tmp, path)
        return path

    ops = put("ops.yaml", ops_yaml)
    for i, text in enumerate(cpp):
        files.append(put(f"cpp_{i}.h", text))
        if "YATEN_LIBRARY" in text:  # registrations of its own: also a translation unit of its own
            files.append(put(f"cpp_{i}.cpp", f'#include "cpp_{i}.h"\n'))
    for i, text in enumerate(cuda):
        files.append(put(f"cuda_{i}.cuh", text))
        if "YATEN_LIBRARY" in text:
            files.append(put(f"cuda_{i}.cu", f'#include "cuda_{i}.cuh"\n'))
    return load(name, files, ops, build_directory=build, **kwargs)


# ------------------------------------------------------------------------------------------------ internals


def _cache_key(name: str, files: list[Path], yaml_path: Path | None, flags: dict, with_cuda: bool,
               core: Path) -> str:
    from .. import __version__

    h = hashlib.sha256()

    def add(*parts: object) -> None:
        for p in parts:
            h.update(str(p).encode())
            h.update(b"\0")

    compiler = _compiler()
    stat = core.stat()
    # The compiler and yaten itself (its version and the build of libyaten/_C it would link) are inputs too.
    add(name, __version__, core, stat.st_size, stat.st_mtime_ns, compiler, shutil.which(compiler) or "",
        sys.version_info[:2], sorted(flags.items()), with_cuda)
    for f in files:
        add(f)
        h.update(f.read_bytes())
    if yaml_path is not None:
        add(yaml_path)
        h.update(yaml_path.read_bytes())
    return h.hexdigest()[:16]


def _import(name: str, path: Path) -> ModuleType:
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(path):
        return sys.modules[name]
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules[name] = module
    return module


def _generate(name: str, build: Path, files: list[Path], yaml_path: Path | None, with_cuda: bool) -> list[Path]:
    """Runs yaten's generator on the extension's ops.yaml into build/generated; returns the sources to compile."""
    from ..codegen import gen, parse

    out = build / "generated"
    if yaml_path is None:
        (out).mkdir(parents=True, exist_ok=True)
        module = out / "module.cpp"
        text = ('#include "python/extension.h"\n'
                'static ::yaten::python::ExtensionFunctions functions_;\n'
                f'extern "C" __attribute__((visibility("default"))) PyObject* PyInit_{name}() {{\n'
                f'  return ::yaten::python::create_extension_module("{name}", "{name}", functions_, nullptr);\n}}\n')
        if not module.exists() or module.read_text() != text:
            module.write_text(text)
        return [module]
    kernels = parse.find_kernels_in_files([f for f in files if f.suffix in HEADER_SUFFIXES], yaml_path.parent)
    try:
        ops_file = parse.loads(yaml_path.read_text(), str(yaml_path), kernels=kernels)
        generated = gen.generate(ops_file, name)
    except parse.ParseError as e:
        lines = "\n".join(str(d) for d in e.diagnostics)
        raise BuildError(f"load({name}): {yaml_path.name} has errors:\n{lines}") from None
    except ValueError as e:  # generation-time checks, which carry their own file:line
        raise BuildError(f"load({name}): {e}") from None
    if ops_file.namespace == "yaten":
        raise BuildError(f"load({name}): {yaml_path}:1:1: error: an extension's ops file starts with "
                         "`- namespace: NAME` (its ops' namespace, e.g. myext); yaten's own is taken")
    gen.write(generated, out)
    return [out / f.path for f in generated if f.path.endswith((".cpp", ".cu") if with_cuda else ".cpp")]


def _build(name: str, build: Path, files: list[Path], yaml_path: Path | None, flags: dict, with_cuda: bool,
           steps: _Steps) -> None:
    sources = _generate(name, build, files, yaml_path, with_cuda)
    steps(f"generated {len(sources)} sources from {yaml_path.name if yaml_path else 'no ops file'}")
    sources += [f for f in files if f.suffix in CXX_SUFFIXES + CUDA_SUFFIXES]
    root = yaml_path.parent if yaml_path is not None else build
    includes = [str(root), str(build / "generated"), *flags["include"],
                *sorted({str(f.parent) for f in files}), *include_paths(cuda=with_cuda)]
    _write_ninja(name, build, sources, includes, flags, with_cuda)
    steps("wrote build.ninja")
    result = subprocess.run([_ninja(), "-C", str(build)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    (build / "build.log").write_text(result.stdout)
    if result.returncode != 0:
        raise BuildError(f"load({name}): the build failed\n{_compiler_errors(result.stdout)}\n"
                         f"(the whole log: {build / 'build.log'})")
    steps(f"compiled and linked {len(sources)} files")


def _q(s: str) -> str:
    return s.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


def _write_ninja(name: str, build: Path, sources: list[Path], includes: list[str], flags: dict,
                 with_cuda: bool) -> None:
    inc = " ".join(f"-I{_q(i)}" for i in includes)
    libdir = library_paths()[0]
    version_script = build / "exports.map"
    text = f"{{\n  global: PyInit_{name};\n  local: *;\n}};\n"
    if not version_script.exists() or version_script.read_text() != text:
        version_script.write_text(text)
    # -O2, -march=native and the two math flags as yaten's own kernels are built (CMakeLists.txt: without
    # -fno-trapping-math a functor's `x > 0 ? x : x * a` keeps a branch per element on AVX2); no -fvisibility=hidden:
    # yaten's types must compare equal across the library boundary (typeinfo), and the version script keeps the
    # module's own exports to its PyInit_ function.
    cflags = ["-O2", "-std=c++17", "-fPIC", "-DNDEBUG", "-march=native", "-fno-math-errno", "-fno-trapping-math",
              "-Wno-unused-parameter", *flags["cflags"]]
    ldflags = ["-shared", f"-L{libdir}", "-lyaten", f"-Wl,-rpath,{libdir}",
               f"-Wl,--version-script={version_script}", "-Wl,--exclude-libs,ALL"]
    cuda_rules: list[str] = []
    if with_cuda:
        home = _cuda_home()
        assert home is not None  # load() checked
        arch = os.environ.get("YATEN_CUDA_ARCH", "90")
        cuda_flags = ["-O2", "-std=c++17", "-Xcompiler", "-fPIC", "--expt-relaxed-constexpr", "-DNDEBUG",
                      f"-gencode=arch=compute_{arch},code=sm_{arch}", f"-I{home}/include/cccl",
                      *flags["cuda_cflags"]]
        cuda_rules = [f"nvcc = {home}/bin/nvcc", f"cuda_cflags = {' '.join(cuda_flags)} {inc}",
                      "rule cuda",
                      "  command = $nvcc -MD -MF $out.d $cuda_cflags -c $in -o $out",
                      "  depfile = $out.d",
                      "  deps = gcc",
                      "  description = compiling $in"]
        # cudart linked statically, as in libyaten (Design rule [libyaten]); its symbols stay local (--exclude-libs).
        libdirs = [d for d in (home / "lib64", home / "lib", home / "targets" / "x86_64-linux" / "lib")
                   if (d / "libcudart_static.a").exists()]
        ldflags += [*(f"-L{d}" for d in libdirs[:1]), "-lcudart_static", "-ldl", "-lrt", "-lpthread"]
    ldflags += flags["ldflags"]
    lines = [
        "# written by yaten.utils.cpp_extension.load(); rewritten on each build",
        "ninja_required_version = 1.3",
        f"cxx = {_compiler()}",
        f"cflags = {' '.join(cflags)} {inc}",
        f"ldflags = {' '.join(ldflags)}",
        "rule cxx",
        "  command = $cxx -MMD -MF $out.d $cflags -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = compiling $in",
        "rule link",
        "  command = $cxx $in $ldflags -o $out",
        "  description = linking $out",
        *cuda_rules,
    ]
    objects = []
    for src in sources:
        digest = hashlib.sha256(str(src).encode()).hexdigest()[:8]
        obj = f"obj/{src.stem}-{digest}.o"
        objects.append(obj)
        rule = "cuda" if src.suffix in CUDA_SUFFIXES else "cxx"
        lines.append(f"build {obj}: {rule} {_q(str(src))}")
    lines.append(f"build {name}.so: link {' '.join(objects)}")
    lines.append(f"default {name}.so")
    text = "\n".join(lines) + "\n"
    path = build / "build.ninja"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


_ERROR_LINE = re.compile(r"^(?P<loc>[^\s:][^:]*:\d+(?::\d+)?):\s*(?:fatal )?error", re.M)


def _compiler_errors(log: str, limit: int = 12) -> str:
    """The compiler's error lines (file:line:col: error: ...) and the source lines it quotes under them, without
    Ninja's command lines or the include traces; the whole log when nothing matched (a link error)."""
    lines = log.splitlines()
    out: list[str] = []
    count = 0
    for i, line in enumerate(lines):
        if _ERROR_LINE.match(line) or ": undefined reference to" in line:
            count += 1
            if count > limit:
                out.append("... and more errors; see the whole log")
                break
            out.append(line)
            for follow in lines[i + 1:i + 3]:  # the quoted source line and the caret
                if follow.startswith(" ") and not _ERROR_LINE.match(follow):
                    out.append(follow)
    if not out:
        tail = [l for l in lines if not l.startswith("[")][-40:]
        return "\n".join(tail)
    return "\n".join(out)
