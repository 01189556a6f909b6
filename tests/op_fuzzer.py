"""An op fuzzer driven by ops.yaml (the reliability issue, item 2).

Every overload in ops.yaml is called with generated arguments: right and wrong types, shapes with zero-size dims,
negative and out-of-range dims, indices and sizes, sizes whose products overflow int64, NaN and infinities, every
dtype, non-contiguous and expanded inputs, `out=` tensors that alias or overlap the inputs, (on a machine with a
GPU) tensors on another device, and the hostile classes: tensors over foreign memory (read-only and writable NumPy
arrays, memory maps in each mode, DLPack capsules that say read-only, unaligned and Fortran-ordered arrays), Python
objects that misbehave while yaten reads them (an `__index__` that empties its own list and collects garbage, an
`__index__`/`__float__` that raises or returns the wrong type, a sequence whose `__len__` lies or whose `__iter__`
raises partway), and resource limits (thread counts the process may not be able to create, an address-space limit
tightened to a few MiB above what the worker holds). Each call goes through one of the op's Python faces: its function
(`yaten.add`, `yaten.linalg.vector_norm`, ...), its method (`t.add(...)`), or the dispatcher's boxed path
(`yaten.ops.yaten.add.Tensor(...)`).

A call must end in a result or in one of the Python exceptions a user can catch (TypeError, ValueError, IndexError,
RuntimeError, NotImplementedError; OverflowError for a Python number past int64, as torch). Everything else is a
finding: the process dying (a crash, an abort from an uncaught C++ exception, a stack overflow), a hang, any other
exception (SystemError, ...), a tensor whose shape, numel, strides and storage disagree (every tensor a call
returns or was given is checked), a read-only source whose values changed, or a thread pool left at a size other than
the one set or refused. An exception the hostile object raised itself (`HostileError`) may pass through, and under a
tightened address space so may Python's own MemoryError.

Calls are written as short, standalone Python programs over the helper `T(dtype, shape, layout, fill)`, so each
finding comes with its reproduction. They run in worker processes (memory-capped, one thread each): a worker that
dies or hangs is replaced, and the call it was running is the finding.

    python tests/op_fuzzer.py --calls 20000 [--seed 0] [--workers 2]
"""

from __future__ import annotations

import argparse
import errno
import json
import keyword
import os
import random
import select
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = ("TypeError", "ValueError", "IndexError", "RuntimeError", "NotImplementedError", "OverflowError")
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
SHAPES = ((), (0,), (1,), (5,), (2, 3), (3, 0), (2, 3, 4), (1, 3, 1), (2, 1, 3, 2), (1, 1, 2, 2, 2))
LAYOUTS = ("contiguous", "transposed", "strided", "expanded")
FILLS = ("range", "special", "index", "ones")
SMALL_INTS = (0, 1, 2, 3, -1, -2, 4)
HUGE_INTS = (2**31, 2**62, 2**63 - 1, -2**63, 2**64, 2**70, -2**70)
FLOATS = ("0.0", "1.0", "-1.0", "0.5", "2.5", "1e-300", "1e308", "nan", "inf", "-inf")
STRINGS = ("'mean'", "'sum'", "'none'", "'trunc'", "'floor'", "'tanh'", "'left'", "'right'", "'constant'",
           "'reflect'", "'replicate'", "'circular'", "'ij'", "'xy'", "'ij,jk->ik'", "'i,i->'", "''", "'bogus'")
FOREIGN = ("numpy-readonly", "numpy-writable", "memmap-r", "memmap-c", "memmap-r+", "dlpack-readonly",
           "as_tensor-readonly", "unaligned", "fortran")
ACTS = ("clear", "raise", "wrong", "big", "ok")  # what a Hostile number does when yaten converts it
SEQ_ACTS = ("long", "short", "raise")  # what a HostileSeq does when yaten reads it
THREADS = (2, 3, 16, 1000, 10**6)
WRONG = ("'x'", "[1]", "None", "1.5", "object()", "yaten.float32", "(2, 'a')", "True",
         "T('float32', (2,), 'contiguous', 'range')")

# What each worker runs before the calls: the tensor helper and the result check.
PRELUDE = r'''
import errno, gc, math, os, resource, sys, tempfile, warnings
if MEMORY_LIMIT > 0:  # not under AddressSanitizer, which reserves terabytes of address space
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
import numpy as np
import yaten
yaten.set_num_threads(1)
warnings.simplefilter("ignore")
nan, inf = math.nan, math.inf
SOURCES = []  # (read-only array, its values before the call): they must not change
TIGHT = [False]  # whether this call runs under a tightened address space

def T(dtype, shape, layout="contiguous", fill="range", device="cpu"):
    """A small tensor: `layout` contiguous, transposed (reversed strides), strided (every other element of a
    larger tensor), each with the same values, or expanded (the first row repeated by a stride 0); `fill` range
    (negative to positive), special (NaN, infinities, zeros, extremes), index (0, 1, 2) or ones."""
    dt = getattr(yaten, dtype)
    n = math.prod(shape)
    if fill == "range":
        values = yaten.arange(n, dtype=yaten.float64) - n // 2
    elif fill == "special":
        values = yaten.tensor([nan, inf, -inf, 0.0, -0.0, 1e30, -1e-30, 3.0] * (n // 8 + 1))[:n]
    elif fill == "index":
        values = yaten.arange(n, dtype=yaten.float64) % 3
    else:
        values = yaten.ones(n, dtype=yaten.float64)
    values = values.to(dt)
    if layout == "transposed" and len(shape) >= 2:
        order = tuple(reversed(range(len(shape))))
        # the same values, with the dims reversed in memory
        t = values.reshape(shape).permute(*order).contiguous().permute(*order)
    elif layout == "strided" and len(shape) >= 1:
        t = yaten.zeros((shape[0] * 2,) + tuple(shape[1:]), dtype=dt)[::2]
        t.copy_(values.reshape(shape))
    elif layout == "expanded" and len(shape) >= 1:
        t = values.reshape(shape)[:1].expand(*shape) if shape[0] > 0 else values.reshape(shape)
    else:
        t = values.reshape(shape)
    return t.to(device) if device != "cpu" else t

def F(dtype, shape, kind, fill="range"):
    """A tensor over foreign memory with T's values: a NumPy array read-only or writable, a memory map opened 'r',
    'c' (copy on write) or 'r+', a read-only array through DLPack or as_tensor, an array one byte off its alignment,
    or one in Fortran order."""
    if dtype == "bfloat16":  # NumPy has no bfloat16
        dtype = "float32"
    values = T(dtype, shape, "contiguous", fill).numpy()
    if kind.startswith("memmap") and values.nbytes > 0:
        fd, path = tempfile.mkstemp()
        os.close(fd)
        values.tofile(path)
        a = np.memmap(path, dtype=values.dtype, mode=kind.split("-")[1], shape=values.shape)
        os.unlink(path)  # the mapping outlives the name
    elif kind == "unaligned":
        a = np.frombuffer(bytearray(values.nbytes + 1), dtype=np.uint8)[1:].view(values.dtype).reshape(values.shape)
        a[...] = values
    elif kind == "fortran":
        a = np.asfortranarray(values)
    else:
        a = values.copy()
    if kind.endswith("readonly") or kind == "memmap-r" or (kind.startswith("memmap") and values.nbytes == 0):
        a.setflags(write=False)
        SOURCES.append((a, np.array(a, copy=True)))
    if kind == "dlpack-readonly":
        return yaten.from_dlpack(a)
    if kind == "as_tensor-readonly":
        return yaten.as_tensor(a)
    return yaten.from_numpy(a)

class HostileError(Exception):
    """Raised by a hostile object itself: yaten may let it through."""

class Hostile:
    """A number whose conversion misbehaves: 'clear' empties the list holding it (and collects garbage) before
    answering, 'raise' raises, 'wrong' answers with a string, 'big' with 2**80, 'ok' behaves."""
    def __init__(self, value, act):
        self.value, self.act, self.victim = value, act, None
    def _answer(self, kind):
        if self.act == "clear" and self.victim is not None:
            self.victim.clear()
            gc.collect()
        elif self.act == "raise":
            raise HostileError("hostile conversion")
        elif self.act == "wrong":
            return "x"
        elif self.act == "big":
            return 2**80
        return kind(self.value)
    def __index__(self):
        return self._answer(int)
    def __int__(self):
        return self._answer(int)
    def __float__(self):
        return float(self._answer(float))

def HL(values, at, act):
    """A list of `values` whose element `at` is a Hostile number linked to the list (so 'clear' empties it)."""
    out = list(values)
    h = Hostile(out[at], act)
    h.victim = out
    out[at] = h
    return out

class HostileSeq:
    """A sequence of `items` whose __len__ says two more ('long') or one fewer ('short') than it yields, or whose
    __getitem__ and __iter__ raise after the first item ('raise')."""
    def __init__(self, items, act):
        self.items, self.act = list(items), act
    def __len__(self):
        n = len(self.items)
        return n + 2 if self.act == "long" else max(n - 1, 0) if self.act == "short" else n
    def __getitem__(self, i):
        if self.act == "raise" and i >= 1:
            raise HostileError("hostile item")
        return self.items[i]
    def __iter__(self):
        for i, x in enumerate(self.items):
            if self.act == "raise" and i >= 1:
                raise HostileError("hostile iteration")
            yield x

def threads(n):
    """Asks for `n` threads: yaten makes them all or raises and keeps the pool it had."""
    before = yaten.get_num_threads()
    try:
        yaten.set_num_threads(n)
    except (RuntimeError, ValueError):  # the system refused a thread, or past yaten's cap
        assert yaten.get_num_threads() == before, f"a refused set_num_threads({n}) left {yaten.get_num_threads()}"
        return
    assert yaten.get_num_threads() == n, f"set_num_threads({n}) left {yaten.get_num_threads()}"

def tight(mib):
    """Lowers the address-space limit to `mib` MiB above what the worker maps now, for the rest of the call."""
    if MEMORY_LIMIT <= 0:
        return
    with open("/proc/self/statm") as f:
        mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (mapped + (mib << 20), MEMORY_LIMIT))
    TIGHT[0] = True

def G(t):
    """`t`, requiring grad if it can."""
    return t.requires_grad_() if t.is_floating_point() else t

def backward(r):
    """Backpropagates from every output that requires grad (the op's derivative formulas, on the same inputs)."""
    for x in r if isinstance(r, (tuple, list)) else [r]:
        if isinstance(x, yaten.Tensor) and x.requires_grad:
            x.sum().backward(retain_graph=True)

def check(value, where):
    """Every tensor in `value` has shape, numel, strides and storage that agree."""
    if isinstance(value, (tuple, list)):
        for v in value:
            check(v, where)
        return
    if not isinstance(value, yaten.Tensor):
        return
    shape, strides = tuple(value.shape), tuple(value.stride())
    assert all(type(d) is int and d >= 0 for d in shape), f"{where}: bad shape {shape}"
    assert len(strides) == len(shape), f"{where}: {len(strides)} strides for shape {shape}"
    assert value.numel() == math.prod(shape), f"{where}: numel {value.numel()} for shape {shape}"
    assert value.dim() == len(shape), f"{where}: dim {value.dim()} for shape {shape}"
    if value.numel() == 0:
        return
    storage, offset, item = value.untyped_storage(), value.storage_offset(), value.element_size()
    low = offset + sum(min(0, (d - 1) * s) for d, s in zip(shape, strides))
    high = offset + sum(max(0, (d - 1) * s) for d, s in zip(shape, strides))
    assert low >= 0 and (high + 1) * item <= storage.nbytes(), (
        f"{where}: shape {shape} strides {strides} offset {offset} reach past a storage of {storage.nbytes()} bytes")
    assert value.data_ptr() == storage.data_ptr() + offset * item, f"{where}: data_ptr disagrees with the storage"
    if value.device.type == "cpu" and value.numel() <= 4096:
        value.tolist()  # reads every element

def relax():
    """Gives the worker its address space back after a tight() call."""
    if TIGHT[0]:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        TIGHT[0] = False

def run(code):
    try:
        return run_one(code)
    finally:
        relax()
        SOURCES.clear()
        yaten.set_num_threads(1)

def run_one(code):
    scope = {"yaten": yaten, "T": T, "G": G, "F": F, "HL": HL, "HostileSeq": HostileSeq, "Hostile": Hostile,
             "threads": threads, "tight": tight, "backward": backward, "nan": nan, "inf": inf}
    try:
        exec(code, scope)
    except BaseException as e:  # noqa: BLE001 (we classify everything)
        kind = type(e).__name__
        # under tight(), running out is allowed: Python's MemoryError, or ENOMEM from mmap (a memory-mapped argument
        # made after the limit was lowered)
        out_of_memory = isinstance(e, MemoryError) or (isinstance(e, OSError) and e.errno == errno.ENOMEM)
        allowed = isinstance(e, (TypeError, ValueError, IndexError, RuntimeError, NotImplementedError, OverflowError,
                                 HostileError)) or (TIGHT[0] and out_of_memory)
        relax()
        if isinstance(e, AssertionError) or not allowed:
            return {"outcome": "bad exception", "type": kind, "message": str(e)[:500]}
        outcome = {"outcome": "error", "type": kind}
    else:
        outcome = {"outcome": "result"}
        relax()
    try:
        for a, before in SOURCES:
            assert np.array_equal(a, before, equal_nan=a.dtype.kind in "fc"), "a read-only source changed"
        if outcome["outcome"] == "result":
            for name, value in scope.items():
                if name == "r" or name.startswith("a"):
                    check(value, name)
    except AssertionError as e:
        return {"outcome": "bad tensor", "message": str(e)[:500]}
    except BaseException as e:  # noqa: BLE001
        return {"outcome": "bad tensor", "message": f"reading it raised {type(e).__name__}: {str(e)[:300]}"}
    return outcome
'''

WORKER = PRELUDE + r'''
import json
out = sys.stdout
sys.stdout = sys.stderr  # an op that prints must not break the protocol
for line in sys.stdin:
    request = json.loads(line)
    out.write(json.dumps(run(request["code"])) + "\n")
    out.flush()
'''


@dataclass
class Call:
    op: str  # "yaten::add.Tensor"
    path: str  # "function", "method" or "ops"
    code: str


# ------------------------------------------------------------------------------------------------ generation


class CallWriter:
    """Writes one call of one overload as a program: `a0 = T(...)`, ..., `r = <call>`."""

    def __init__(self, draw_int, draw_choice, cuda: bool, hostile: int = 2) -> None:
        self.int = draw_int  # (low, high) -> int, inclusive
        self.choice = draw_choice  # sequence -> element
        self.cuda = cuda
        self.hostile = hostile  # percent: how often a tensor, number or list comes from a hostile class
        self.grad = False

    def chance(self, percent: int) -> bool:
        return self.int(0, 99) < percent

    def hostile_chance(self, percent: int) -> bool:
        """chance() for the hostile classes; with hostile=0 no draw at all, so the calls are those the fuzzer wrote
        before the classes existed (tests/torch_differ.py's, whose disagreements are listed by call)."""
        return self.hostile > 0 and self.chance(percent)

    def tensor(self, shape=None) -> str:
        dtype = self.choice(DTYPES) if self.chance(70) else "float32"
        shape = shape if shape is not None and self.chance(60) else self.choice(SHAPES)
        layout = self.choice(LAYOUTS) if self.chance(40) else "contiguous"
        fill = self.choice(FILLS)
        device = ", 'cuda'" if self.cuda and self.chance(10) else ""
        if self.hostile_chance(self.hostile):
            text = f"F({dtype!r}, {shape!r}, {self.choice(FOREIGN)!r}, {fill!r})"
        else:
            text = f"T({dtype!r}, {shape!r}, {layout!r}, {fill!r}{device})"
        return f"G({text})" if self.grad else text

    def integer(self) -> str:
        return str(self.choice(HUGE_INTS) if self.chance(10) else self.choice(SMALL_INTS))

    def hostile_number(self, value: str) -> str:
        return f"Hostile({value}, {self.choice(ACTS)!r})"

    def int_list(self, items: list[str]) -> str:
        """A list of ints, sometimes with a hostile element linked to it or as a sequence that lies."""
        if items and self.hostile_chance(self.hostile):
            if self.chance(50):
                return f"HL([{', '.join(items)}], {self.int(0, len(items) - 1)}, {self.choice(ACTS)!r})"
            return f"HostileSeq([{', '.join(items)}], {self.choice(SEQ_ACTS)!r})"
        return "[" + ", ".join(items) + "]"

    def value(self, a, shape, lines: list[str], tensors: list[str], receiver: bool = False) -> str:
        t = a.type
        if not receiver and t.optional and self.chance(30):
            return "None"
        if not receiver and self.chance(6):
            return self.choice(WRONG)
        base, is_list = t.base, t.list_size is not None
        if base == "Tensor":
            if is_list:
                items = [self.tensor(shape) for _ in range(self.int(0, 3))]
                if items and self.hostile_chance(self.hostile):
                    return f"HostileSeq([{', '.join(items)}], {self.choice(SEQ_ACTS)!r})"
                return "[" + ", ".join(items) + "]"
            if t.alias == "a!" and a.keyword_only and tensors and self.chance(50):
                victim = self.choice(tensors)  # an out= that aliases or overlaps an input
                return self.choice((victim, f"{victim}[:1]", f"{victim}.t()", f"{victim}.view(-1)"))
            var = f"a{len(lines)}"
            lines.append(f"{var} = {self.tensor(shape)}")
            tensors.append(var)
            return var
        if base == "int" and a.name == "memory_format":  # yaten.memory_format objects (torch's under torch)
            return self.choice(("yaten.contiguous_format", "yaten.preserve_format", "yaten.channels_last",
                                "yaten.channels_last_3d"))
        if base == "int":
            if is_list:
                if self.chance(15):
                    return self.integer()
                n = t.list_size or self.int(0, 4)
                return self.int_list([self.integer() for _ in range(n)])
            return self.hostile_number(self.integer()) if self.hostile_chance(self.hostile) else self.integer()
        if base in ("float", "Scalar") and self.hostile_chance(self.hostile):
            return self.hostile_number(self.choice(FLOATS[:6]))
        if base == "float":
            return self.choice(FLOATS) if not self.chance(20) else self.integer()
        if base == "Scalar":
            return self.choice(FLOATS + ("True", "False", "3", "-7", "2**70", "0"))
        if base == "bool":
            if is_list:
                return "[" + ", ".join(self.choice(("True", "False")) for _ in range(t.list_size)) + "]"
            return self.choice(("True", "False"))
        if base == "str":
            return self.choice(STRINGS)
        if base == "ScalarType":
            return f"yaten.{self.choice(DTYPES)}"
        if base == "Device":
            return self.choice(("'cpu'", "'cuda'", "'cuda:7'", "'meta'", "'bogus'", "yaten.device('cpu')"))
        if base == "Generator":
            return self.choice(("yaten.Generator()", "yaten.Generator().manual_seed(3)"))
        raise AssertionError(f"no generator for type {base}")

    def call(self, op, faces: dict[str, str]) -> Call:
        schema = op.schema
        shape = self.choice(SHAPES)
        lines: list[str] = []
        tensors: list[str] = []
        positional: list[str] = []
        keywords: list[str] = []
        path = self.choice(sorted(faces))
        self.grad = self.chance(15)  # inputs require grad, and the call ends with a backward pass
        if self.hostile_chance(self.hostile):  # the call runs with a thread count the process may not manage to create
            lines.append(f"threads({self.choice(THREADS)})")
        if self.hostile_chance(self.hostile // 2):  # ... or under an address-space limit a few MiB above what it holds
            lines.append(f"tight({self.choice((1, 8, 64))})")
        by_keyword = False  # once an argument is left out or named, the ones after it are named too
        for i, a in enumerate(schema.arguments):
            receiver = path == "method" and i == 0  # a method's self: always a tensor
            if a.default is not None and not receiver and self.chance(35):
                by_keyword = True  # left to its default
                continue
            text = self.value(a, shape, lines, tensors, receiver)
            by_keyword = not receiver and (by_keyword or a.keyword_only or self.chance(10))
            if by_keyword:
                keywords.append(f"**{{{a.name!r}: {text}}}" if keyword.iskeyword(a.name) else f"{a.name}={text}")
            else:
                positional.append(text)
        if path == "method":
            lines.append(f"r = {positional[0]}.{faces['method']}({', '.join(positional[1:] + keywords)})")
        else:
            lines.append(f"r = {faces[path]}({', '.join(positional + keywords)})")
        if self.grad:
            lines.append("backward(r)")
        return Call(f"{op.namespace}::{schema.full_name}", path, "\n".join(lines))


def faces_of(op, yaten) -> dict[str, str]:
    """The Python callables that reach this overload: {"function": "yaten.add", "method": "add", "ops": ...}."""
    from codegen.python_views import python_name

    schema = op.schema
    faces = {"ops": f"yaten.ops.{op.namespace}.{schema.name}.{schema.overload or 'default'}"}
    module = "yaten" + (f".{op.python_module}" if op.python_module else "")
    owner = yaten
    for part in op.python_module.split(".") if op.python_module else []:
        owner = getattr(owner, part, None)
    name = python_name(op)
    if ("function" in op.variants or schema.is_out) and owner is not None and hasattr(owner, name):
        faces["function"] = f"{module}.{name}"
    if "method" in op.variants and hasattr(yaten.Tensor, schema.name):
        if any(a.name == "self" for a in schema.arguments[:1]):
            faces["method"] = schema.name
    return faces


def generate(count: int, seed: int, cuda: bool = False, hostile: int = 2) -> list[Call]:
    """`count` calls spread evenly over every overload, from a seeded generator (Hypothesis drives the test's)."""
    import yaten
    from codegen import parse

    ops = parse.load(ROOT / "ops.yaml").ops
    faces = {id(op): faces_of(op, yaten) for op in ops}
    writers = {id(op): op_writer(seed, op, lambda rng: CallWriter(rng.randint, rng.choice, cuda, hostile))
               for op in ops}
    return [writers[id(op)].call(op, faces[id(op)]) for op in (ops[i % len(ops)] for i in range(count))]


def op_writer(seed, op, make):
    """A writer whose draws come from a generator of its own, seeded by the seed and the overload's name: adding an
    op to ops.yaml leaves every other op's calls as they were."""
    return make(random.Random(f"{seed}:{op.schema.full_name}"))


# ------------------------------------------------------------------------------------------------ running


class Worker:
    """A Python process that runs calls one at a time; replaced when it dies or hangs."""

    def __init__(self, memory_limit: int, timeout: float) -> None:
        self.memory_limit = memory_limit
        self.timeout = timeout
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONFAULTHANDLER="1")
        code = WORKER.replace("MEMORY_LIMIT", str(self.memory_limit))
        # stderr goes to a file: a pipe nobody reads would fill and stall a worker that warns a lot
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, text=True, env=env, cwd=ROOT)

    def stop(self, kill: bool = False) -> str:
        """Ends the process; returns the end of its stderr (the fault handler's traceback after a crash)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return ""
        if kill:
            proc.kill()
        try:
            proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        self.stderr.seek(0)
        err = self.stderr.read()[-3000:]
        self.stderr.close()
        return err

    def run(self, call: Call) -> dict:
        if self.proc is None:
            self.start()
        proc = self.proc
        try:
            proc.stdin.write(json.dumps({"code": call.code}) + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        ready, _, _ = select.select([proc.stdout], [], [], self.timeout)
        if not ready:
            err = self.stop(kill=True)
            return {"outcome": "hang", "message": f"no answer in {self.timeout:.0f} s", "stderr": err}
        line = proc.stdout.readline()
        if not line:
            proc.wait()
            code = proc.returncode
            err = self.stop()
            return {"outcome": "crash", "message": f"the worker died (exit status {code})", "stderr": err}
        return json.loads(line)


# A sanitizer's runtime reserves terabytes of address space: no limit under one (tools/sanitize.sh).
DEFAULT_MEMORY_LIMIT = 0 if "san.so" in os.environ.get("LD_PRELOAD", "") else 3 << 30


def run_calls(calls: list[Call], workers: int = 2, memory_limit: int = DEFAULT_MEMORY_LIMIT,
              timeout: float = 60.0) -> tuple[list[tuple[Call, dict]], dict[str, int]]:
    """Runs every call; returns the findings (call, outcome) and a count of each outcome."""
    pool = [Worker(memory_limit, timeout) for _ in range(workers)]
    shards = [calls[i::workers] for i in range(workers)]

    def run_shard(i: int) -> list[tuple[Call, dict]]:
        return [(call, pool[i].run(call)) for call in shards[i]]

    try:
        with ThreadPoolExecutor(workers) as ex:
            results = [r for shard in ex.map(run_shard, range(workers)) for r in shard]
    finally:
        for w in pool:
            w.stop(kill=True)
    counts: dict[str, int] = {}
    for _, outcome in results:
        counts[outcome["outcome"]] = counts.get(outcome["outcome"], 0) + 1
    findings = [(c, o) for c, o in results if o["outcome"] not in ("result", "error")]
    return findings, counts


def report(findings: list[tuple[Call, dict]], limit: int = 20) -> str:
    lines = []
    for call, outcome in findings[:limit]:
        detail = outcome.get("type", "")
        lines.append(f"--- {outcome['outcome']} in {call.op} ({call.path}) {detail}: {outcome.get('message', '')}")
        lines.append(call.code)
        if outcome.get("stderr"):
            lines.append("stderr: " + outcome["stderr"].strip().splitlines()[-1] if outcome["stderr"].strip() else "")
    if len(findings) > limit:
        lines.append(f"... and {len(findings) - limit} more")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=int(os.environ.get("YATEN_FUZZ_CALLS", 20000)))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--show", type=int, default=50, help="findings to print")
    parser.add_argument("--hostile", type=int, default=2,
                        help="percent of tensors, numbers and lists from the hostile classes, and of calls under a "
                             "thread count or memory limit")
    parser.add_argument("--memory-limit", type=int, default=DEFAULT_MEMORY_LIMIT,
                        help="address space per worker, bytes; 0: none")
    args = parser.parse_args()
    import yaten

    start = time.perf_counter()
    calls = generate(args.calls, args.seed, cuda=yaten.cuda.is_available(), hostile=args.hostile)
    findings, counts = run_calls(calls, args.workers, args.memory_limit)
    print(report(findings, args.show))
    print(f"{len(calls)} calls in {time.perf_counter() - start:.0f} s: {counts}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
