"""yaten.nn.utils.rnn: pad_sequence (yaten has no packed sequences or recurrent layers yet)."""

from __future__ import annotations

from typing import Any, Sequence

from ... import _C

Tensor = _C.Tensor


def pad_sequence(sequences: Sequence[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stacks tensors of different lengths (dim 0), padded with padding_value to the longest."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.size(0) for s in sequences)
    trailing = list(sequences[0].shape[1:])
    first = sequences[0]
    out = _C.full([len(sequences), max_len] + trailing, padding_value, dtype=first.dtype, device=first.device)
    for i, s in enumerate(sequences):
        n = s.size(0)
        if padding_side == "right":
            out[i, :n] = s
        else:
            out[i, max_len - n:] = s
    return out if batch_first else out.transpose(0, 1)


def pack_padded_sequence(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("pack_padded_sequence: yaten has no packed sequences (no recurrent layers yet)")


pad_packed_sequence = pack_sequence = pack_padded_sequence
