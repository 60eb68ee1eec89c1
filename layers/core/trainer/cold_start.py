"""A Lambda function's init phase without cyclic garbage collection.

A handler module builds everything it keeps across invocations while it is imported: tens of thousands
of modules, classes and schemas, all alive until the execution environment dies. The collector finds
no garbage among them, yet the allocations trigger its passes over the growing heap, about a sixth of
the API function's import time (`make bench`, the `import` figure). Inside `init_phase()` it stays
off; on the way out what was built is frozen (moved where later collections never scan it, which also
keeps warm invocations' collections small), and collection is on again for the invocations.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def init_phase() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
