"""Bad ops.yaml never produces a Python traceback: Hypothesis mutates real entries (characters, tokens, lines) and
the generator must either succeed or report diagnostics with positions."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen import gen, parse

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "ops.yaml").read_text()
LINES = TEXT.splitlines(keepends=True)
TOKENS = sorted(set(re.findall(r"[A-Za-z_]+|[()\[\]{}:,*=?!.\-]", TEXT)))
NOISE = st.text(alphabet=st.sampled_from(list("abcxyz_:{}[]()-,*=?!'\"#& \n\t|>%@`0123456789.")), max_size=12)


@st.composite
def mutated(draw) -> str:
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["insert", "delete_chars", "replace_token", "drop_line", "duplicate_line",
                                     "swap_lines", "indent"]))
        line = lines[i]
        if kind == "insert":
            at = draw(st.integers(0, len(line)))
            lines[i] = line[:at] + draw(NOISE) + line[at:]
        elif kind == "delete_chars" and line:
            a = draw(st.integers(0, len(line) - 1))
            b = draw(st.integers(a, min(len(line), a + 6)))
            lines[i] = line[:a] + line[b:]
        elif kind == "replace_token":
            tokens = list(re.finditer(r"[A-Za-z_]+|[()\[\]{}:,*=?!.\-]", line))
            if tokens:
                m = draw(st.sampled_from(tokens))
                lines[i] = line[: m.start()] + draw(st.sampled_from(TOKENS)) + line[m.end():]
        elif kind == "drop_line":
            del lines[i]
            if not lines:
                lines = [""]
        elif kind == "duplicate_line":
            lines.insert(i, line)
        elif kind == "swap_lines":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "indent":
            lines[i] = draw(st.sampled_from(["", " ", "  ", "    ", "\t"])) + line.lstrip(" ")
    return "".join(lines)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_ops_yaml_gives_diagnostics_never_a_traceback(text):
    try:
        ops_file = parse.loads(text, "ops.yaml", ROOT / "csrc")
    except parse.ParseError as e:
        assert e.diagnostics
        for d in e.diagnostics:
            assert re.match(r"ops\.yaml:\d+:\d+: error: \S", str(d)), str(d)
            assert d.location.line >= 1 and d.location.column >= 1
        return
    try:
        # gen.check makes every check generate() makes beyond the parser (0.15 s); rendering all 944 ops' files takes
        # a second more, so a fixed quarter of the mutations (by their text's CRC) are rendered in full as well
        gen.check(ops_file)
        if zlib.crc32(text.encode()) % 4 == 0:
            gen.generate(ops_file)
    except ValueError as e:  # generation-time checks report with a position too
        assert re.match(r"ops\.yaml:\d+:\d+: error: ", str(e)), str(e)
