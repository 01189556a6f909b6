"""yaten.backends.mps: Apple's Metal backend, which yaten does not have; scripts that probe for it find it absent."""

from __future__ import annotations


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
