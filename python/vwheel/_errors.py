"""The exceptions of vwheel: every failure of the engine is a :class:`Error`."""

from __future__ import annotations


class Error(Exception):
    """A failure of the vwheel engine.

    ``message`` is the one line the ``vwheel`` command prints after ``vwheel: error:`` (naming the
    file, field and value at fault); ``details`` holds further problems of the same input;
    ``kind`` is ``"input"`` (bad input: the CLI exits 1), ``"usage"`` (a bad argument: 2) or
    ``"environment"`` (I/O, a missing interpreter, out of memory: 3).
    """

    kind = "input"

    def __init__(self, message: str, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = list(details or [])


class InputError(Error, ValueError):
    """Bad input: a file, field or value that is not what was expected."""

    kind = "input"


class UsageError(InputError):
    """A bad argument (the CLI's command-line errors, exit code 2)."""

    kind = "usage"


class EnvironmentFailure(Error, OSError):
    """The environment failed: I/O, a missing interpreter, out of memory."""

    kind = "environment"

    def __init__(self, message: str, details: list[str] | None = None) -> None:
        Error.__init__(self, message, details)

    def __str__(self) -> str:
        return self.message
