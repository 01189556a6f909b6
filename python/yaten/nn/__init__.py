"""yaten.nn: neural-network building blocks. So far only `functional`."""

from . import functional  # noqa: F401
