"""Writing a file in one piece: a temporary file beside it, put in its place only when complete."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str], suffix: str = ".tmp") -> Iterator[Path]:
    """A temporary file beside ``path`` (its name plus ``suffix``) to write, put in its place when
    the block ends without an error, and removed when it raises: a reader never sees half a file,
    and a failed write (a full disk, a crash in the middle) leaves no temporary file behind."""
    target = Path(path)
    tmp = target.with_name(target.name + suffix)
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
