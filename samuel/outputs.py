"""Checking where a command will write, before it does any work.

A command that builds for minutes and then finds its ``--out`` is a directory
(or in a folder that does not exist) has wasted the minutes and, writing
through a temporary file, may leave that file behind.  Every output path is
checked here first: as an argparse ``type=`` (``output_file``, ``output_dir``)
when the option names it, or with ``check_output_file``/``check_output_dir``
when the command derives it.

No engine import at the top: argument types are loaded with every parser.
"""

from __future__ import annotations

import argparse
import os
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

__all__ = ["OutputPathError", "check_output_dir", "check_output_file", "output_dir", "output_file",
           "output_file_in_new_folders", "replacing"]


class OutputPathError(ValueError):
    """An output path that cannot be written: the message names the path and why.

    Not a SamuelError only so that this module loads no engine; ``samuel.cli``
    reports it as one (exit status 2)."""


def _folder_problem(folder: Path) -> str | None:
    """Why files cannot be made in ``folder`` (None when they can)."""
    if not folder.exists():
        return f"the folder {folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"no permission to write in {folder}"
    return None


def file_problem(path: str | os.PathLike[str], *, folders: bool = False) -> str | None:
    """Why ``path`` cannot be written as a file (None when it can): a folder, a missing or
    read-only parent folder, a read-only file.  With ``folders`` (the command makes the missing
    folders on the path), a missing parent is fine if the folders can be made."""
    p = Path(path)
    if str(p) in ("", "."):
        return "no file name given"
    if p.is_dir():
        return f"{p} is a folder, not a file"
    parent = p.parent
    if folders and not parent.exists():
        problem = dir_problem(parent)
        return None if problem is None else f"cannot write {p}: {problem}"
    problem = _folder_problem(parent)
    if problem is not None:
        return f"cannot write {p}: {problem}"
    if p.exists() and not os.access(p, os.W_OK):
        return f"cannot write {p}: no permission"
    return None


def dir_problem(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be used as an output folder (None when it can): a file in its
    place, or a nearest existing ancestor that is not a writable folder."""
    p = Path(path)
    if p.exists():
        if not p.is_dir():
            return f"{p} is a file, not a folder"
        if not os.access(p, os.W_OK | os.X_OK):
            return f"no permission to write in {p}"
        return None
    ancestor = p.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"cannot create {p}: {ancestor} is a file, not a folder"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"cannot create {p}: no permission to write in {ancestor}"
    return None


def check_output_file(path: str | os.PathLike[str], option: str, *, folders: bool = False) -> Path:
    """``path`` as a Path, or OutputPathError naming ``option`` and what is wrong (``folders``: the
    caller makes missing folders on the path)."""
    problem = file_problem(path, folders=folders)
    if problem is not None:
        raise OutputPathError(f"{option}: {problem}")
    return Path(path)


def check_output_dir(path: str | os.PathLike[str], option: str) -> Path:
    """``path`` as a Path, or OutputPathError naming ``option`` and what is wrong."""
    problem = dir_problem(path)
    if problem is not None:
        raise OutputPathError(f"{option}: {problem}")
    return Path(path)


def output_file(text: str) -> str:
    """argparse ``type=`` for a file the command writes (checked at parse time)."""
    problem = file_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


output_file.__name__ = "output file"


def output_file_in_new_folders(text: str) -> str:
    """argparse ``type=`` for a file the command writes, making any missing folders on its path."""
    problem = file_problem(text, folders=True)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


output_file_in_new_folders.__name__ = "output file"


def output_dir(text: str) -> Path:
    """argparse ``type=`` for a folder the command writes into, made if missing (checked at parse time)."""
    problem = dir_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return Path(text)


output_dir.__name__ = "output folder"


def replacing(path: str | os.PathLike[str], suffix: str = ".tmp") -> AbstractContextManager[Path]:
    """``engine.replacing.replacing``, imported when a file is written: importing the engine package
    at parse time would load the C core for every command line."""
    from engine.replacing import replacing as write_whole

    return write_whole(path, suffix)


def save_figure(fig: Any, path: Path, dpi: int = 100) -> None:
    """Write a matplotlib figure whole (a PNG that is there complete or not at all), then close it."""
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with replacing(path, ".tmp.png") as tmp:
            fig.savefig(tmp, dpi=dpi)
    finally:
        plt.close(fig)
