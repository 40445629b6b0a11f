"""The one map from how a ``puf`` command ended to its exit code.

==== ==========================================================================
0    done (``puf check`` verdicts, violated ones included, are findings: still 0)
1    a dataset download failed (network, pip): ``ConnectionError``, which
     ``puf.data.DownloadError`` is
2    bad input: an argument, a file or folder that is missing, unreadable or
     unwritable, a measure that cannot be imported or does not return a number
     (``ValueError``, ``ImportError``, ``OSError``)
70   an internal error (a bug in the harness): any other exception
130  interrupted (Ctrl-C, ``KeyboardInterrupt``)
==== ==========================================================================

The dispatcher (:func:`puf.cli.main`) and every command that prints its own
one-line message take the code from :func:`exit_code`, so no command spells a
number.
"""

__all__ = ["EXIT_OK", "EXIT_DOWNLOAD", "EXIT_BAD_INPUT", "EXIT_INTERNAL", "EXIT_INTERRUPTED",
           "EXIT_CODES", "exit_code"]

EXIT_OK, EXIT_DOWNLOAD, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 70, 130

#: (exception class, exit code); the first class the exception is an instance of wins, so a
#: failed download (a ConnectionError, hence an OSError) is 1, not 2.
EXIT_CODES = (
    (KeyboardInterrupt, EXIT_INTERRUPTED),
    (ConnectionError, EXIT_DOWNLOAD),
    (ValueError, EXIT_BAD_INPUT),
    (ImportError, EXIT_BAD_INPUT),
    (OSError, EXIT_BAD_INPUT),
)


def exit_code(exc):
    """Return the exit code for a command that ended with ``exc``.

    Parameters
    ----------
    exc : BaseException
        What the command raised (or caught and reported in one line).

    Returns
    -------
    int
        The code of the first matching class in :data:`EXIT_CODES`, else
        ``EXIT_INTERNAL`` (70).

    Examples
    --------
    >>> from puf.data import DownloadError
    >>> exit_code(DownloadError("no network")), exit_code(FileNotFoundError("x.csv"))
    (1, 2)
    >>> exit_code(ValueError("k must be >= 1")), exit_code(ZeroDivisionError())
    (2, 70)
    """
    for kind, code in EXIT_CODES:
        if isinstance(exc, kind):
            return code
    return EXIT_INTERNAL
