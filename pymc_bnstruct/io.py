"""Atomic file output shared by every writer of the package (BIF, results, reports, plots).

A writer never leaves a half-written file behind: it writes to a temporary file in the
destination's folder and renames it over the destination only when it has finished
(``os.replace`` is atomic on one file system).
"""

from __future__ import annotations

__stage__ = "base"  # where this unit sits in the pipeline (tests/test_layout.py)

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["atomic_path"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; move it onto ``path`` on success.

    On an exception the temporary file is removed and ``path`` is left as it was.
    The temporary name keeps the suffix of ``path`` (writers that pick a format by
    suffix, such as matplotlib's ``savefig``, keep working).
    """
    dest = Path(path)
    folder = dest.parent if str(dest.parent) else Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(f"folder {str(folder)!r} of the output file {str(dest)!r} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=dest.suffix or ".tmp", dir=folder)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, 0o666 & ~_umask())  # mkstemp makes the file private (0600)
        os.replace(tmp_path, dest)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()
