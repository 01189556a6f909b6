"""Work handles: what a collective with `async_op=True` returns, and what every blocking call waits on.

A backend starts its engine's operation (MPI's nonblocking call, NCCL's enqueue on a stream) and hands back a Work
whose `_poll()` asks the engine whether it is done. `wait()` polls until then or until the process group's timeout,
and raises a RuntimeError naming the rank and the op when the time runs out, so that a peer that died or stopped
calling collectives makes the others raise instead of hanging without end. The step to run after completion
(copying a non-contiguous tensor's result back, dividing for AVG, casting float16 back from float32) runs exactly
once, in the thread that first sees the Work done."""

from __future__ import annotations

import os
import time
from typing import Any, Callable


class DistBackendError(RuntimeError):
    """An error of a collective (torch.distributed.DistBackendError): a timeout, a peer gone, an engine's error."""

    __module__ = "yaten.distributed"


class Work:
    """A started collective or point-to-point operation (torch.distributed.Work)."""

    def __init__(self, op: str, rank: int, timeout: float, poll: Callable[[], bool],
                 then: Callable[[], Any] | None = None, on_timeout: Callable[[], None] | None = None,
                 result: Any = None) -> None:
        self._op = op
        self._rank = rank
        self._timeout = timeout
        self._poll_fn = poll
        self._then = then
        self._on_timeout = on_timeout
        self._result = result
        self._done = False
        self._exception: BaseException | None = None
        self._source_rank = -1

    def _finish(self) -> None:
        self._done = True
        then, self._then = self._then, None
        if then is not None:
            try:
                value = then()
                if value is not None:
                    self._result = value
            except BaseException as e:  # noqa: BLE001 - kept for exception() and raised from wait()
                self._exception = e

    def _poll(self) -> bool:
        if self._done:
            return True
        try:
            done = self._poll_fn()
        except BaseException as e:  # noqa: BLE001
            self._done, self._exception = True, e
            return True
        if done:
            self._finish()
        return self._done

    def is_completed(self) -> bool:
        """Whether the operation has finished (successfully or not), without waiting."""
        return self._poll()

    def is_success(self) -> bool:
        return self._poll() and self._exception is None

    def exception(self) -> BaseException | None:
        return self._exception

    def wait(self, timeout: Any = None) -> bool:
        """Blocks until the operation has finished; raises its error, or a DistBackendError after the timeout (the
        process group's, or `timeout` in seconds or as a timedelta)."""
        limit = self._timeout if timeout is None else (timeout.total_seconds() if hasattr(timeout, "total_seconds")
                                                       else float(timeout))
        start = time.monotonic()
        deadline = start + limit
        spins = 0
        while not self._poll():
            spins += 1
            if spins % 64:
                continue
            now = time.monotonic()
            if now > deadline:
                if self._on_timeout is not None:
                    self._on_timeout()
                self._done = True
                self._exception = DistBackendError(
                    f"[rank {self._rank}] {self._op}: timed out after {limit:g} s waiting for the other ranks "
                    "(a peer has died, raised, or is not calling the same collective)")
                break
            # The first 2 ms spin on the engine's test (a sleep costs ~60 us of timer slack, more than a small
            # collective takes), yielding the core to the other ranks that may share it; then sleeps back off to 1 ms.
            if now - start < 2e-3:
                os.sched_yield()
            else:
                time.sleep(min(1e-3, (now - start) / 20))
        if self._exception is not None:
            raise self._exception
        return True

    def synchronize(self) -> None:
        self.wait()

    def source_rank(self) -> int:
        """For a recv from any source: the rank the message came from."""
        self.wait()
        return self._source_rank

    def result(self) -> Any:
        self.wait()
        return self._result

    def get_future(self) -> "_Future":
        return _Future(self)

    def __repr__(self) -> str:
        return f"<yaten.distributed.Work {self._op} {'done' if self._done else 'pending'}>"


class _Future:
    """The part of torch.futures.Future that DDP communication hooks and scripts use: wait(), value(), then()."""

    def __init__(self, work: Work) -> None:
        self._work = work

    def wait(self) -> Any:
        return self._work.result()

    def value(self) -> Any:
        return self._work.result()

    def done(self) -> bool:
        return self._work.is_completed()

    def then(self, callback: Callable[["_Future"], Any]) -> "_Future":
        parent = self

        def poll() -> bool:
            return parent._work.is_completed()

        return _Future(Work(self._work._op + ".then", self._work._rank, self._work._timeout, poll,
                            then=lambda: callback(parent)))
