"""Running the same action from several threads at the same instant, each on its own database
connection, for the tests that prove a compare-and-set or a lock serialises them."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connections


def at_once(count: int, action: Callable[[int], object], timeout: float = 30) -> list[object]:
    """``action(0)`` … ``action(count - 1)`` started together; per index, what it returned or
    the exception it raised (the exception is the result under test)."""
    barrier = threading.Barrier(count)
    results: list[object] = [None] * count

    def run(index: int) -> None:
        try:
            barrier.wait()
            results[index] = action(index)
        except Exception as exc:
            results[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    return results
